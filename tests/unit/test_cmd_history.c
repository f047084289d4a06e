/* `history` as the command layer prints it: a label's trend in markdown,
 * written to stdout as it is listed (64 KiB at a time), the same text as
 * one string would have been. */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "orchestrator/cli/commands.h"
#include "orchestrator/cli/options.h"
#include "orchestrator/history/history_db.h"
#include "tests/support/history_backend.h"
#include "tests/support/env_none.h"
#include "tests/support/run_support.h"
#include "tests/support/scratch.h"

static char *root, *dbpath;

static void setup(void)
{
	cr_redirect_stderr();
	root = scratch_dir("cmd-history");
	cleanup_free char *file = xasprintf("%s/history.sqlite", root);

	dbpath = history_backend_db(file);
}

static void teardown(void)
{
	scratch_remove(root);
	free(root);
	free(dbpath);
}

TestSuite(cmd_history, .init = setup, .fini = teardown);

/* Case i of n: every seventh faults in its own kernel; a name with a
 * markdown special (the underscore) in each. */
static void add_case(struct sweep_results *rs, int i)
{
	struct case_result *r;

	if (rs->n == rs->alloc) {
		rs->alloc = rs->alloc ? rs->alloc * 2 : 64;
		rs->v = xrealloc(rs->v, rs->alloc * sizeof(*rs->v));
	}
	r = &rs->v[rs->n++];
	memset(r, 0, sizeof(*r));
	r->case_name = xasprintf("lib/case_%05d/capture.hrr/pid-1", i);
	r->image = xstrdup("rocm:nightly");
	r->attempt = 1;
	r->state = RESULT_DONE;
	case_result_set_verdict(r, i % 7 ? "PASS" : "MAF", NULL);
	r->kernel = i % 7 ? NULL : xasprintf("k_%d", i);
}

static void import_sweep(struct history_db *db, const char *id, long long started, int n)
{
	struct sweep_results rs = { 0 };
	struct history_sweep s = { .id = id, .label = "nightly", .state = "finished",
				   .started = started, .folder = id };
	struct error err;
	bool rebuilt;

	for (int i = 0; i < n; i++)
		add_case(&rs, i);
	cr_assert_eq(history_db_import(db, &s, NULL, 0, &rs, &rebuilt, &err), 0, "%s", err.msg);
	sweep_results_release(&rs);
}

/* history --db ... --label label, its stdout in a file of the scratch
 * directory (not a pipe: the rows are more than a pipe holds), read back
 * into *out. */
static int history(const char *label, char **out)
{
	char *argv[] = { "hrr-docker-replay", "history", "--db", dbpath, "--label", (char *)label,
			 NULL };
	cleanup_free char *path = xasprintf("%s/stdout", root);
	struct strbuf text = STRBUF_INIT;
	struct options o;
	struct error err;
	int code, saved, fd;

	options_init(&o);
	cr_assert_eq(options_parse(&o, 6, argv, env_none, NULL, NULL, &err), 0, "%s", err.msg);
	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	cr_assert(saved >= 0 && fd >= 0);
	cr_assert_eq(dup2(fd, STDOUT_FILENO), STDOUT_FILENO);
	close(fd);
	code = history_command(&o);
	fflush(stdout);
	cr_assert_eq(dup2(saved, STDOUT_FILENO), STDOUT_FILENO);
	close(saved);
	options_release(&o);
	cr_assert(read_text(path, &text));
	*out = strbuf_detach(&text, NULL);
	return code;
}

static size_t count(const char *text, const char *what)
{
	size_t n = 0;

	for (const char *p = text; (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

/* Two sweeps of 2,000 cases: about 200 KB of rows, written in several
 * pieces; each row once, in the sweeps' order, the escaping intact. */
Test(cmd_history, a_label_s_rows_written_piece_by_piece_are_every_row_once_in_order)
{
	struct history_db *db = NULL;
	struct error err;
	cleanup_free char *out = NULL;
	const char *first, *second;

	cr_assert_eq(history_db_open(&db, dbpath, &err), 0, "%s", err.msg);
	import_sweep(db, "nightly-1", 1000, 2000);
	import_sweep(db, "nightly-2", 2000, 2000);
	history_db_close(db);

	cr_assert_eq(history("nightly", &out), 0);
	cr_assert(strlen(out) > 3 * (64u << 10), "%zu bytes: not enough to be written in pieces",
		  strlen(out));
	cr_assert(!strncmp(out, "# History of nightly\n", 21), "%.80s", out);
	cr_assert_eq(count(out, "# History"), 1, "the title once");
	first = strstr(out, "## nightly-1 ");
	second = strstr(out, "## nightly-2 ");
	cr_assert(first && second && first < second, "the older sweep first");
	cr_assert_eq(count(out, "| lib/case\\_"), 4000, "every row once");
	cr_assert_eq(count(out, "| lib/case\\_01999/capture.hrr/pid-1 | rocm:nightly | PASS | - |\n"),
		     2);
	cr_assert_eq(count(out, "| lib/case\\_01995/capture.hrr/pid-1 | rocm:nightly | MAF | k\\_1995 |\n"),
		     2);
	cr_assert(strstr(second, "| lib/case\\_00000/"), "the second sweep's rows after its heading");
	cr_assert_eq(out[strlen(out) - 1], '\n');
}

/* The database has sweeps, none of this label. */
Test(cmd_history, a_label_without_sweeps_says_so)
{
	struct history_db *db = NULL;
	struct error err;
	cleanup_free char *out = NULL;

	cr_assert_eq(history_db_open(&db, dbpath, &err), 0, "%s", err.msg);
	import_sweep(db, "nightly-1", 1000, 3);
	history_db_close(db);

	cr_assert_eq(history("nothing-here", &out), 0);
	cr_assert_str_eq(out, "# History of nothing-here\n\nNo sweeps recorded.\n");
}

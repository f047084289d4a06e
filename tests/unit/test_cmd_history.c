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
#include "tests/support/perf_lines.h"
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

/* hrr-docker-replay argv..., its stdout in a file of the scratch
 * directory (not a pipe: the rows are more than a pipe holds), read back
 * into *out. */
static int command(int argc, char **argv, char **out)
{
	cleanup_free char *path = xasprintf("%s/stdout", root);
	struct strbuf text = STRBUF_INIT;
	struct options o;
	struct error err;
	int code, saved, fd;

	options_init(&o);
	cr_assert_eq(options_parse(&o, argc, argv, env_none, NULL, NULL, &err), 0, "%s", err.msg);
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

/* history --db ... --label label. */
static int history(const char *label, char **out)
{
	char *argv[] = { "hrr-docker-replay", "history", "--db", dbpath, "--label", (char *)label,
			 NULL };

	return command(6, argv, out);
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

/* Night i: case "slow" at ms, its image ID n<i>. */
static void perf_night(struct history_db *db, int i, double ms)
{
	char id[16], image_id[40];
	struct sweep_results rs = { 0 };
	struct history_sweep s = { .id = id, .label = "nightly", .state = "finished",
				   .started = 100 * i, .folder = id };
	struct error err;
	bool rebuilt;

	snprintf(id, sizeof(id), "n%02d", i);
	snprintf(image_id, sizeof(image_id), "sha256:%02d0000000000000", i);
	perf_line(&rs, "slow", "rocm:nightly", image_id, 1, 0, ms);
	cr_assert_eq(history_db_import(db, &s, NULL, 0, &rs, &rebuilt, &err), 0, "%s", err.msg);
	sweep_results_release(&rs);
}

/* `history perf --changes` lists the step of n06; `--accept` marks it. */
Test(cmd_history, perf_changes_lists_a_step_and_accept_marks_it)
{
	static const double wobble[] = { 0, 0.3, -0.2, 0.1, -0.3 };
	struct history_db *db = NULL;
	struct error err;
	cleanup_free char *out = NULL, *accepted = NULL, *after = NULL, *json = NULL;
	char *changes[] = { "hrr-docker-replay", "history", "perf", "--changes", "--db", dbpath,
			    NULL };
	char *accept[] = { "hrr-docker-replay", "history", "perf", "--accept", "slow", "--night",
			   "n06", "--db", dbpath, NULL };
	char *as_json[] = { "hrr-docker-replay", "history", "perf", "--changes", "--case", "slow",
			    "--format", "json", "--db", dbpath, NULL };

	cr_assert_eq(history_db_open(&db, dbpath, &err), 0, "%s", err.msg);
	for (int i = 1; i <= 9; i++)
		perf_night(db, i, (i >= 6 ? 50 : 40) + wobble[i % 5]);
	history_db_close(db);

	cr_assert_eq(command(6, changes, &out), 0);
	cr_expect(strstr(out, "| night | case | image | GPU | change | median (ms) | image ID | p |"
			      " accepted |\n"), "%s", out);
	cr_expect(strstr(out, "| n06 | slow | rocm:nightly | gfx942 29857 | +24.9% | 40.0 → "
			      "50.0 | 050000000000 → 060000000000 | 0.01 |  |\n"), "%s", out);
	cr_assert_eq(command(9, accept, &accepted), 0);
	cr_expect_str_eq(accepted, "accepted: the GPU-time change of slow at sweep n06 (label "
				   "nightly) is intended; its series restarts there\n");
	cr_assert_eq(command(6, changes, &after), 0);
	cr_expect(strstr(after, "| 0.01 | accepted |\n"), "%s", after);
	cr_assert_eq(command(10, as_json, &json), 0);
	cr_expect(strstr(json, "\"night\":\t\"n06\""), "%s", json);
	cr_expect(strstr(json, "\"accepted\":\ttrue"), "%s", json);
}

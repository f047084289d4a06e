/* `history remark` (docs/sweep.md "Known issues"): known issues are matched
 * once, at a sweep's import into the history; after a rule changes, the
 * history is marked again, and the reports regenerated from it (`sweep
 * --merge` reads the rules as they are) agree with it, before and after. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "orchestrator/history/history_known.h"
#include "orchestrator/jobs/sweep_finish.h"
#include "tests/support/history_backend.h"
#include "tests/support/report_text.h"
#include "tests/support/scratch.h"

static char *root;

static void setup(void)
{
	root = scratch_dir("history-remark");
}

static void teardown(void)
{
	scratch_remove(root);
	free(root);
}

TestSuite(history_remark, .init = setup, .fini = teardown);

static void rules(struct known_issues *k, const char *id)
{
	cleanup_free char *text = xasprintf("issues:\n"
					    "  - id: %s\n"
					    "    link: https://bugs.example/%s\n"
					    "    owner: gemm-team\n"
					    "    match: {case: 'lib/c.hrr/pid-1', outcome: MAF}\n",
					    id, id);
	struct error err;

	cr_assert_eq(known_issues_parse("k.yaml", text, strlen(text), k, &err), 0, "%s", err.msg);
}

/* One night: pid-0 passes, pid-1 fails (a MAF), as a worker writes them:
 * the signature, no mark. */
static char *night(struct sweep_meta *m)
{
	static const char *const names[] = { "lib/c.hrr/pid-0", "lib/c.hrr/pid-1" };
	static const char *const outcomes[] = { "PASS", "MAF" };
	cleanup_free char *path = NULL;
	char *folder = NULL;
	struct error err;

	sweep_meta_init(m);
	m->id = xstrdup("nightly-a");
	m->label = xstrdup("nightly");
	m->started = 10;
	sweep_meta_add_image(m, "img:1");
	cr_assert_eq(sweep_folder_create(root, m->id, &folder, &err), 0, "%s", err.msg);
	path = xasprintf("%s/%s", folder, SWEEP_RESULTS_FILE);
	for (size_t i = 0; i < 2; i++) {
		struct sweep_case *c = sweep_plan_push(&m->plan);
		struct case_result r = { .case_name = (char *)names[i], .image = "img:1",
					  .state = RESULT_DONE, .attempt = 1 };

		c->name = xstrdup(names[i]);
		c->archive = xasprintf("/%s", names[i]);
		c->image = xstrdup("img:1");
		case_result_set_verdict(&r, outcomes[i], i ? "illegal_memory_access" : NULL);
		if (i == 1)
			signature_make(&r.signature, "MAF", "illegal_memory_access", "k<T>", NULL,
				       NULL, false);
		cr_assert_eq(case_result_append(path, &r, &err), 0, "%s", err.msg);
		cr_assert_null(r.known_id);
		signature_release(&r.signature);
		free(r.class_other);
	}
	return folder;
}

/* What `history remark` would change with k now (nothing written). */
static struct history_remark pending(struct history_db *db, const struct known_issues *k)
{
	struct history_remark n;
	struct error err;

	cr_assert_eq(history_remark(db, k, "nightly", 10, 100, true, &n, &err), 0, "%s", err.msg);
	return n;
}

/* The report regenerated from the history, as `sweep --merge` does. */
static void regenerate(struct history_db *db, const struct sweep_meta *m, const char *folder,
		       const struct known_issues *k, struct strbuf *out)
{
	struct sweep_finish f = { .state = SWEEP_FINISHED, .finished = 100, .known = k };
	struct error err;
	int code;

	strbuf_reset(out);
	cr_assert_eq(report_text_sweep(db, m, folder, &f, &code, out, &err), 0, "%s", err.msg);
}

Test(history_remark, a_changed_rule_marks_the_history_again_and_the_reports_follow)
{
	struct known_issues one, two;
	struct sweep_meta m;
	struct history_db *db;
	struct history_remark n;
	struct error err;
	cleanup_free char *file = xasprintf("%s/h.sqlite", root);
	cleanup_free char *dbp = history_backend_db(file);
	cleanup_free char *folder = night(&m);
	cleanup_strbuf struct strbuf out = STRBUF_INIT;

	rules(&one, "BUG-1");
	rules(&two, "BUG-2");
	cr_assert_eq(history_db_open(&db, dbp, &err), 0, "%s", err.msg);

	/* Before: the import marked the failure; history and report agree. */
	regenerate(db, &m, folder, &one, &out);
	cr_assert(strstr(out.buf, "BUG-1"), "%s", out.buf);
	n = pending(db, &one);
	cr_assert_eq(n.failures, 1);
	cr_assert_eq(n.known + n.unknown + n.other, 0, "the history agrees with the rules");

	/* The rule changes: --dry-run counts and writes nothing. */
	n = pending(db, &two);
	cr_assert_eq(n.other, 1);
	n = pending(db, &two);
	cr_assert_eq(n.other, 1, "a dry run wrote nothing");

	/* history remark: the history takes the new rule, once. */
	cr_assert_eq(history_remark(db, &two, "nightly", 10, 100, false, &n, &err), 0, "%s",
		     err.msg);
	cr_assert_eq(n.other, 1);
	n = pending(db, &two);
	cr_assert_eq(n.known + n.unknown + n.other, 0);

	/* After: the report regenerated with the rules as they are names the
	 * new issue, and the history still agrees with it. */
	regenerate(db, &m, folder, &two, &out);
	cr_assert(strstr(out.buf, "BUG-2"), "%s", out.buf);
	cr_assert_null(strstr(out.buf, "BUG-1"), "%s", out.buf);
	n = pending(db, &two);
	cr_assert_eq(n.known + n.unknown + n.other, 0, "history and report agree");

	/* A rule removed: the failure is no longer known. */
	known_issues_release(&one);
	cr_assert_eq(known_issues_parse("k.yaml", "issues: []\n", 11, &one, &err), 0, "%s",
		     err.msg);
	cr_assert_eq(history_remark(db, &one, "nightly", 10, 100, false, &n, &err), 0, "%s",
		     err.msg);
	cr_assert_eq(n.unknown, 1);
	regenerate(db, &m, folder, &one, &out);
	cr_assert_null(strstr(out.buf, "BUG-2"), "%s", out.buf);

	known_issues_release(&one);
	known_issues_release(&two);
	sweep_meta_release(&m);
	history_db_close(db);
}

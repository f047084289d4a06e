/* The history's last durations of planned cases (sweep_expected_load). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "orchestrator/history/sweep_expected.h"
#include "tests/support/scratch.h"

static char *root, *dbpath;

static void setup(void)
{
	root = scratch_dir("expected");
	dbpath = xasprintf("%s/history.sqlite", root);
}

static void teardown(void)
{
	scratch_remove(root);
	free(root);
	free(dbpath);
}

TestSuite(sweep_expected, .init = setup, .fini = teardown);

static void add(struct sweep_results *rs, const char *c, int attempt, double duration,
		const char *state)
{
	struct case_result *r;

	if (rs->n == rs->alloc) {
		rs->alloc = rs->alloc ? rs->alloc * 2 : 16;
		rs->v = xrealloc(rs->v, rs->alloc * sizeof(*rs->v));
	}
	r = &rs->v[rs->n++];
	memset(r, 0, sizeof(*r));
	r->case_name = xstrdup(c);
	r->image = xstrdup("img");
	r->attempt = attempt;
	cr_assert(case_result_state_from_name(state, &r->state), "%s", state);
	case_result_set_verdict(r, "PASS", NULL);
	r->duration_s = duration;
	r->run_dir = xasprintf("runs/%s-%d", c, attempt);
}

static void night(struct history_db *db, const char *id, long long started,
		  const struct sweep_results *rs)
{
	const struct history_planned p[] = { { "a", "img" }, { "b", "img" } };
	struct history_sweep s = { .id = id, .label = "nightly", .state = "finished",
				   .started = started, .folder = id };
	struct error err;
	bool rebuilt;

	cr_assert_eq(history_db_import(db, &s, p, 2, rs, &rebuilt, &err), 0, "%s", err.msg);
}

Test(sweep_expected, the_latest_attempt_that_ran_of_the_same_case_and_image)
{
	struct history_db *db;
	struct error err;
	struct sweep_results n1 = { 0 }, n2 = { 0 };
	struct sweep_plan p = { 0 };

	cr_assert_eq(history_db_open(&db, dbpath, &err), 0, "%s", err.msg);
	add(&n1, "a", 1, 100, "done");
	add(&n1, "b", 1, 7, "done");
	night(db, "s1", 1000, &n1);
	/* The next night: a ran twice (the retry is the latest), b's replay
	 * never started (the engine's time is no replay's). */
	add(&n2, "a", 1, 40, "done");
	add(&n2, "a", 2, 30, "done");
	add(&n2, "b", 1, 90, "error");
	night(db, "s2", 2000, &n2);
	const char *names[] = { "a", "b", "c", "a" };
	const char *images[] = { "img", "img", "img", "other" };

	for (int i = 0; i < 4; i++) {
		struct sweep_case *c = sweep_plan_push(&p);

		c->name = xstrdup(names[i]);
		c->image = xstrdup(images[i]);
	}
	cr_assert_eq(sweep_expected_load(db, &p, &err), 0, "%s", err.msg);
	cr_assert_eq(p.cases[0].expected_s, 30, "the latest sweep's last attempt");
	cr_assert_eq(p.cases[1].expected_s, 7, "an attempt that did not run is skipped");
	cr_assert_lt(p.cases[2].expected_s, 0, "unknown case");
	cr_assert_lt(p.cases[3].expected_s, 0, "same name, other image: unknown");
	sweep_plan_release(&p);
	sweep_results_release(&n1);
	sweep_results_release(&n2);
	history_db_close(db);
}

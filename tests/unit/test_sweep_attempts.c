#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "orchestrator/jobs/sweep_attempts.h"

/* b failed twice then passed on the third attempt; a's attempt 1 was
 * written twice (a resumed sweep), the last one counts; c errored. */
static const char lines[] =
		"{\"case\":\"b\",\"image\":\"i\",\"attempt\":1,\"state\":\"done\",\"outcome\":\"MAF\","
		"\"gpus\":[0,1],\"run_dir\":\"runs/b1\"}\n"
		"{\"case\":\"a\",\"image\":\"i\",\"attempt\":1,\"state\":\"done\",\"outcome\":\"HANG\","
		"\"host\":\"n1\"}\n"
		"{\"case\":\"b\",\"image\":\"i\",\"attempt\":2,\"state\":\"error\",\"outcome\":null,"
		"\"message\":\"engine\"}\n"
		"{\"case\":\"a\",\"image\":\"i\",\"attempt\":1,\"state\":\"done\",\"outcome\":\"PASS\","
		"\"host\":\"n2\"}\n"
		"{\"case\":\"b\",\"image\":\"i\",\"attempt\":3,\"state\":\"done\",\"outcome\":\"PASS\"}\n"
		"{\"case\":\"c\",\"image\":\"i\",\"attempt\":1,\"state\":\"error\",\"outcome\":null}\n";

static void expect_lines(const struct sweep_attempts *a)
{
	const struct sweep_case_attempts *e;

	cr_assert_eq(a->n, 3);

	e = sweep_attempts_find(a, "b", "i");
	cr_assert_not_null(e);
	cr_expect_str_eq(e->kind, "workload");
	cr_assert_eq(e->n_failed, 2);
	cr_expect_eq(e->final, 2, "the final attempt passed: not a failure");
	cr_expect_eq(e->failed[0].attempt, 1);
	cr_expect_str_eq(e->failed[0].gpus, "0,1");
	cr_expect_str_eq(e->failed[0].run_dir, "runs/b1");
	cr_expect_null(e->failed[1].outcome);
	cr_expect_str_eq(e->failed[1].kind, "infrastructure");

	e = sweep_attempts_find(a, "a", "i");
	cr_assert_not_null(e);
	cr_expect_str_eq(e->host, "n2", "the last written of the highest attempt");
	cr_expect_eq(e->n_failed, 1);

	e = sweep_attempts_find(a, "c", "i");
	cr_assert_not_null(e);
	cr_expect_eq(e->n_failed, 1);
	cr_expect_eq(e->final, 0, "a final attempt that did not PASS is among the failures");
	cr_expect_str_eq(e->kind, "infrastructure");

	cr_expect_null(sweep_attempts_find(a, "a", "j"));
	cr_expect_null(sweep_attempts_find(a, "d", "i"));
}

Test(sweep_attempts, each_case_keeps_its_final_attempt_and_its_failures_in_file_order)
{
	struct sweep_results rs = { 0 };
	struct sweep_attempts a;

	sweep_results_parse_text(&rs, lines);
	cr_assert_eq(rs.n, 6, "skipped %zu", rs.skipped);
	sweep_attempts_build(&a, &rs);
	sweep_results_release(&rs);
	expect_lines(&a);
	sweep_attempts_release(&a);
}

/* A large sweep's results come a chunk at a time: a case's attempts in
 * several chunks make the same entry as all at once. */
Test(sweep_attempts, results_added_one_line_at_a_time_make_the_same_entries)
{
	struct sweep_attempts a;

	memset(&a, 0, sizeof(a));
	for (const char *p = lines, *nl; (nl = strchr(p, '\n')); p = nl + 1) {
		struct sweep_results rs = { 0 };
		char one[512];

		snprintf(one, sizeof(one), "%.*s\n", (int)(nl - p), p);
		sweep_results_parse_text(&rs, one);
		cr_assert_eq(rs.n, 1);
		sweep_attempts_add(&a, &rs);
		sweep_results_release(&rs);
	}
	sweep_attempts_finish(&a);
	expect_lines(&a);
	sweep_attempts_release(&a);
}

/* Room reserved for the planned cases (3) is allocated once; the six
 * chunks' entries (a retry in a later chunk is one more) go past it and
 * still make the same entries. */
Test(sweep_attempts, entries_past_the_reserve_make_the_same_entries)
{
	struct sweep_attempts a;

	memset(&a, 0, sizeof(a));
	sweep_attempts_reserve(&a, 3);
	cr_assert_eq(a.alloc, 3);
	for (const char *p = lines, *nl; (nl = strchr(p, '\n')); p = nl + 1) {
		struct sweep_results rs = { 0 };
		char one[512];

		snprintf(one, sizeof(one), "%.*s\n", (int)(nl - p), p);
		sweep_results_parse_text(&rs, one);
		sweep_attempts_add(&a, &rs);
		sweep_results_release(&rs);
	}
	cr_expect_eq(a.n, 6, "one entry a chunk before they are merged");
	cr_expect_geq(a.alloc, 6);
	sweep_attempts_finish(&a);
	expect_lines(&a);
	sweep_attempts_release(&a);
}

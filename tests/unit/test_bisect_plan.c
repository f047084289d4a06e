/* orchestrator/bisect/plan.c and orchestrator/bisect/candidates.c's pure parts: the search over
 * marks, and the candidate list's parse, order and cut. */
#include <criterion/criterion.h>
#include <string.h>

#include "orchestrator/bisect/candidates.h"
#include "orchestrator/bisect/plan.h"

/* Drive the plan over n candidates whose first bad is `first_bad`;
 * returns how many probes it took and checks the answer. */
static int search(size_t n, size_t first_bad)
{
	enum bisect_mark marks[64] = { 0 };
	struct bisect_state st;
	enum bisect_step s;
	int probes = 0;

	while ((s = bisect_plan_next(marks, n, &st)) == BISECT_PROBE) {
		cr_assert_eq(marks[st.next], BISECT_UNKNOWN, "probes %zu twice", st.next);
		marks[st.next] = st.next >= first_bad ? BISECT_DIFFERS : BISECT_SAME;
		probes++;
	}
	cr_assert_eq(s, BISECT_FOUND);
	cr_expect_eq(st.first_bad, first_bad);
	cr_expect_eq(st.last_good, first_bad - 1);
	return probes;
}

Test(bisect_plan, sixteen_candidates_take_at_most_six_replays_wherever_the_change_is)
{
	for (size_t fb = 1; fb < 16; fb++)
		cr_expect_leq(search(16, fb), 6, "first bad %zu", fb);
	cr_expect_eq(search(2, 1), 2);
}

Test(bisect_plan, ends_first_then_the_midpoint)
{
	enum bisect_mark m[16] = { 0 };
	struct bisect_state st;

	cr_assert_eq(bisect_plan_next(m, 16, &st), BISECT_PROBE);
	cr_expect_eq(st.next, 0);
	m[0] = BISECT_SAME;
	cr_assert_eq(bisect_plan_next(m, 16, &st), BISECT_PROBE);
	cr_expect_eq(st.next, 15);
	m[15] = BISECT_DIFFERS;
	cr_assert_eq(bisect_plan_next(m, 16, &st), BISECT_PROBE);
	cr_expect_eq(st.next, 7);
}

Test(bisect_plan, known_marks_from_the_history_shorten_the_search)
{
	enum bisect_mark m[16] = { 0 };
	struct bisect_state st;

	m[0] = m[9] = BISECT_SAME;
	m[15] = m[10] = BISECT_DIFFERS;
	cr_assert_eq(bisect_plan_next(m, 16, &st), BISECT_FOUND);
	cr_expect_eq(st.last_good, 9);
	cr_expect_eq(st.first_bad, 10);
}

Test(bisect_plan, no_transition_flaky_and_errors_stop_it)
{
	enum bisect_mark m[8] = { BISECT_SAME };
	struct bisect_state st;

	m[7] = BISECT_SAME;
	cr_expect_eq(bisect_plan_next(m, 8, &st), BISECT_NO_CHANGE);
	m[7] = BISECT_DIFFERS;
	m[3] = BISECT_FLAKY;
	cr_expect_eq(bisect_plan_next(m, 8, &st), BISECT_STOPPED_FLAKY);
	cr_expect_eq(st.next, 3);
	m[3] = BISECT_ERROR;
	cr_expect_eq(bisect_plan_next(m, 8, &st), BISECT_STOPPED_ERROR);
	m[0] = BISECT_FLAKY;
	cr_expect_eq(bisect_plan_next(m, 8, &st), BISECT_GOOD_DIFFERS);
}

Test(bisect_candidates, a_file_is_parsed_cut_and_checked)
{
	struct bisect_candidates c = { 0 };
	struct error err;

	cr_assert_eq(bisect_candidates_parse(&c, "# nightly\nr/x:a\n\n  r/x:b  \nr/x:c\nr/x:d\n",
					     "f", &err), 0, "%s", err.msg);
	cr_assert_eq(c.n, 4);
	cr_expect_str_eq(c.v[1].ref, "r/x:b");
	cr_assert_eq(bisect_candidates_between(&c, "r/x:b", "r/x:d", &err), 0, "%s", err.msg);
	cr_assert_eq(c.n, 3);
	cr_expect_str_eq(c.v[0].ref, "r/x:b");
	cr_expect_str_eq(c.v[2].ref, "r/x:d");
	cr_expect_eq(bisect_candidates_between(&c, "r/x:d", "r/x:b", &err), -1);
	cr_expect(strstr(err.msg, "not older"), "%s", err.msg);
	cr_expect_eq(bisect_candidates_between(&c, "r/x:zz", "r/x:d", &err), -1);
	cr_expect(strstr(err.msg, "--good r/x:zz is not among"), "%s", err.msg);
	bisect_candidates_release(&c);
	cr_expect_eq(bisect_candidates_parse(&c, "ok:1\nNOT A REF\n", "f", &err), -1);
	cr_expect(strstr(err.msg, "line 2"), "%s", err.msg);
	bisect_candidates_release(&c);
}

Test(bisect_candidates, tags_order_by_created_then_version)
{
	struct bisect_candidates c = { 0 };

	bisect_candidates_push(&c, "r:t10", "t10", 100);
	bisect_candidates_push(&c, "r:t9", "t9", 100);
	bisect_candidates_push(&c, "r:old", "old", 50);
	bisect_candidates_push(&c, "r:new", "new", 200);
	bisect_candidates_sort(&c);
	cr_expect_str_eq(c.v[0].ref, "r:old");
	cr_expect_str_eq(c.v[1].ref, "r:t9");
	cr_expect_str_eq(c.v[2].ref, "r:t10");
	cr_expect_str_eq(c.v[3].ref, "r:new");
	bisect_candidates_release(&c);
}

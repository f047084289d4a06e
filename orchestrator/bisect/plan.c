#include "orchestrator/bisect/plan.h"

/* The ends first; then lo is the last SAME at or after which no DIFFERS is
 * known, hi the first DIFFERS after lo. A known mark inside (lo, hi) that
 * would move them is used before any new probe, so results from the
 * history (an earlier, interrupted bisection) shorten the search. */
enum bisect_step bisect_plan_next(const enum bisect_mark *marks, size_t n,
				  struct bisect_state *st)
{
	size_t lo = 0, hi = n - 1;

	st->next = st->last_good = st->first_bad = 0;
	if (marks[0] == BISECT_UNKNOWN) {
		st->next = 0;
		return BISECT_PROBE;
	}
	if (marks[0] != BISECT_SAME) {
		st->next = 0;
		return BISECT_GOOD_DIFFERS;
	}
	if (marks[n - 1] == BISECT_UNKNOWN) {
		st->next = n - 1;
		return BISECT_PROBE;
	}
	if (marks[n - 1] == BISECT_FLAKY || marks[n - 1] == BISECT_ERROR) {
		st->next = n - 1;
		return marks[n - 1] == BISECT_FLAKY ? BISECT_STOPPED_FLAKY : BISECT_STOPPED_ERROR;
	}
	if (marks[n - 1] == BISECT_SAME)
		return BISECT_NO_CHANGE;
	/* Narrow with what is known already. */
	for (size_t i = lo + 1; i < hi; i++) {
		if (marks[i] == BISECT_SAME)
			lo = i;
		else if (marks[i] == BISECT_DIFFERS)
			hi = i;
	}
	st->last_good = lo;
	st->first_bad = hi;
	if (hi - lo <= 1)
		return BISECT_FOUND;
	for (size_t i = lo + 1; i < hi; i++)
		if (marks[i] == BISECT_FLAKY || marks[i] == BISECT_ERROR) {
			st->next = i;
			return marks[i] == BISECT_FLAKY ? BISECT_STOPPED_FLAKY : BISECT_STOPPED_ERROR;
		}
	st->next = lo + (hi - lo) / 2;
	return BISECT_PROBE;
}

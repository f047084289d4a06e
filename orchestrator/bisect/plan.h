/* The bisection's search, pure: candidates 0..n-1 in order (0 the good
 * end, n-1 the bad end), what is known of each, and which one to replay
 * next. Both ends first, then the midpoint of the last known-good and the
 * first known-different candidate, until they are neighbours: n candidates
 * take the two ends and about log2(n) midpoints. */
#ifndef HRR_BISECT_PLAN_H
#define HRR_BISECT_PLAN_H

#include <stddef.h>

enum bisect_mark {
	BISECT_UNKNOWN = 0,
	BISECT_SAME,     /* the status of the good end */
	BISECT_DIFFERS,  /* another status */
	BISECT_FLAKY,    /* changed between attempts: not guessed through */
	BISECT_ERROR,    /* no result (infrastructure) */
};

enum bisect_step {
	BISECT_PROBE,        /* replay *next */
	BISECT_FOUND,        /* *last_good, *first_bad are neighbours */
	BISECT_NO_CHANGE,    /* the bad end has the good end's status */
	BISECT_GOOD_DIFFERS, /* the good end is itself flaky or errored */
	BISECT_STOPPED_FLAKY,/* a midpoint is flaky: *next is it */
	BISECT_STOPPED_ERROR,/* a candidate could not be replayed: *next is it */
};

struct bisect_state {
	size_t next, last_good, first_bad;
};

/* What to do given marks[0..n-1] (n >= 2). */
enum bisect_step bisect_plan_next(const enum bisect_mark *marks, size_t n,
				  struct bisect_state *st);

#endif

/* `bisect --metric gpu-time`, pure: what a candidate's GPU-time samples
 * say against --good's (docs/bisect.md "GPU time"). Each case is compared
 * with the good end's samples of that case by the rule of
 * orchestrator/perf/perf_change.h; a candidate is bad when a case is
 * `slower`, good when every case is `unchanged` or `faster` (not slower
 * than --good), and unclear (BISECT_FLAKY: reported, never guessed
 * through) when a case is `noisy`, `insufficient`, `same-build` or has no
 * samples. */
#ifndef HRR_BISECT_PERF_MARK_H
#define HRR_BISECT_PERF_MARK_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"
#include "orchestrator/bisect/plan.h"
#include "orchestrator/perf/perf_change.h"
#include "orchestrator/perf/perf_samples.h"

/* One case of one candidate: its kernel times (ms), the GPU product they
 * ran on, and how they compare. */
struct bisect_perf {
	double ms[PERF_RUNS_MAX];
	size_t n;
	char gfx[32];        /* "" unknown */
	long device_id;      /* -1 unknown */
	bool other_gpu;      /* not compared: another GPU product than --good's */
	struct perf_comparison cmp;
};

/* The mark one comparison's status gives. */
enum bisect_mark bisect_perf_status_mark(enum perf_status s);
/* The candidate's mark from its cases' (n >= 1): an unclear case makes it
 * unclear; else a slower one makes it bad; else it is good. */
enum bisect_mark bisect_perf_mark(const struct bisect_perf *cases, size_t n);

/* Compare cand (each of n cases) with good's samples of the same cases;
 * same_build: the candidate's image ID is good's. The good end itself is
 * compared with itself: `unchanged` when its samples can be compared at
 * all, else noisy or insufficient. A case without samples on either side
 * stays PERF_NONE, and so does one whose samples ran on another GPU
 * product (gfx target or KFD device_id, both known and different) than
 * good's: a MI300X is never compared with a MI250 (other_gpu set). */
int bisect_perf_compare(const struct bisect_perf *good, struct bisect_perf *cand, size_t n,
			const struct perf_rule *rule, bool same_build, struct error *err)
	__attribute__((warn_unused_result));

/* The case whose comparison the answer shows: the first slower one, else
 * the first unclear one, else the first. */
size_t bisect_perf_telling_case(const struct bisect_perf *cases, size_t n);

#endif

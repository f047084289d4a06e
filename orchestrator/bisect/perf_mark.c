/* `bisect --metric gpu-time`'s decision (docs/bisect.md "GPU time"). */
#include "orchestrator/bisect/perf_mark.h"

#include <string.h>

enum bisect_mark bisect_perf_status_mark(enum perf_status s)
{
	switch (s) {
	case PERF_SLOWER: return BISECT_DIFFERS;
	/* Faster than --good is not the regression sought: a good side. */
	case PERF_UNCHANGED:
	case PERF_FASTER: return BISECT_SAME;
	/* Noisy, insufficient, same-build (a change where nothing that could
	 * change speed changed: noise) or no samples: not guessed through. */
	default: return BISECT_FLAKY;
	}
}

enum bisect_mark bisect_perf_mark(const struct bisect_perf *cases, size_t n)
{
	enum bisect_mark m = BISECT_SAME;

	for (size_t c = 0; c < n; c++) {
		enum bisect_mark k = bisect_perf_status_mark(cases[c].cmp.status);

		if (k == BISECT_FLAKY)
			return BISECT_FLAKY;
		if (k == BISECT_DIFFERS)
			m = BISECT_DIFFERS;
	}
	return m;
}

int bisect_perf_compare(const struct bisect_perf *good, struct bisect_perf *cand, size_t n,
			const struct perf_rule *rule, bool same_build, struct error *err)
{
	for (size_t c = 0; c < n; c++) {
		cand[c].cmp = (struct perf_comparison){ .status = PERF_NONE, .n_base = good[c].n,
							.n_new = cand[c].n };
		cand[c].other_gpu = false;
		if (!good[c].n || !cand[c].n)
			continue;
		if ((*good[c].gfx && *cand[c].gfx && strcmp(good[c].gfx, cand[c].gfx)) ||
		    (good[c].device_id >= 0 && cand[c].device_id >= 0 &&
		     good[c].device_id != cand[c].device_id)) {
			cand[c].other_gpu = true;
			continue;
		}
		if (perf_compare(good[c].ms, good[c].n, cand[c].ms, cand[c].n, rule, same_build,
				 &cand[c].cmp, err) < 0)
			return -1;
	}
	return 0;
}

size_t bisect_perf_telling_case(const struct bisect_perf *cases, size_t n)
{
	for (size_t c = 0; c < n; c++)
		if (cases[c].cmp.status == PERF_SLOWER)
			return c;
	for (size_t c = 0; c < n; c++)
		if (bisect_perf_status_mark(cases[c].cmp.status) == BISECT_FLAKY)
			return c;
	return 0;
}

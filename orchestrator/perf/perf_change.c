/* The status of one comparison of GPU-time samples (docs/perf.md "Statuses"). */
#include "orchestrator/perf/perf_change.h"

#include <math.h>
#include <string.h>

#include "orchestrator/perf/perf_stats.h"

static const char *const status_names[] = {
	[PERF_NONE] = "",
	[PERF_UNCHANGED] = "unchanged",
	[PERF_SLOWER] = "slower",
	[PERF_FASTER] = "faster",
	[PERF_SAME_BUILD] = "same-build",
	[PERF_NOISY] = "noisy",
	[PERF_INSUFFICIENT] = "insufficient",
};

const char *perf_status_name(enum perf_status s)
{
	return (size_t)s < sizeof(status_names) / sizeof(status_names[0]) ? status_names[s] : "";
}

enum perf_status perf_status_parse(const char *name)
{
	for (size_t i = 1; name && i < sizeof(status_names) / sizeof(status_names[0]); i++)
		if (!strcmp(name, status_names[i]))
			return (enum perf_status)i;
	return PERF_NONE;
}

int perf_compare(const double *base, size_t n_base, const double *cand, size_t n_new,
		 const struct perf_rule *rule, bool same_build,
		 struct perf_comparison *out, struct error *err)
{
	struct perf_mwu t;

	*out = (struct perf_comparison){ .n_base = n_base, .n_new = n_new, .p = 1,
					 .ratio = NAN, .ci_lo = NAN, .ci_hi = NAN };
	if (n_base < 2 || n_new < 2 || perf_min_p(n_base, n_new) >= rule->alpha) {
		out->status = PERF_INSUFFICIENT;
		if (n_base > 0 && n_new > 0) {
			out->median_base = perf_median(base, n_base);
			out->median_new = perf_median(cand, n_new);
		}
		return 0;
	}
	if (perf_mann_whitney(base, n_base, cand, n_new, &t, err) < 0)
		return -1;
	if (perf_ratio_interval(base, n_base, cand, n_new, PERF_BOOTSTRAP_SEED, &out->ratio,
				&out->ci_lo, &out->ci_hi, err) < 0)
		return -1;
	out->median_base = perf_median(base, n_base);
	out->median_new = perf_median(cand, n_new);
	out->p = t.p;
	out->u = t.u;
	out->exact = t.exact;
	out->cv_base = perf_cv(base, n_base);
	out->cv_new = perf_cv(cand, n_new);
	if (out->cv_base > rule->max_cv || out->cv_new > rule->max_cv) {
		out->status = PERF_NOISY;
		return 0;
	}
	bool changed = fabs(out->ratio - 1.0) > rule->threshold && t.p < rule->alpha;

	if (!changed)
		out->status = PERF_UNCHANGED;
	else if (same_build)
		out->status = PERF_SAME_BUILD;
	else
		out->status = out->ratio > 1.0 ? PERF_SLOWER : PERF_FASTER;
	return 0;
}

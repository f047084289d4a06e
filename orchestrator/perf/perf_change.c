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

/* full: the U test and the bootstrap interval always (the reports);
 * else the U test only where the status needs it and no interval. */
static int compare(const double *base, size_t n_base, const double *cand, size_t n_new,
		   const struct perf_rule *rule, bool same_build, bool full,
		   struct perf_comparison *out, struct error *err)
{
	struct perf_mwu t = { .p = NAN };

	*out = (struct perf_comparison){ .n_base = n_base, .n_new = n_new, .p = full ? 1 : NAN,
					 .ratio = NAN, .ci_lo = NAN, .ci_hi = NAN, .u = NAN };
	if (n_base < 2 || n_new < 2 || perf_min_p(n_base, n_new) >= rule->alpha) {
		out->status = PERF_INSUFFICIENT;
		if (n_base > 0 && n_new > 0) {
			out->median_base = perf_median(base, n_base);
			out->median_new = perf_median(cand, n_new);
		}
		return 0;
	}
	out->median_base = perf_median(base, n_base);
	out->median_new = perf_median(cand, n_new);
	if (!(out->median_base > 0) || !(out->median_new > 0))
		return error_set(err, ERR_DATA, 0, "a median GPU time is not positive");
	out->ratio = out->median_new / out->median_base;
	if (full && (perf_mann_whitney(base, n_base, cand, n_new, &t, err) < 0 ||
		     perf_ratio_interval(base, n_base, cand, n_new, PERF_BOOTSTRAP_SEED,
					 &out->ratio, &out->ci_lo, &out->ci_hi, err) < 0))
		return -1;
	out->cv_base = perf_cv(base, n_base);
	out->cv_new = perf_cv(cand, n_new);
	bool noisy = out->cv_base > rule->max_cv || out->cv_new > rule->max_cv;
	bool beyond = fabs(out->ratio - 1.0) > rule->threshold;

	if (!full && !noisy && beyond && perf_mann_whitney(base, n_base, cand, n_new, &t, err) < 0)
		return -1;
	out->p = full || (!noisy && beyond) ? t.p : NAN;
	out->u = t.u;
	out->exact = t.exact;
	if (noisy) {
		out->status = PERF_NOISY;
		return 0;
	}
	bool changed = beyond && t.p < rule->alpha;

	if (!changed)
		out->status = PERF_UNCHANGED;
	else if (same_build)
		out->status = PERF_SAME_BUILD;
	else
		out->status = out->ratio > 1.0 ? PERF_SLOWER : PERF_FASTER;
	return 0;
}

int perf_compare(const double *base, size_t n_base, const double *cand, size_t n_new,
		 const struct perf_rule *rule, bool same_build,
		 struct perf_comparison *out, struct error *err)
{
	return compare(base, n_base, cand, n_new, rule, same_build, true, out, err);
}

int perf_compare_status(const double *base, size_t n_base, const double *cand, size_t n_new,
			const struct perf_rule *rule, bool same_build,
			struct perf_comparison *out, struct error *err)
{
	return compare(base, n_base, cand, n_new, rule, same_build, false, out, err);
}

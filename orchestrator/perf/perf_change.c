/* The status of one comparison of GPU-time samples (docs/perf.md "Statuses"). */
#include "orchestrator/perf/perf_change.h"

#include <math.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "orchestrator/perf/perf_fdr.h"
#include "orchestrator/perf/perf_stats.h"

static const char *const status_names[] = {
	[PERF_NONE] = "",
	[PERF_UNCHANGED] = "unchanged",
	[PERF_SLOWER] = "slower",
	[PERF_FASTER] = "faster",
	[PERF_SAME_BUILD] = "same-build",
	[PERF_NOISY] = "noisy",
	[PERF_INSUFFICIENT] = "insufficient",
	[PERF_UNMEASURABLE] = "unmeasurable",
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

size_t perf_measured(const double *x, size_t n, double *buf)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (x[i] > 0)
			buf[k++] = x[i];
	return k;
}

/* The measured samples of both sides, for the U test and the bootstrap
 * (NULL: not at hand, perf_compare_summary). */
struct measured {
	const double *base, *cand;
};

/* The status from the sides' summaries. full: the U test and the
 * bootstrap interval always (the reports); else the U test only where the
 * status needs it and no interval. 1 when the U test is needed and the
 * samples are not at hand. */
static int decide(const struct perf_summary *sb, const struct perf_summary *sn,
		  const struct measured *m, const struct perf_rule *rule, bool same_build,
		  bool full, struct perf_comparison *out, struct error *err)
{
	size_t mb = sb->n - sb->zeros, mn = sn->n - sn->zeros;
	struct perf_mwu t = { .p = NAN };

	*out = (struct perf_comparison){ .n_base = sb->n, .n_new = sn->n, .p = full ? 1 : NAN,
					 .ratio = NAN, .ci_lo = NAN, .ci_hi = NAN, .u = NAN,
					 .p_adj = NAN, .spread = NAN, .zeros_base = sb->zeros,
					 .zeros_new = sn->zeros };
	if ((sb->n && 2 * sb->zeros >= sb->n) || (sn->n && 2 * sn->zeros >= sn->n)) {
		out->status = PERF_UNMEASURABLE;
		out->median_base = sb->n ? sb->median : 0;
		out->median_new = sn->n ? sn->median : 0;
		return 0;
	}
	if (mb < 2 || mn < 2 || perf_min_p(mb, mn) >= rule->alpha) {
		out->status = PERF_INSUFFICIENT;
		if (mb > 0 && mn > 0) {
			out->median_base = sb->measured_median;
			out->median_new = sn->measured_median;
		}
		return 0;
	}
	out->median_base = sb->measured_median;
	out->median_new = sn->measured_median;
	out->ratio = out->median_new / out->median_base;
	if (full && (perf_mann_whitney(m->base, mb, m->cand, mn, &t, err) < 0 ||
		     perf_ratio_interval(m->base, mb, m->cand, mn, PERF_BOOTSTRAP_SEED,
					 &out->ratio, &out->ci_lo, &out->ci_hi, err) < 0))
		return -1;
	out->cv_base = sb->measured_cv;
	out->cv_new = sn->measured_cv;
	bool noisy = out->cv_base > rule->max_cv || out->cv_new > rule->max_cv;
	bool beyond = fabs(out->ratio - 1.0) > rule->threshold;

	if (!full && !noisy && beyond) {
		if (!m)
			return 1;
		if (perf_mann_whitney(m->base, mb, m->cand, mn, &t, err) < 0)
			return -1;
	}
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

/* One rule for a time of 0 ms everywhere (docs/perf.md "Statuses"): it is
 * below the printed resolution, so no measurement; it is left out and
 * counted, and a side with half or more of them is unmeasurable. Samples
 * that are not times at all (NaN, infinite, negative) are refused. */
static int compare(const double *base, size_t n_base, const double *cand, size_t n_new,
		   const struct perf_rule *rule, bool same_build, bool full,
		   struct perf_comparison *out, struct error *err)
{
	struct perf_summary sb, sn;

	*out = (struct perf_comparison){ .status = PERF_NONE };
	if (perf_check_samples(base, n_base, "baseline", err) < 0 ||
	    perf_check_samples(cand, n_new, "new", err) < 0)
		return -1;
	cleanup_free double *b = xmalloc((n_base + 1) * sizeof(*b));
	cleanup_free double *c = xmalloc((n_new + 1) * sizeof(*c));

	perf_measured(base, n_base, b);
	perf_measured(cand, n_new, c);
	perf_summarize(base, n_base, &sb);
	perf_summarize(cand, n_new, &sn);
	return decide(&sb, &sn, &(struct measured){ b, c }, rule, same_build, full, out, err);
}

int perf_compare_summary(const struct perf_summary *base, const struct perf_summary *cand,
			 const struct perf_rule *rule, bool same_build,
			 struct perf_comparison *out)
{
	return decide(base, cand, NULL, rule, same_build, false, out, NULL);
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

static bool is_change(enum perf_status s)
{
	return s == PERF_SLOWER || s == PERF_FASTER || s == PERF_SAME_BUILD;
}

void perf_change_fdr(struct perf_comparison *const *v, size_t n, double q)
{
	cleanup_free double *p = xcalloc(n + 1, sizeof(*p));

	/* Insufficient and unmeasurable comparisons made no test. */
	for (size_t i = 0; i < n; i++)
		p[i] = v[i]->status == PERF_INSUFFICIENT || v[i]->status == PERF_UNMEASURABLE
			       ? NAN : v[i]->p;
	perf_fdr_adjust(p, n, p);
	for (size_t i = 0; i < n; i++) {
		struct perf_comparison *c = v[i];

		c->p_adj = p[i];
		if (!is_change(c->status) || c->p_adj <= q)
			continue;
		c->status = c->nights ? PERF_NOISY : PERF_UNCHANGED;
	}
}

/* A tenth of a family changing at once is already a broken build: more
 * discoveries than that are not planned for. */
#define PLAUSIBLE_SHARE 10
#define REACH_N_MAX 100

bool perf_change_fdr_unreachable(struct perf_comparison *const *v, size_t n, double q,
				 double alpha, struct perf_fdr_reach *out)
{
	*out = (struct perf_fdr_reach){ .q = q, .min_p = INFINITY };
	for (size_t i = 0; i < n; i++) {
		const struct perf_comparison *c = v[i];
		double reach;

		if (c->status == PERF_INSUFFICIENT || c->status == PERF_UNMEASURABLE)
			continue;
		out->m++;
		reach = perf_min_p(c->n_base - c->zeros_base, c->n_new - c->zeros_new);
		if (reach < out->min_p)
			out->min_p = reach;
	}
	if (!out->m || !(q > 0))
		return false;
	out->k = out->m / PLAUSIBLE_SHARE ? out->m / PLAUSIBLE_SHARE : 1;
	out->bar = q * (double)out->k / (double)out->m;
	for (size_t N = 2; N <= REACH_N_MAX && !out->n_needed; N++) {
		double reach = perf_min_p(N, N);

		if (reach <= out->bar && reach < alpha)
			out->n_needed = N;
	}
	return out->min_p > out->bar;
}

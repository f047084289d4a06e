/* Whether a case got slower: the status of one comparison of GPU-time
 * samples with a baseline's, pure (docs/perf.md "Statuses"). */
#ifndef HRR_PERF_CHANGE_H
#define HRR_PERF_CHANGE_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"
#include "orchestrator/perf/perf_stats.h"

enum perf_status {
	PERF_NONE = 0,      /* not compared (no baseline, no samples) */
	PERF_UNCHANGED,
	PERF_SLOWER,
	PERF_FASTER,
	PERF_SAME_BUILD,    /* a change, but nothing that could change speed changed */
	PERF_NOISY,         /* a side's coefficient of variation is above --perf-max-cv */
	PERF_INSUFFICIENT,  /* the sample sizes cannot reach a p-value below alpha */
	PERF_UNMEASURABLE,  /* half or more of a side's times are 0: below the printed resolution */
	PERF_STATUS_COUNT
};

/* "slower", "faster", ...; "" for PERF_NONE. */
const char *perf_status_name(enum perf_status s);
/* The status of a name; PERF_NONE for an unknown one. */
enum perf_status perf_status_parse(const char *name);

/* The defaults of --perf-threshold, --perf-alpha and --perf-max-cv. */
#define PERF_THRESHOLD_DEFAULT 0.03
#define PERF_ALPHA_DEFAULT 0.01
#define PERF_MAX_CV_DEFAULT 0.05

struct perf_rule {
	double threshold; /* relative change of the median ratio, e.g. 0.03 */
	double alpha;     /* the U test's significance level */
	double max_cv;    /* above it on either side: noisy */
};

/* What a sweep's comparisons share beyond the rule (docs/perf.md "A
 * thousand cases a night", "Nights as units"): --perf-fdr, the false
 * discovery rate over the family (0: not adjusted), and
 * --perf-noise-nights, the nightly medians a case's spread is learned
 * from. */
struct perf_family {
	double fdr;
	long noise_nights;
};

struct perf_comparison {
	enum perf_status status;
	size_t n_base, n_new;
	double median_base, median_new; /* ms */
	double ratio, ci_lo, ci_hi;     /* median_new / median_base, 95% bootstrap interval */
	double p, u;                    /* the U test (u of the new samples) */
	double cv_base, cv_new;
	bool exact;                     /* the exact U distribution was used */
	size_t zeros_base, zeros_new;   /* times of 0 ms left out (n_base, n_new count them) */
	/* p adjusted over the sweep's family of comparisons (Benjamini-Hochberg,
	 * perf_change_fdr); NaN until then, or when no test was made. */
	double p_adj;
	/* Across nights with a learned spread (perf_nights.h): how much the
	 * case's nightly median moves (0.02: 2%) and the nights it was
	 * learned from; NaN and 0 otherwise. */
	double spread;
	size_t nights;
	double df;        /* the spread's degrees of freedom (infinite: known) */
	bool same_build;  /* as given: the status of a change is same-build */
};

/* The measured samples of x (its times above 0 ms: a 0 is below the
 * printed resolution), in buf (room for n); how many there are. */
size_t perf_measured(const double *x, size_t n, double *buf);

/* Compare new samples with the baseline's (times in ms, >= 0; anything
 * else is ERR_DATA). same_build: the image ID, archive digest and driver
 * version are all the baseline's. The order of the rules: unmeasurable
 * (half or more of a side's times are 0 ms, below the printed
 * resolution; fewer are left out of the statistics), insufficient, noisy,
 * then a change (ratio beyond the threshold and p below alpha) is
 * slower/faster, or same-build when same_build; no change is unchanged. */
int perf_compare(const double *base, size_t n_base, const double *cand, size_t n_new,
		 const struct perf_rule *rule, bool same_build,
		 struct perf_comparison *out, struct error *err);
/* The same status without the bootstrap interval (ci_lo, ci_hi NaN) and
 * with the U test only where the status needs it (neither side noisy, the
 * ratio beyond the threshold; else p and u are NaN): for many comparisons
 * at once, as the history site's GPU-time charts make. */
int perf_compare_status(const double *base, size_t n_base, const double *cand, size_t n_new,
			const struct perf_rule *rule, bool same_build,
			struct perf_comparison *out, struct error *err);

/* perf_compare_status's answer from the sides' summaries alone: 0 and out
 * as perf_compare_status fills it from their samples; 1 when the status
 * needs the U test (neither side noisy, the ratio beyond the threshold),
 * which needs the samples: then call perf_compare_status with them. */
int perf_compare_summary(const struct perf_summary *base, const struct perf_summary *cand,
			 const struct perf_rule *rule, bool same_build,
			 struct perf_comparison *out) __attribute__((warn_unused_result));

/* The sweep's family of comparisons (docs/perf.md "A thousand cases a
 * night"): each one's p adjusted by Benjamini-Hochberg over every
 * comparison that made a test, and a change whose adjusted p is above q
 * is no finding: unchanged, or noisy across nights with a learned
 * spread (its change does not stand out against the case's own). */
void perf_change_fdr(struct perf_comparison *const *v, size_t n, double q);

/* Whether a family of U tests (comparisons within one sweep) can find
 * anything under the false discovery rate (docs/perf.md "When a sweep
 * can find nothing"): with m tests, k plausible discoveries (a tenth of
 * the family, at least 1) need the k-th smallest p at most q k / m (the
 * bar); the smallest p the family's sample sizes can reach is min_p.
 * n_needed is the smallest --perf N whose N against N reaches both the
 * bar and alpha (0: none up to 100). */
struct perf_fdr_reach {
	size_t m, k, n_needed;
	double q, min_p, bar;
};

/* True, with *out, when min_p is above the bar: nothing the family's
 * sample sizes can show survives q. False for an empty family or q <= 0. */
bool perf_change_fdr_unreachable(struct perf_comparison *const *v, size_t n, double q,
				 double alpha, struct perf_fdr_reach *out);

#endif

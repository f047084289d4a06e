/* `--perf-adaptive MAX` (docs/perf.md "More samples when unclear"): after
 * a case's first N timing replays, whether its comparison across nights
 * is clear, or more samples are taken, up to MAX. Pure: given the samples
 * so far, the case's nights and the plan, "decide" or "take k more".
 *
 * The looks ask the question the final decision asks (perf_nights.h):
 * tonight's median against the level and the spread of the case's own
 * nightly medians. More samples shrink only the within-night part of
 * tonight's median's noise, never the night-to-night part, so a case
 * whose nights move more than its samples do stops at the first look
 * (with fewer than PERF_NOISE_NIGHTS_MIN nights the yardstick is the
 * samples' own CV, which more samples do sharpen).
 *
 * The false-alarm rate is held across the looks by deciding a change only
 * at MAX: the looks before it stop a case only when no change can come of
 * it (the ratio is within the threshold, the comparison is unmeasurable or
 * can never be significant, or more samples cannot move its answer: a
 * choice made from the noise alone, not from tonight's p), never on a
 * significant-looking change. So the earlier looks can only take cases
 * away from a change at MAX, or leave them to the fixed design at N. */
#ifndef HRR_PERF_PERF_ADAPTIVE_H
#define HRR_PERF_PERF_ADAPTIVE_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"
#include "orchestrator/perf/perf_change.h"

/* The looks: at first (--perf N), 2 first, 3 first, ... and at max
 * (--perf-adaptive MAX), the last. max <= first: no look adds samples. */
struct perf_adaptive_plan {
	size_t first, max;
};

/* A case's baseline for the looks: its series of nightly medians (ms,
 * newest first, from its restart on: "Change points"), the level's and
 * the spread's nights (--perf-window, --perf-noise-nights), the
 * within-night CV of the newest night's within_n samples (as the report
 * reads it) and the GPU product they ran on (gfx NULL: none known). */
struct perf_adaptive_base {
	double *medians;
	size_t n, window, noise;
	double within_cv;
	size_t within_n;
	char *gfx;
	long device_id;
};

enum perf_adaptive_step {
	PERF_ADAPTIVE_DECIDE = 0, /* the samples taken are compared as they are */
	PERF_ADAPTIVE_MORE,       /* take `more` samples, then look again */
};

enum perf_adaptive_why {
	PERF_ADAPTIVE_AT_MAX = 0,  /* MAX samples taken: the comparison decides */
	PERF_ADAPTIVE_WITHIN,      /* the ratio is within the threshold: no change can come */
	PERF_ADAPTIVE_SETTLED,     /* noisy or unmeasurable: more samples do not answer it */
	PERF_ADAPTIVE_UNREACHABLE, /* insufficient even at MAX (the baseline is too small) */
	PERF_ADAPTIVE_INSUFFICIENT,/* more: the sizes cannot reach alpha yet */
	PERF_ADAPTIVE_CANDIDATE,   /* more: a change, decided only at MAX */
	PERF_ADAPTIVE_NIGHTS,      /* night-to-night noise dominates: samples cannot help */
};

struct perf_adaptive_look {
	enum perf_adaptive_step step;
	enum perf_adaptive_why why;
	size_t more;                /* PERF_ADAPTIVE_MORE: the samples to take */
	struct perf_comparison cmp; /* the look's comparison (no interval) */
};

/* What the look said, in words: "insufficient", "a change to confirm",
 * ... (for the samples' note). */
const char *perf_adaptive_why_text(enum perf_adaptive_why why);

/* The look after n samples: the next multiple of first above n, at most
 * max; max when n >= max. */
size_t perf_adaptive_next(const struct perf_adaptive_plan *p, size_t n);

/* Whether more samples tonight can move the comparison: the within-night
 * part of tonight's median's variance with n_new samples,
 * (pi/2) within_cv^2 / n_new, is at least the night-to-night part, the
 * spread's square less the within-night part of the nights' medians
 * (within_n samples each). */
bool perf_adaptive_samples_help(double spread, double within_cv, size_t within_n,
				size_t n_new);

/* The look at the n_new samples taken (cand) against the case's nights
 * (base), as perf_compare_nights compares them, by the rule's threshold
 * and alpha. Samples as perf_compare takes them (ERR_DATA for a
 * non-time). */
int perf_adaptive_look(const struct perf_adaptive_plan *p, const struct perf_adaptive_base *base,
		       const double *cand, size_t n_new, const struct perf_rule *rule,
		       struct perf_adaptive_look *out, struct error *err)
	__attribute__((warn_unused_result));

#endif

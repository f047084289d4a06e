/* `--perf-adaptive MAX` (docs/perf.md "More samples when unclear"): after
 * a case's first N timing replays, whether its comparison with the
 * baseline is clear, or more samples are taken, up to MAX. Pure: given the
 * samples so far and the plan, "decide" or "take k more".
 *
 * The false-alarm rate is held across the looks by deciding a change only
 * at MAX: the looks before it stop a case only when no change can come of
 * it (the ratio is within the threshold, or the comparison is noisy,
 * unmeasurable or can never be significant), never on a significant-looking
 * change. So a change is only ever reported on MAX samples, at the rule's
 * alpha, and the earlier looks can only take cases away from it. */
#ifndef HRR_PERF_PERF_ADAPTIVE_H
#define HRR_PERF_PERF_ADAPTIVE_H

#include <stddef.h>

#include "common/error.h"
#include "orchestrator/perf/perf_change.h"

/* The looks: at first (--perf N), 2 first, 3 first, ... and at max
 * (--perf-adaptive MAX), the last. max <= first: no look adds samples. */
struct perf_adaptive_plan {
	size_t first, max;
};

/* A case's baseline for the looks: its GPU kernel times in the nights
 * before (ms) and the GPU product they ran on (gfx NULL: none known). */
struct perf_adaptive_base {
	double *ms;
	size_t n;
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

/* The look at the n_new samples taken (cand) against the baseline's (base),
 * by the rule's threshold, alpha and maximum CV. Samples as perf_compare
 * takes them (ERR_DATA for a non-time). */
int perf_adaptive_look(const struct perf_adaptive_plan *p, const double *base, size_t n_base,
		       const double *cand, size_t n_new, const struct perf_rule *rule,
		       struct perf_adaptive_look *out, struct error *err)
	__attribute__((warn_unused_result));

#endif

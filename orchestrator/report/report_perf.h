/* GPU-time change detection (docs/perf.md "Comparisons"): within one
 * sweep, with --perf-baseline IMAGE, each other image's samples of a case
 * against that image's samples of the same case; across nights, a case
 * and image's samples against its samples in the label's last sweeps.
 * Always on the same GPU product (gfx target and KFD device_id). Pure
 * over the results read back and the history's rows. */
#ifndef HRR_REPORT_REPORT_PERF_H
#define HRR_REPORT_REPORT_PERF_H

#include <stdbool.h>
#include <stddef.h>

#include "common/strbuf.h"
#include "common/strvec.h"
#include "orchestrator/history/history_perf.h"
#include "orchestrator/perf/perf_change.h"
#include "common/intern.h"
#include "orchestrator/sweep/case_result.h"

/* One case and image's samples: its last attempt that has them; or, in
 * a set of nights, the samples of the same case and image in the
 * label's last sweeps (newest first, at most PERF_SAMPLES_MAX). */
struct report_perf_side {
	/* In the set's strings: a sweep's sides share their image's ID,
	 * archive digest, gfx target and driver. */
	const char *case_name, *image, *image_id, *digest, *gfx, *driver, *note;
	long device_id;
	int attempt;
	double *ms; /* GPU kernel times */
	size_t n, alloc;
	struct strvec sweeps; /* nights: the level's sweeps (the window), newest first */
	bool mixed;           /* nights: the sweeps differ in image ID, archive or driver */
	/* Nights (docs/perf.md "Nights as units"): ms holds the night being
	 * read (night: its sweep); each night read is one median, newest
	 * first; within_cv and within_n are the newest night's. */
	const char *night;
	double *medians;
	size_t n_medians, alloc_medians, within_n;
	double within_cv;
	/* Nights: the series restarts at the night that started then (its
	 * last change point or accepted change, history_changes.h); older
	 * nights are not read. 0: no restart. */
	long long restart_us;
};

/* Sorted by case and image once collected: found by binary search. */
struct report_perf_set {
	struct report_perf_side *v;
	size_t n, alloc;
	struct intern strings; /* every string the sides point at, once */
	struct intern *shared; /* NULL, or the table strings are kept in instead */
	size_t window;         /* nights: the level's nights */
};

/* The sides of the results of rs (every result with samples), in file
 * order: report_perf_add_results a chunk of results at a time (a large
 * sweep's results are never all in memory), then report_perf_finish,
 * which sorts them and keeps each case and image's last attempt. */
void report_perf_collect(struct report_perf_set *s, const struct sweep_results *rs);
void report_perf_add_results(struct report_perf_set *s, const struct sweep_results *rs);
/* Room for n sides (the results with samples, counted on an earlier
 * reading), allocated once. */
void report_perf_reserve(struct report_perf_set *s, size_t n);
/* Whether report_perf_add_results makes a side of r. */
bool report_perf_has_side(const struct case_result *r);
void report_perf_finish(struct report_perf_set *s);
/* The sweep's sides from the history instead (history_perf_sides' rows,
 * by case and image), then report_perf_finish. */
int report_perf_add_row(struct report_perf_set *s, const struct history_perf_row *row);
void report_perf_release(struct report_perf_set *s);
/* Once every comparison is made: the samples dropped, and with sides the
 * sides too; the strings (and a night side's sweeps, without sides) the
 * comparisons point at stay until report_perf_release. */
void report_perf_drop(struct report_perf_set *s, bool sides);

/* A set of nights beside now (one side per side of now, empty), filled
 * from the history's samples (orchestrator/history/history_perf.h, the
 * newest sweep first) with report_perf_add_night, then
 * report_perf_nights_finish: a row of a case and image now has no samples
 * for, or from another GPU product, is left out. The first `window`
 * nights of a side are its level (its sweeps), every night one median. */
void report_perf_nights_init(struct report_perf_set *nights, const struct report_perf_set *now,
			     size_t window);
int report_perf_add_night(struct report_perf_set *nights, const struct report_perf_set *now,
			  const struct history_perf_row *row);
void report_perf_nights_finish(struct report_perf_set *nights);

/* A case's comparison, as the reports show it. */
struct report_perf {
	enum perf_status status;
	const char *baseline_image;  /* owned by the set */
	/* Across nights: the baseline sweeps (owned by the set); NULL within
	 * one sweep (against baseline_image). */
	const struct strvec *baseline_sweeps;
	const char *gfx, *note;      /* owned by the set */
	long device_id;
	struct perf_comparison cmp;
};

/* case_name at image against baseline_image's samples of it. false: no
 * comparison (this is the baseline, or either side has no samples, or
 * they ran on different GPU products). */
bool report_perf_compare(const struct report_perf_set *s, const char *case_name,
			 const char *image, const char *baseline_image,
			 const struct perf_rule *rule, struct report_perf *out);
/* case_name at image against its samples in the nights before (docs/perf.md
 * "Across nights"). false: no samples on either side. */
bool report_perf_compare_nights(const struct report_perf_set *now,
				const struct report_perf_set *nights, const char *case_name,
				const char *image, const struct perf_rule *rule,
				const struct perf_family *family, struct report_perf *out);

/* What a comparison was against, in words: the image, "sweep ID" or
 * "N sweeps: ID, ID". */
void report_perf_baseline_text(const struct report_perf *p, struct strbuf *out);

/* The order the reports list statuses in: the changes first (slower,
 * then faster), what a reader acts on at the top. */
#define REPORT_PERF_ORDER_N 7
extern const enum perf_status report_perf_order[REPORT_PERF_ORDER_N];

/* One comparison in words: "slower +10.3%: median 44.1 ms against 40.0 ms
 * (n 5/5, ratio 1.103 [1.090, 1.110], p 0.0079) against rocm:7.1"
 * (orchestrator/report/report_perf_text.c). */
void report_perf_line(const struct report_perf *p, struct strbuf *out);
/* Across nights, what the case's spread is: "; this case moves 6.0%
 * night to night; a 10.3% change is within it" (noisy); nothing when no
 * spread was learned. */
void report_perf_spread_text(const struct perf_comparison *c, struct strbuf *out);

#endif

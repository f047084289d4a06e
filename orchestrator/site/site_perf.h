/* The history site's GPU time (docs/sweep.md "The history site",
 * docs/perf.md "On the history site"): per case, a chart of each night's
 * median GPU kernel time with its interval, the baseline sweep and the
 * changes; and the index of the changes of each label's last sweep.
 * The history stores samples, not comparisons: each night is compared
 * here with the sweep before it in the label's window (the sweep's own
 * baseline with --perf-window 1), by docs/perf.md's rule with the default
 * threshold, alpha and CV. Pure: rows in, a model out (site_perf_series.c);
 * the model in, HTML out (site_perf_html.c). */
#ifndef HRR_REPORT_SITE_PERF_H
#define HRR_REPORT_SITE_PERF_H

#include <stdbool.h>
#include <stddef.h>
#include <libxml/tree.h>

#include "common/error.h"
#include "common/strbuf.h"
#include "common/strvec.h"
#include "orchestrator/perf/perf_change.h"

#define SITE_PERF_PAGE "perf-changes.html"
/* Charts drawn per case (one per image and GPU product); the others are
 * named under the last one. */
#define SITE_PERF_CHARTS_MAX 4

/* One night of a case as the history gives it (perf_sample_stats): the
 * sweep's column in the label's window (oldest first), the result's
 * identity and its kernel times summarized. */
struct site_perf_row {
	const char *image, *gfx, *sweep_id, *image_id, *digest, *driver;
	long device_id;          /* -1 unknown */
	size_t col;
	long long started;
	int attempt;
	struct perf_summary sum;
};

/* A change point of a series as the history found it at import
 * (docs/perf.md "Change points"): the night that starts the new level.
 * label and case_page are set in the index's list of new ones only. */
struct site_perf_cp {
	const char *label, *case_name, *case_page, *image, *gfx, *sweep, *found;
	const char *image_id_before, *image_id_after;
	long device_id;          /* -1 unknown */
	double ratio, p, median_before, median_after;
	bool accepted;
};

/* One night of a series: its samples' summary (their median and its
 * interval), and its comparison with the night before when that night is
 * the window's previous sweep (cmp.status PERF_NONE: not compared). ms:
 * its kernel times sorted, once a comparison needed them (read). */
struct site_perf_night {
	char *sweep_id, *image_id, *digest, *driver;
	long long started;
	size_t col;
	int attempt;
	struct perf_summary sum;
	double *ms;
	size_t n_ms;
	bool read;
	struct perf_comparison cmp;
	const struct site_perf_cp *cp; /* the change point this night starts (NULL: none) */
};

/* One image reference on one GPU product, its nights oldest first. */
struct site_perf_series {
	char *image, *gfx;
	long device_id;
	struct site_perf_night *v;
	size_t n, alloc;
};

/* One case's GPU time: a value the case page takes (NULL or n == 0:
 * no chart). Reused from case to case (site_perf_case_reset). */
struct site_perf_case {
	struct site_perf_series *v;
	size_t n, alloc;
	size_t last_col;         /* the window's last sweep: its comparisons are the changes */
};

void site_perf_case_reset(struct site_perf_case *c);
void site_perf_case_release(struct site_perf_case *c);
/* Add a night; within a series, columns come in ascending order. A later
 * attempt of the same night replaces the earlier one (each night is its
 * last attempt with kernel times). */
void site_perf_case_add(struct site_perf_case *c, const struct site_perf_row *r);

/* A night's kernel times (those its summary counted), in n->ms and
 * n->n_ms, any order: what a comparison needs beyond the
 * summaries, the U test and the bootstrap. */
typedef int (*site_perf_load_fn)(void *ctx, const struct site_perf_series *s,
				 struct site_perf_night *n, struct error *err);

/* Each night's comparison with the night before, from the summaries, and
 * from the samples (load) where the status needs the U test; the last
 * sweep's changes get the full comparison (with the ratio's bootstrap
 * interval and the p-value). */
int site_perf_case_finish(struct site_perf_case *c, const struct perf_rule *rule,
			  site_perf_load_fn load, void *ctx, struct error *err)
	__attribute__((warn_unused_result));

/* One change of a label's last sweep, for the index of changes. */
struct site_perf_change {
	const char *label, *case_name, *case_page, *image, *gfx;
	const char *sweep_id, *baseline_sweep, *image_id, *baseline_image_id;
	long device_id;
	struct perf_comparison cmp;
};

struct site_perf_changes {
	struct site_perf_change *v;
	size_t n, alloc;
	struct strvec keep;      /* the changes' strings */
	size_t n_slower, n_faster;
	bool any;                /* some case of some label has samples: the page exists */
	/* The change points each label's last sweep found, not accepted (the
	 * index lists them), in case order; strings in keep. */
	struct site_perf_cp *cps;
	size_t n_cps, alloc_cps;
};

/* A label's change points, in case order (BINARY), and the next one a
 * case may take (the cases come in the same order). */
struct site_perf_cps {
	struct site_perf_cp *v;
	size_t n, alloc, next;
	struct strvec keep;
};

/* Add a change point; its strings are copied. */
void site_perf_cps_add(struct site_perf_cps *x, const struct site_perf_cp *cp);
void site_perf_cps_release(struct site_perf_cps *x);
/* Mark each night of case_name's series that starts one of x's change
 * points (night.cp); those found by sweep `tonight` and not accepted go
 * into changes' list of new ones, with label and case_page. */
void site_perf_case_mark(struct site_perf_case *c, struct site_perf_cps *x,
			 const char *case_name, const char *tonight, const char *label,
			 const char *case_page, struct site_perf_changes *changes);

/* The case's changes in its last sweep (slower, faster) go into x. */
void site_perf_changes_add(struct site_perf_changes *x, const char *label,
			   const char *case_name, const char *case_page,
			   const struct site_perf_case *c);
/* By size: |ratio - 1| descending, slower before faster on ties, then by
 * label, case and image. */
void site_perf_changes_sort(struct site_perf_changes *x);
void site_perf_changes_release(struct site_perf_changes *x);

/* The case page's "GPU time" section under parent; nothing without
 * samples. */
void site_perf_chart(xmlNodePtr parent, const struct site_perf_case *c);
/* The index of changes page. */
int site_perf_changes_html(const struct site_perf_changes *x, size_t n_labels,
			   struct strbuf *out, struct error *err)
	__attribute__((warn_unused_result));
/* The index page's line: how many changes, a link to their page;
 * nothing when no case has samples. */
void site_perf_index_line(xmlNodePtr parent, const struct site_perf_changes *x);

#endif

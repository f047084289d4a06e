/* GPU-time change detection within one sweep (docs/perf.md "Comparisons"):
 * with --perf-baseline IMAGE, each other image's samples of a case against
 * that image's samples of the same case on the same GPU product (gfx
 * target and KFD device_id). Pure over the results read back. */
#ifndef HRR_REPORT_REPORT_PERF_H
#define HRR_REPORT_REPORT_PERF_H

#include <stdbool.h>
#include <stddef.h>

#include "common/strbuf.h"
#include "orchestrator/perf/perf_change.h"
#include "orchestrator/sweep/sweep_result.h"

/* One case and image's samples: its last attempt that has them. */
struct report_perf_side {
	char *case_name, *image, *image_id, *digest, *gfx, *note;
	long device_id;
	int attempt;
	double ms[PERF_RUNS_MAX]; /* GPU kernel times */
	size_t n;
};

struct report_perf_set {
	struct report_perf_side *v;
	size_t n, alloc;
};

void report_perf_collect(struct report_perf_set *s, const struct sweep_results *rs);
void report_perf_release(struct report_perf_set *s);

/* A case's comparison, as the reports show it. */
struct report_perf {
	enum perf_status status;
	const char *baseline_image;  /* owned by the set */
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

/* The order the reports list statuses in: the changes first (slower,
 * then faster), what a reader acts on at the top. */
#define REPORT_PERF_ORDER_N 6
extern const enum perf_status report_perf_order[REPORT_PERF_ORDER_N];

/* One comparison in words: "slower +10.3%: median 44.1 ms against 40.0 ms
 * (n 5/5, ratio 1.103 [1.090, 1.110], p 0.0079) against rocm:7.1"
 * (orchestrator/report/report_perf_text.c). */
void report_perf_line(const struct report_perf *p, struct strbuf *out);

#endif

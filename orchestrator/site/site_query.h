/* What the history site asks the history database: the labels, a label's
 * window of sweeps, and its results streamed in grid order (case, image,
 * sweep, attempt) so the site is written a page at a time. */
#ifndef HRR_REPORT_SITE_QUERY_H
#define HRR_REPORT_SITE_QUERY_H

#include <stddef.h>

#include "common/error.h"
#include "common/strvec.h"
#include "orchestrator/history/history_db.h"

struct history_stmt;

/* The GPUs a result ran on, as the database records them: a comma list
 * of KFD unique_ids where the result recorded them, else the ordinals on
 * the sweep's host (older results). */
#define SITE_GPU_IDENTITY_SQL "COALESCE(NULLIF(r.gpu_uids, ''), r.gpus)"

struct site_window_sweep {
	char *id, *folder, *host;
	long long started;
};

/* The labels (only that one when only is set) with a sweep of host (NULL:
 * any host). The queries below keep to host's sweeps the same way. */
int site_query_labels(struct history_db *db, const char *only, const char *host,
		      struct strvec *labels, struct error *err) __attribute__((warn_unused_result));
/* The last `last` sweeps of label, oldest first. */
int site_query_window(struct history_db *db, const char *label, int last, const char *host,
		      struct site_window_sweep **v, size_t *n, struct error *err)
	__attribute__((warn_unused_result));
void site_window_release(struct site_window_sweep *v, size_t n);
/* How many cases the window has. */
int site_query_case_count(struct history_db *db, const char *label, int last,
			  const char *host, size_t *n, struct error *err) __attribute__((warn_unused_result));

struct site_result_row {
	const char *case_name, *image, *sweep_id, *state, *outcome, *fault_class, *kernel;
	const char *run_dir, *image_id, *gpus;
	int attempt;
	double duration_s;
	/* What a GPU-time comparison needs of it (site_perf_gen.h): the
	 * archive digest, the GPU product (device_id -1: unknown), the driver. */
	const char *digest, *gfx, *driver;
	long device_id;
};
typedef int (*site_result_fn)(void *ctx, const struct site_result_row *r);

/* Every attempt of every result in the window, by case, image, sweep
 * (oldest first), attempt. */
int site_query_results(struct history_db *db, const char *label, int last, const char *host,
		       site_result_fn fn, void *ctx, struct error *err) __attribute__((warn_unused_result));

/* What the newest bisection that found a first bad image for each case
 * says, as one line for its timeline: read once per site (a statement per
 * case was a round trip per case to a server), sorted by case. */
struct site_bisect {
	char *case_name, *line;
};
struct site_bisects {
	struct site_bisect *v;
	size_t n;
};
int site_query_bisects(struct history_db *db, struct site_bisects *out,
		       struct error *err) __attribute__((warn_unused_result));
/* The case's line, NULL when no bisection found its first bad image. */
const char *site_bisects_find(const struct site_bisects *b, const char *case_name);
void site_bisects_release(struct site_bisects *b);

#endif

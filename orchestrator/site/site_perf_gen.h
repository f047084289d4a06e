/* Inside `history site`: the GPU time of each case, read as the label
 * pass writes its case pages (orchestrator/site/site_perf.h has the
 * model). Each night's summary of its kernel times (perf_sample_stats,
 * not its every sample) is read by one statement per sweep of the window,
 * each in case order on the table's primary key (sweep, case, image,
 * attempt): the label pass's cases, in the same order, take their rows
 * from the head of each, with no sort and no query per case. A night's
 * samples are read only when a comparison needs its U test (beyond the
 * threshold: a handful a night), by their primary key. What a
 * night's result says (image ID, digest, GPU product, driver) comes with
 * the label pass's own rows (site_perf_result): looking each result up
 * again, in case order, read the results table at random. */
#ifndef HRR_REPORT_SITE_PERF_GEN_H
#define HRR_REPORT_SITE_PERF_GEN_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"
#include "orchestrator/history/history_db.h"
#include "orchestrator/site/site_perf.h"
#include "orchestrator/site/site_query.h"

struct history_stmt;

/* A result of the case being read: its sweep's column, image, attempt.
 * The strings are the label pass's, kept until it ends. */
struct site_perf_result {
	size_t col;
	int attempt;
	long device_id;
	const char *image, *image_id, *digest, *gfx, *driver;
};

/* One label's pass. Zeroed to start; site_perf_label_close ends it. */
struct site_perf_label {
	struct history_stmt **st; /* per sweep of the window, oldest first */
	bool *live;               /* its statement has a row */
	size_t n;
	bool opened;
	struct site_perf_case c;
	struct site_perf_result *res; /* the case's results */
	size_t n_res, alloc_res;
	struct site_perf_cps cps;     /* the label's change points (one query) */
	struct history_db *db;
	struct history_stmt *samples; /* one night's kernel times (site_perf_samples_sql) */
	const char *case_name;        /* the case being read */
};

/* Note a result of the case being read, in sweep column col; r's strings
 * must outlive the case. */
void site_perf_result(struct site_perf_label *l, size_t col, const struct site_result_row *r);

/* The case's GPU time (*out NULL: no samples), its last sweep's changes
 * added to changes, its nights that start a change point marked, and the
 * change points the last sweep found added to changes' new ones. The statements are prepared on the first call. */
int site_perf_for_case(struct history_db *db, struct site_perf_label *l, const char *label,
		       const struct site_window_sweep *win, size_t n_win, const char *case_name,
		       const char *case_page, struct site_perf_changes *changes,
		       const struct site_perf_case **out, struct error *err)
	__attribute__((warn_unused_result));
void site_perf_label_close(struct site_perf_label *l);

struct site_gen;
/* The index of changes page (SITE_PERF_PAGE), sorted; none when no case
 * has samples. */
int site_perf_write(struct site_gen *g) __attribute__((warn_unused_result));

/* The per-sweep statement and one night's samples, for `make
 * bench-history`'s query plans. */
extern const char site_perf_sweep_sql[];
extern const char site_perf_samples_sql[];

#endif

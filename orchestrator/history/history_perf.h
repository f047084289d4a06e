/* --perf's samples in the history database (docs/perf.md "In the
 * history"): stored with their result on import, read back for the
 * comparison across nights and `history perf`. */
#ifndef HRR_HISTORY_HISTORY_PERF_H
#define HRR_HISTORY_HISTORY_PERF_H

#include <stdbool.h>

#include "common/error.h"
#include "common/strbuf.h"
#include "orchestrator/history/history_query.h"
#include "orchestrator/history/history_db.h"
#include "orchestrator/sweep/case_result.h"

/* The import's statements for samples (history_import.c): rows held
 * until HISTORY_PERF_PUT_ROWS of them, or a flush, then written in one
 * insert (a statement a sample was most of an import's statements),
 * prepared for each count of rows as it first comes. The rows held point
 * into their results, which must outlive the flush; their keys must
 * differ (flush before a result's key comes again). */
#define HISTORY_PERF_PUT_ROWS 64

struct history_perf_put {
	struct history_db *db;
	struct history_stmt *by_n[HISTORY_PERF_PUT_ROWS]; /* [n - 1]: n rows */
	const char *sweep_id;
	struct {
		const struct case_result *r;
		size_t idx;
	} rows[HISTORY_PERF_PUT_ROWS];
	size_t n;
};

void history_perf_put_init(struct history_perf_put *p, struct history_db *db);
void history_perf_put_release(struct history_perf_put *p);
#define cleanup_perf_put __attribute__((cleanup(history_perf_put_release)))

/* r's samples, held or written; a result without samples adds nothing. */
int history_perf_insert(struct history_perf_put *p, const char *sweep_id,
			const struct case_result *r, struct error *err)
	__attribute__((warn_unused_result));
/* The rows held, written. */
int history_perf_flush(struct history_perf_put *p, struct error *err)
	__attribute__((warn_unused_result));

/* Which sweeps' samples: those of label (NULL: any), only `sweep` when set,
 * else the `last` most recent ones; with `before`, only finished sweeps
 * started before that one (it excluded), as history_db_previous counts.
 * case_name (NULL: every case). since: only sweeps started at or after
 * that one (it included): a series restarted at a night, such as a change
 * point's; until: only sweeps started at or before that one (it
 * included). Each (sweep, case, image)'s last attempt with samples. */
struct history_perf_query {
	const char *label, *sweep, *before, *case_name, *since, *until;
	int last;
	bool newest_first; /* the sweeps newest first (else oldest first) */
};

struct history_perf_row {
	const char *sweep_id, *case_name, *image, *image_id, *digest, *gfx, *driver;
	long long started;
	long long started_us; /* history_perf_samples only; 0 elsewhere */
	long device_id;  /* -1 unknown */
	int attempt;
	double kernel_ms, graph_ms, total_ms, wall_ms; /* < 0: not printed */
	/* history_perf_sides only: the result's --perf note, and whether the
	 * row is a sample (a result with --perf's record but no sample has
	 * one row without). */
	const char *note;
	bool sample;
};
typedef int (*history_perf_fn)(void *ctx, const struct history_perf_row *row);

/* Every sample of the query, in sweep order (then case, image, sample). */
int history_perf_samples(struct history_db *db, const struct history_perf_query *q,
			 history_perf_fn fn, void *ctx, struct error *err)
	__attribute__((warn_unused_result));

/* One sweep's GPU-time sides, as the report compares them: each case and
 * image's last attempt with --perf's record (samples or not), its
 * identity and note, then its samples in the order taken; by case and
 * image (byte order). */
int history_perf_sides(struct history_db *db, const char *sweep_id, history_perf_fn fn,
		       void *ctx, struct error *err) __attribute__((warn_unused_result));

/* `history perf --case NAME`: the case's GPU-time series, one line per
 * sweep, image and GPU product (n, median, CV, min, max of the kernel
 * times), markdown or JSON, into out. */
int history_perf_report(struct history_db *db, const char *label, const char *case_name,
			int last, bool json, struct strbuf *out, struct error *err)
	__attribute__((warn_unused_result));

#endif

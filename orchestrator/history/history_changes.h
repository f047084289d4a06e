/* The change points of each case's GPU-time series in the history
 * (docs/perf.md "Change points"): found at import, listed by `history perf
 * --changes`, accepted by `history perf --accept`, shown by the site and
 * carried by the alarm webhook. */
#ifndef HRR_HISTORY_HISTORY_CHANGES_H
#define HRR_HISTORY_HISTORY_CHANGES_H

#include <stdbool.h>

#include "common/error.h"
#include "common/strbuf.h"
#include "orchestrator/history/history_db.h"
#include "orchestrator/history/history_query.h"

/* The nightly medians of results v[0..n) (history_import.c), in one
 * statement: each result's median of its GPU kernel times, as the night's
 * point of its series (label, case, image reference, GPU product);
 * nothing without samples or when unmeasurable. A later attempt replaces
 * an earlier one's. */
int history_changes_medians_insert(struct history_db *db, const struct history_sweep *s,
				   const struct case_result *v, size_t n, struct error *err)
	__attribute__((warn_unused_result));

/* At the import of sweep_id (label's), inside its transaction, after its
 * medians: each series the sweep has a median of is read over its last
 * PERF_CP_NIGHTS nights up to this one (finished sweeps and this one),
 * from its last accepted change on, and its change points in that range
 * replaced by the detector's (perf_changepoint.h); a change point already
 * stored keeps the sweep that first found it. */
int history_changes_update(struct history_db *db, const char *label, const char *sweep_id,
			   struct error *err) __attribute__((warn_unused_result));

struct history_change_row {
	const char *label, *case_name, *image, *gfx; /* gfx "" unknown */
	const char *sweep, *before_sweep;            /* the night of the new level, the one before */
	const char *image_id_before, *image_id_after, *found_sweep;
	long device_id;                              /* -1 unknown */
	long long started_us;
	double median_before, median_after, ratio, p;
	bool accepted;                               /* `history perf --accept` said so */
};
typedef int (*history_change_fn)(void *ctx, const struct history_change_row *row);

/* Which change points: of label and case_name (NULL: any), only those
 * sweep `found` found first (NULL: all); by label, case, image, GPU, night. */
struct history_change_query {
	const char *label, *case_name, *found;
	bool skip_accepted;
};

int history_changes_each(struct history_db *db, const struct history_change_query *q,
			 history_change_fn fn, void *ctx, struct error *err)
	__attribute__((warn_unused_result));

/* `history perf --changes`: the change points as markdown or JSON. */
int history_changes_report(struct history_db *db, const char *label, const char *case_name,
			   bool json, struct strbuf *out, struct error *err)
	__attribute__((warn_unused_result));

/* `history perf --accept CASE --night SWEEP`: the change of case_name at
 * sweep `night` is intended; the case's series of that sweep's label
 * restarts there. An unknown sweep is ERR_NOT_FOUND. *label is the
 * sweep's (caller frees). */
int history_changes_accept(struct history_db *db, const char *case_name, const char *night,
			   char **label, struct error *err) __attribute__((warn_unused_result));

/* The night a case's series restarts at: its last change point or accepted
 * change in label for this image reference and GPU product (gfx NULL and
 * device_id -1: unknown), whichever is later. *sweep_id (caller frees) and
 * *started_us; *sweep_id NULL and *started_us 0 when there is none. For a
 * series of nightly medians that must not span a change (the noise of a
 * case learned from its own nights). */
int history_changes_restart(struct history_db *db, const char *label, const char *case_name,
			    const char *image, const char *gfx, long device_id, char **sweep_id,
			    long long *started_us, struct error *err)
	__attribute__((warn_unused_result));

/* The series' nightly medians (ms), newest first, at most max, into out:
 * finished sweeps up to the night until_us (0: no bound), from its
 * restart on (its last change point or accepted change at or before
 * until_us; the night itself included). The noise of a case learned from
 * its own nights, never across a change (docs/perf.md "Change points"). */
int history_changes_medians(struct history_db *db, const char *label, const char *case_name,
			    const char *image, const char *gfx, long device_id, long long until_us,
			    double *out, size_t max, size_t *n, struct error *err)
	__attribute__((warn_unused_result));

#endif

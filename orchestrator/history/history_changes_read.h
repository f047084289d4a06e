/* What an import's change-point step reads (history_changes.c): tonight's
 * series, each with its nights and its stored change points, read a page
 * of series at a time (a round trip per page on a server, not per
 * series); their stored change points in one statement. Inside the
 * history module. */
#ifndef HRR_HISTORY_HISTORY_CHANGES_READ_H
#define HRR_HISTORY_HISTORY_CHANGES_READ_H

#include <stddef.h>

#include "common/error.h"
#include "common/strvec.h"
#include "orchestrator/history/history_handle.h"
#include "orchestrator/perf/perf_changepoint.h"

/* One of tonight's series: a case and image reference on one GPU product
 * (gfx "" and device_id -1 unknown). */
struct cp_series {
	char *case_name, *image, *gfx;
	long device_id;
};

/* A series' last PERF_CP_NIGHTS nights up to tonight, from its last
 * accepted change on, finished sweeps and tonight's, oldest first; and
 * its stored change points after the first of them (old: each one's
 * sweep, then the sweep that found it). */
struct cp_nights {
	double med[PERF_CP_NIGHTS];
	char *sweep[PERF_CP_NIGHTS];
	long long started_us[PERF_CP_NIGHTS];
	size_t n;
	struct strvec old;
};

/* One series with its nights, in the reader's order. */
typedef int (*cp_series_fn)(void *ctx, const struct cp_series *s, const struct cp_nights *nt,
			    struct error *err);

/* A stored change point of tonight's series v[series]. */
struct cp_stored {
	size_t series;
	long long started_us;
	char *sweep, *found;
};

struct cp_reader {
	struct history_db *db;
	const char *label, *tonight;
	long long tonight_us; /* tonight's start, once open found a series */
	struct cp_series *v;
	size_t n;
	struct cp_stored *old; /* by series, then night */
	size_t n_old, next_old;
	struct history_stmt *medians;
	struct cp_nights *page;
};

/* Tonight's series (label's, of sweep tonight) and, when there is one,
 * tonight's start and their stored change points up to tonight. */
int history_cp_reader_open(struct cp_reader *r, struct history_db *db, const char *label,
			   const char *tonight, struct error *err)
	__attribute__((warn_unused_result));
/* Each series with its nights, to fn; the first failure stops. */
int history_cp_reader_each(struct cp_reader *r, cp_series_fn fn, void *ctx, struct error *err)
	__attribute__((warn_unused_result));
void history_cp_reader_close(struct cp_reader *r);

#endif

/* The change points of each case's GPU-time series, found at import
 * (docs/perf.md "Change points"). */
#include "orchestrator/history/history_changes.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "orchestrator/history/history_perf.h"
#include "orchestrator/history/history_sql.h"
#include "orchestrator/perf/perf_changepoint.h"
#include "orchestrator/perf/perf_samples.h"
#include "orchestrator/perf/perf_stats.h"

/* One series: a case and image reference on one GPU product, its nightly
 * medians oldest first (night: an index into the nights read). */
struct cp_series {
	char *case_name, *image, *gfx;
	long device_id;
	double med[PERF_CP_NIGHTS];
	unsigned char night[PERF_CP_NIGHTS];
	size_t n;
	double tonight; /* NaN: no median tonight (unmeasurable) */
};

struct cp_night {
	char *sweep;
	long long started_us;
};

struct cp_read {
	struct history_db *db;
	struct cp_series *v;
	size_t n, alloc;
	struct cp_night nights[PERF_CP_NIGHTS];
	size_t n_nights;
	bool tonight; /* reading tonight's samples: each group is a new series */
	/* The group of rows being read: one (sweep, case, image)'s samples. */
	char *sweep, *case_name, *image, *gfx;
	long device_id;
	double ms[PERF_RUNS_MAX];
	size_t n_ms, zeros;
	struct error *err;
};

static int by_case_image(const void *pa, const void *pb)
{
	const struct cp_series *a = pa, *b = pb;
	int c = strcmp(a->case_name, b->case_name);

	return c ? c : strcmp(a->image, b->image);
}

/* The night a sweep is, the first time it is seen read with its start. */
static int night_of(struct cp_read *r, const char *sweep, size_t *out)
{
	cleanup_stmt sqlite3_stmt *st = NULL;
	struct cp_night *n;
	int rc;

	if (r->n_nights && !strcmp(r->nights[r->n_nights - 1].sweep, sweep)) {
		*out = r->n_nights - 1;
		return 0;
	}
	if (r->n_nights == PERF_CP_NIGHTS)
		return error_set(r->err, ERR_LIMIT, 0, "more than %d nights read", PERF_CP_NIGHTS);
	if (history_sql_prepare(r->db, "SELECT COALESCE(started_us, started * 1000000)"
				" FROM sweeps WHERE id = ?1", &st, r->err) < 0)
		return -1;
	bind_text(st, 1, sweep);
	if ((rc = sqlite3_step(st)) != SQLITE_ROW)
		return history_sql_error(r->db, rc, "read a sweep's start", r->err);
	n = &r->nights[r->n_nights];
	n->sweep = xstrdup(sweep);
	n->started_us = sqlite3_column_int64(st, 0);
	*out = r->n_nights++;
	return 0;
}

/* The group's median: its times above 0 ms; none when half or more are 0
 * (unmeasurable, docs/perf.md "Statuses"). */
static double group_median(const struct cp_read *r)
{
	if (!r->n_ms || 2 * r->zeros >= r->n_ms + r->zeros)
		return NAN;
	return perf_median(r->ms, r->n_ms);
}

static int flush(struct cp_read *r)
{
	double m = group_median(r);
	struct cp_series key, *s;
	size_t night;

	if (!r->sweep)
		return 0;
	if (r->tonight) {
		if (r->n == r->alloc) {
			r->alloc = r->alloc ? 2 * r->alloc : 64;
			r->v = xrealloc(r->v, r->alloc * sizeof(*r->v));
		}
		s = &r->v[r->n++];
		memset(s, 0, sizeof(*s));
		s->case_name = xstrdup(r->case_name);
		s->image = xstrdup(r->image);
		s->gfx = xstrdup(r->gfx ? r->gfx : "");
		s->device_id = r->device_id;
		s->tonight = m;
		return 0;
	}
	key.case_name = r->case_name;
	key.image = r->image;
	s = bsearch(&key, r->v, r->n, sizeof(*r->v), by_case_image);
	/* Another GPU product is another series: not this one's night. */
	if (!s || isnan(m) || strcmp(s->gfx, r->gfx ? r->gfx : "") || s->device_id != r->device_id)
		return 0;
	if (night_of(r, r->sweep, &night) < 0)
		return -1;
	if (s->n < PERF_CP_NIGHTS) {
		s->med[s->n] = m;
		s->night[s->n++] = (unsigned char)night;
	}
	return 0;
}

static void group_reset(struct cp_read *r)
{
	free(r->sweep);
	free(r->case_name);
	free(r->image);
	free(r->gfx);
	r->sweep = r->case_name = r->image = r->gfx = NULL;
	r->n_ms = r->zeros = 0;
}

static int row_add(void *ctx, const struct history_perf_row *row)
{
	struct cp_read *r = ctx;

	if (!r->sweep || strcmp(r->sweep, row->sweep_id) || strcmp(r->case_name, row->case_name) ||
	    strcmp(r->image, row->image)) {
		if (flush(r) < 0)
			return -1;
		group_reset(r);
		r->sweep = xstrdup(row->sweep_id);
		r->case_name = xstrdup(row->case_name);
		r->image = xstrdup(row->image);
		r->gfx = xstrdup_or_null(row->gfx);
		r->device_id = row->device_id > 0 ? row->device_id : -1;
	}
	if (row->kernel_ms == 0)
		r->zeros++;
	else if (row->kernel_ms > 0 && isfinite(row->kernel_ms) && r->n_ms < PERF_RUNS_MAX)
		r->ms[r->n_ms++] = row->kernel_ms;
	return 0;
}

static int read_nights(struct cp_read *r, const char *label, const char *sweep_id)
{
	struct history_perf_query tonight = { .label = label, .sweep = sweep_id, .last = 1 };
	struct history_perf_query before = { .label = label, .before = sweep_id,
					     .last = PERF_CP_NIGHTS - 1 };
	size_t night;

	r->tonight = true;
	if (history_perf_samples(r->db, &tonight, row_add, r, r->err) < 0 || flush(r) < 0)
		return -1;
	group_reset(r);
	if (!r->n)
		return 0;
	qsort(r->v, r->n, sizeof(*r->v), by_case_image);
	r->tonight = false;
	if (history_perf_samples(r->db, &before, row_add, r, r->err) < 0 || flush(r) < 0)
		return -1;
	group_reset(r);
	if (night_of(r, sweep_id, &night) < 0)
		return -1;
	for (size_t i = 0; i < r->n; i++) {
		struct cp_series *s = &r->v[i];

		if (isnan(s->tonight))
			continue;
		if (s->n == PERF_CP_NIGHTS) { /* cannot happen: 59 nights before */
			memmove(s->med, s->med + 1, (s->n - 1) * sizeof(*s->med));
			memmove(s->night, s->night + 1, s->n - 1);
			s->n--;
		}
		s->med[s->n] = s->tonight;
		s->night[s->n++] = (unsigned char)night;
	}
	return 0;
}

static void read_release(struct cp_read *r)
{
	group_reset(r);
	for (size_t i = 0; i < r->n; i++) {
		free(r->v[i].case_name);
		free(r->v[i].image);
		free(r->v[i].gfx);
	}
	free(r->v);
	for (size_t i = 0; i < r->n_nights; i++)
		free(r->nights[i].sweep);
}

/* The statements of the store, prepared once an import. */
struct cp_store {
	struct history_db *db;
	const char *label;
	const struct cp_read *r;
	size_t tonight;        /* tonight's night */
	sqlite3_stmt *restart, *found, *del, *ins, *image_id;
};

#define SERIES_KEY "label = ?1 AND case_name = ?2 AND image_ref = ?3 AND gfx = ?4" \
	" AND device_id = ?5"

static const char *const store_sql[] = {
	"SELECT MAX(started_us) FROM perf_accepted WHERE label = ?1 AND case_name = ?2"
	" AND started_us <= ?3",
	"SELECT sweep, found_sweep FROM perf_changes WHERE " SERIES_KEY
	" AND started_us > ?6 AND started_us <= ?7",
	"DELETE FROM perf_changes WHERE " SERIES_KEY " AND started_us > ?6 AND started_us <= ?7",
	"INSERT OR REPLACE INTO perf_changes(label, case_name, image_ref, gfx, device_id,"
	" started_us, sweep, before_sweep, image_id_before, image_id_after, median_before,"
	" median_after, ratio, p, found_sweep)"
	" VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)",
	"SELECT image_id FROM results WHERE sweep = ?1 AND case_name = ?2 AND image_ref = ?3"
	" ORDER BY attempt DESC LIMIT 1",
};

static void store_release(struct cp_store *st)
{
	sqlite3_finalize(st->restart);
	sqlite3_finalize(st->found);
	sqlite3_finalize(st->del);
	sqlite3_finalize(st->ins);
	sqlite3_finalize(st->image_id);
}

static int store_prepare(struct cp_store *st, struct error *err)
{
	sqlite3_stmt **sts[] = { &st->restart, &st->found, &st->del, &st->ins, &st->image_id };

	for (size_t i = 0; i < sizeof(sts) / sizeof(sts[0]); i++)
		if (history_sql_prepare(st->db, store_sql[i], sts[i], err) < 0)
			return -1;
	return 0;
}

static void bind_key(sqlite3_stmt *q, const struct cp_store *st, const struct cp_series *s)
{
	sqlite3_reset(q);
	bind_text(q, 1, st->label);
	bind_text(q, 2, s->case_name);
	bind_text(q, 3, s->image);
	bind_text(q, 4, s->gfx);
	sqlite3_bind_int64(q, 5, s->device_id);
}

/* The series' first night: the first at or after the case's last accepted
 * change (0: the first read). */
static int restart_at(struct cp_store *st, const struct cp_series *s, size_t *first,
		      struct error *err)
{
	long long tonight_us = st->r->nights[st->tonight].started_us, from;
	int rc;

	sqlite3_reset(st->restart);
	bind_text(st->restart, 1, st->label);
	bind_text(st->restart, 2, s->case_name);
	sqlite3_bind_int64(st->restart, 3, tonight_us);
	if ((rc = sqlite3_step(st->restart)) != SQLITE_ROW)
		return history_sql_error(st->db, rc, "read accepted changes", err);
	from = sqlite3_column_type(st->restart, 0) == SQLITE_NULL
		       ? 0 : sqlite3_column_int64(st->restart, 0);
	*first = 0;
	while (*first < s->n && st->r->nights[s->night[*first]].started_us < from)
		(*first)++;
	return 0;
}

/* The image ID a night ran for the series (NULL: unknown); caller frees. */
static char *image_id_of(struct cp_store *st, const char *sweep, const struct cp_series *s)
{
	sqlite3_reset(st->image_id);
	bind_text(st->image_id, 1, sweep);
	bind_text(st->image_id, 2, s->case_name);
	bind_text(st->image_id, 3, s->image);
	return sqlite3_step(st->image_id) == SQLITE_ROW ? xstrdup_or_null(col(st->image_id, 0))
							 : NULL;
}

/* The sweep that first found the change at night `sweep`: the stored
 * one's, else tonight. */
static const char *found_of(const struct strvec *old, const char *sweep, const char *tonight)
{
	for (size_t i = 0; i + 1 < old->n; i += 2)
		if (!strcmp(old->v[i], sweep))
			return old->v[i + 1];
	return tonight;
}

static int insert_change(struct cp_store *st, const struct cp_series *s, const double *x,
			 size_t first, const struct perf_changepoint *cp, size_t k, size_t i,
			 const struct strvec *old, struct error *err)
{
	size_t at = first + cp[i].index, from = first + (i ? cp[i - 1].index : 0);
	size_t to = first + (i + 1 < k ? cp[i + 1].index : s->n - first);
	const struct cp_night *night = &st->r->nights[s->night[at]];
	const char *before = st->r->nights[s->night[at - 1]].sweep;
	cleanup_free char *id_before = image_id_of(st, before, s);
	cleanup_free char *id_after = image_id_of(st, night->sweep, s);
	int rc;

	bind_key(st->ins, st, s);
	sqlite3_bind_int64(st->ins, 6, night->started_us);
	bind_text(st->ins, 7, night->sweep);
	bind_text(st->ins, 8, before);
	bind_text(st->ins, 9, id_before);
	bind_text(st->ins, 10, id_after);
	sqlite3_bind_double(st->ins, 11, perf_median(x + from, at - from));
	sqlite3_bind_double(st->ins, 12, perf_median(x + at, to - at));
	sqlite3_bind_double(st->ins, 13, cp[i].ratio);
	sqlite3_bind_double(st->ins, 14, cp[i].p);
	bind_text(st->ins, 15, found_of(old, night->sweep, st->r->nights[st->tonight].sweep));
	if ((rc = sqlite3_step(st->ins)) != SQLITE_DONE)
		return history_sql_error(st->db, rc, "write a change point", err);
	return 0;
}

/* Replace the series' change points after its first night: those stored
 * there are read (which sweep found each) and deleted, the detector's
 * written. */
static int store_series(struct cp_store *st, const struct cp_series *s, struct error *err)
{
	struct perf_changepoint cp[PERF_CP_NIGHTS];
	cleanup_strvec struct strvec old = STRVEC_INIT;
	size_t first = 0, k;
	long long lo, hi = st->r->nights[st->tonight].started_us;
	int rc;

	if (restart_at(st, s, &first, err) < 0)
		return -1;
	if (first >= s->n)
		return 0;
	if (perf_changepoints(s->med + first, s->n - first, NULL, cp, &k, err) < 0)
		return -1;
	lo = st->r->nights[s->night[first]].started_us;
	bind_key(st->found, st, s);
	sqlite3_bind_int64(st->found, 6, lo);
	sqlite3_bind_int64(st->found, 7, hi);
	while ((rc = sqlite3_step(st->found)) == SQLITE_ROW) {
		strvec_push(&old, col(st->found, 0));
		strvec_push(&old, col(st->found, 1));
	}
	if (rc != SQLITE_DONE)
		return history_sql_error(st->db, rc, "read change points", err);
	bind_key(st->del, st, s);
	sqlite3_bind_int64(st->del, 6, lo);
	sqlite3_bind_int64(st->del, 7, hi);
	if (old.n && (rc = sqlite3_step(st->del)) != SQLITE_DONE)
		return history_sql_error(st->db, rc, "delete change points", err);
	for (size_t i = 0; i < k; i++)
		if (insert_change(st, s, s->med + first, first, cp, k, i, &old, err) < 0)
			return -1;
	return 0;
}

int history_changes_update(struct history_db *db, const char *label, const char *sweep_id,
			   struct error *err)
{
	struct cp_read r = { .db = db, .err = err };
	struct cp_store st = { .db = db, .label = label, .r = &r };
	int rc = read_nights(&r, label, sweep_id);

	if (rc == 0 && r.n) {
		st.tonight = r.n_nights - 1;
		rc = store_prepare(&st, err);
		for (size_t i = 0; rc == 0 && i < r.n; i++)
			if (!isnan(r.v[i].tonight))
				rc = store_series(&st, &r.v[i], err);
		store_release(&st);
	}
	read_release(&r);
	return rc;
}

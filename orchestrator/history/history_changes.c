/* The nightly medians of each case's GPU-time series and their change
 * points, found at import (docs/perf.md "Change points"). */
#include "orchestrator/history/history_changes.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "orchestrator/history/history_dialect.h"
#include "orchestrator/history/history_sql.h"
#include "orchestrator/perf/perf_changepoint.h"
#include "orchestrator/perf/perf_samples.h"
#include "orchestrator/perf/perf_stats.h"

int history_changes_median_prepare(struct history_db *db, struct history_stmt **st, struct error *err)
{
	return history_sql_prepare(db, history_dialect_sql(db, HSQL_MEDIAN_PUT), st, err);
}

/* A result's median: its kernel times above 0 ms; none (NaN) when half or
 * more are 0 (unmeasurable, docs/perf.md "Statuses"). */
static double result_median(const struct perf_samples *ps)
{
	double ms[PERF_RUNS_MAX], pos[PERF_RUNS_MAX];
	size_t n = perf_samples_kernel_ms(ps, ms), k = 0;

	for (size_t i = 0; i < n && i < PERF_RUNS_MAX; i++)
		if (ms[i] > 0 && isfinite(ms[i]))
			pos[k++] = ms[i];
	return k && 2 * (n - k) < n ? perf_median(pos, k) : NAN;
}

int history_changes_median_insert(struct history_db *db, struct history_stmt *st,
				  const struct history_sweep *s, const struct case_result *r,
				  struct error *err)
{
	double m = r->perf ? result_median(r->perf) : NAN;
	int rc;

	/* A later attempt with samples replaces an earlier one's median. */
	if (isnan(m))
		return 0;
	history_reset(st);
	bind_text(st, 1, s->label);
	bind_text(st, 2, r->case_name);
	bind_text(st, 3, r->image);
	bind_text(st, 4, r->gfx ? r->gfx : "");
	history_bind_int64(st, 5, r->device_id > 0 ? r->device_id : -1);
	history_bind_int64(st, 6, s->started_us ? s->started_us : s->started * 1000000);
	bind_text(st, 7, s->id);
	history_bind_double(st, 8, m);
	if ((rc = history_step(st)) != HISTORY_DONE)
		return history_sql_error(db, rc, "write a nightly median", err);
	return 0;
}

/* One of tonight's series: a case and image reference on one GPU product
 * (gfx "" and device_id -1 unknown). */
struct cp_series {
	char *case_name, *image, *gfx;
	long device_id;
};

/* The statements of an import's update, prepared once. */
struct cp_store {
	struct history_db *db;
	const char *label, *tonight;
	long long tonight_us;
	struct history_stmt *series, *found, *del, *ins, *image_id;
	/* The series being searched, oldest night first. */
	double med[PERF_CP_NIGHTS];
	char *sweep[PERF_CP_NIGHTS];
	long long started_us[PERF_CP_NIGHTS];
	size_t n;
};

#define SERIES_KEY "label = ?1 AND case_name = ?2 AND image_ref = ?3 AND gfx = ?4" \
	" AND device_id = ?5"

/* ?6 tonight's start, ?7 tonight, ?8 PERF_CP_NIGHTS. The series' last PERF_CP_NIGHTS nights
 * up to tonight, from its last accepted change on, finished sweeps and
 * tonight's, newest first, on the medians' primary key. */
#define SERIES_SQL                                                                          \
	"SELECT m.sweep, m.started_us, m.median_ms FROM perf_medians m"                     \
	" JOIN sweeps s ON s.id = m.sweep AND (s.state = 'finished' OR s.id = ?7)"          \
	" WHERE m." SERIES_KEY " AND m.started_us <= ?6 AND m.started_us >= COALESCE("      \
	"  (SELECT MAX(started_us) FROM perf_accepted WHERE label = ?1 AND case_name = ?2"  \
	"   AND started_us <= ?6), 0)"                                                      \
	" ORDER BY m.started_us DESC, m.sweep DESC LIMIT ?8"

static const char *const store_sql[] = {
	SERIES_SQL,
	"SELECT sweep, found_sweep FROM perf_changes WHERE " SERIES_KEY
	" AND started_us > ?6 AND started_us <= ?7",
	"DELETE FROM perf_changes WHERE " SERIES_KEY " AND started_us > ?6 AND started_us <= ?7",
	NULL, /* history_dialect.h's HSQL_CHANGE_PUT */
	"SELECT image_id FROM results WHERE sweep = ?1 AND case_name = ?2 AND image_ref = ?3"
	" ORDER BY attempt DESC LIMIT 1",
};

static void series_clear(struct cp_store *st)
{
	for (size_t i = 0; i < st->n; i++)
		free(st->sweep[i]);
	st->n = 0;
}

static void store_release(struct cp_store *st)
{
	series_clear(st);
	history_finalize(st->series);
	history_finalize(st->found);
	history_finalize(st->del);
	history_finalize(st->ins);
	history_finalize(st->image_id);
}

static int store_prepare(struct cp_store *st, struct error *err)
{
	struct history_stmt **sts[] = { &st->series, &st->found, &st->del, &st->ins, &st->image_id };
	cleanup_stmt struct history_stmt *q = NULL;
	int rc;

	for (size_t i = 0; i < sizeof(sts) / sizeof(sts[0]); i++)
		if (history_sql_prepare(st->db, store_sql[i] ? store_sql[i]
				: history_dialect_sql(st->db, HSQL_CHANGE_PUT), sts[i], err) < 0)
			return -1;
	if (history_sql_prepare(st->db, "SELECT COALESCE(started_us, started * 1000000)"
				" FROM sweeps WHERE id = ?1", &q, err) < 0)
		return -1;
	bind_text(q, 1, st->tonight);
	if ((rc = history_step(q)) != HISTORY_ROW)
		return history_sql_error(st->db, rc, "read the sweep's start", err);
	st->tonight_us = history_col_int64(q, 0);
	return 0;
}

static void bind_key(struct history_stmt *q, const struct cp_store *st, const struct cp_series *s)
{
	history_reset(q);
	bind_text(q, 1, st->label);
	bind_text(q, 2, s->case_name);
	bind_text(q, 3, s->image);
	bind_text(q, 4, s->gfx);
	history_bind_int64(q, 5, s->device_id);
}

/* The series' nights, oldest first. */
static int read_series(struct cp_store *st, const struct cp_series *s, struct error *err)
{
	int rc;

	series_clear(st);
	bind_key(st->series, st, s);
	history_bind_int64(st->series, 6, st->tonight_us);
	bind_text(st->series, 7, st->tonight);
	history_bind_int(st->series, 8, PERF_CP_NIGHTS);
	while ((rc = history_step(st->series)) == HISTORY_ROW && st->n < PERF_CP_NIGHTS) {
		st->sweep[st->n] = xstrdup(col(st->series, 0));
		st->started_us[st->n] = history_col_int64(st->series, 1);
		st->med[st->n++] = history_col_double(st->series, 2);
	}
	if (rc != HISTORY_ROW && rc != HISTORY_DONE)
		return history_sql_error(st->db, rc, "read nightly medians", err);
	for (size_t i = 0, j = st->n; i + 1 < j--; i++) {
		double m = st->med[i];
		long long u = st->started_us[i];
		char *w = st->sweep[i];

		st->med[i] = st->med[j], st->med[j] = m;
		st->started_us[i] = st->started_us[j], st->started_us[j] = u;
		st->sweep[i] = st->sweep[j], st->sweep[j] = w;
	}
	return 0;
}

/* The image ID a night ran for the series (NULL: unknown); caller frees. */
static char *image_id_of(struct cp_store *st, const char *sweep, const struct cp_series *s)
{
	history_reset(st->image_id);
	bind_text(st->image_id, 1, sweep);
	bind_text(st->image_id, 2, s->case_name);
	bind_text(st->image_id, 3, s->image);
	return history_step(st->image_id) == HISTORY_ROW ? xstrdup_or_null(col(st->image_id, 0))
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

static int insert_change(struct cp_store *st, const struct cp_series *s,
			 const struct perf_changepoint *cp, size_t k, size_t i,
			 const struct strvec *old, struct error *err)
{
	size_t at = cp[i].index, from = i ? cp[i - 1].index : 0;
	size_t to = i + 1 < k ? cp[i + 1].index : st->n;
	cleanup_free char *id_before = image_id_of(st, st->sweep[at - 1], s);
	cleanup_free char *id_after = image_id_of(st, st->sweep[at], s);
	int rc;

	bind_key(st->ins, st, s);
	history_bind_int64(st->ins, 6, st->started_us[at]);
	bind_text(st->ins, 7, st->sweep[at]);
	bind_text(st->ins, 8, st->sweep[at - 1]);
	bind_text(st->ins, 9, id_before);
	bind_text(st->ins, 10, id_after);
	history_bind_double(st->ins, 11, perf_median(st->med + from, at - from));
	history_bind_double(st->ins, 12, perf_median(st->med + at, to - at));
	history_bind_double(st->ins, 13, cp[i].ratio);
	history_bind_double(st->ins, 14, cp[i].p);
	bind_text(st->ins, 15, found_of(old, st->sweep[at], st->tonight));
	if ((rc = history_step(st->ins)) != HISTORY_DONE)
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
	size_t k;
	int rc;

	if (read_series(st, s, err) < 0)
		return -1;
	if (!st->n || perf_changepoints(st->med, st->n, NULL, cp, &k, err) < 0)
		return st->n ? -1 : 0;
	bind_key(st->found, st, s);
	history_bind_int64(st->found, 6, st->started_us[0]);
	history_bind_int64(st->found, 7, st->tonight_us);
	while ((rc = history_step(st->found)) == HISTORY_ROW) {
		strvec_push(&old, col(st->found, 0));
		strvec_push(&old, col(st->found, 1));
	}
	if (rc != HISTORY_DONE)
		return history_sql_error(st->db, rc, "read change points", err);
	bind_key(st->del, st, s);
	history_bind_int64(st->del, 6, st->started_us[0]);
	history_bind_int64(st->del, 7, st->tonight_us);
	if (old.n && (rc = history_step(st->del)) != HISTORY_DONE)
		return history_sql_error(st->db, rc, "delete change points", err);
	for (size_t i = 0; i < k; i++)
		if (insert_change(st, s, cp, k, i, &old, err) < 0)
			return -1;
	return 0;
}

/* Tonight's series: those with a median tonight (each tonight's sweep
 * row, on the medians' sweep index). */
static int tonight_series(struct history_db *db, const char *sweep_id, struct cp_series **v,
			  size_t *n, struct error *err)
{
	cleanup_stmt struct history_stmt *q = NULL;
	size_t alloc = 0;
	int rc;

	if (history_sql_prepare(db, "SELECT case_name, image_ref, gfx, device_id FROM perf_medians"
				" WHERE sweep = ?1", &q, err) < 0)
		return -1;
	bind_text(q, 1, sweep_id);
	while ((rc = history_step(q)) == HISTORY_ROW) {
		if (*n == alloc)
			*v = xrealloc(*v, (alloc = alloc ? 2 * alloc : 64) * sizeof(**v));
		(*v)[(*n)++] = (struct cp_series){ xstrdup(col(q, 0)), xstrdup(col(q, 1)),
						   xstrdup(col(q, 2)), history_col_int64(q, 3) };
	}
	return rc == HISTORY_DONE ? 0 : history_sql_error(db, rc, "read nightly medians", err);
}

int history_changes_update(struct history_db *db, const char *label, const char *sweep_id,
			   struct error *err)
{
	struct cp_store st = { .db = db, .label = label, .tonight = sweep_id };
	struct cp_series *v = NULL;
	size_t n = 0;
	int rc = tonight_series(db, sweep_id, &v, &n, err);

	if (rc == 0 && n) {
		rc = store_prepare(&st, err);
		for (size_t i = 0; rc == 0 && i < n; i++)
			rc = store_series(&st, &v[i], err);
	}
	store_release(&st);
	for (size_t i = 0; i < n; i++) {
		free(v[i].case_name);
		free(v[i].image);
		free(v[i].gfx);
	}
	free(v);
	return rc;
}

/* The nightly medians of each case's GPU-time series and their change
 * points, found at import (docs/perf.md "Change points"). */
#include "orchestrator/history/history_changes.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "orchestrator/history/history_changes_read.h"
#include "orchestrator/history/history_dialect.h"
#include "orchestrator/history/history_sql.h"
#include "orchestrator/perf/perf_changepoint.h"
#include "orchestrator/perf/perf_samples.h"
#include "orchestrator/perf/perf_stats.h"

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

static bool same_series(const struct case_result *a, const struct case_result *b)
{
	return !strcmp(a->case_name, b->case_name) && !strcmp(a->image, b->image) &&
	       !strcmp(a->gfx ? a->gfx : "", b->gfx ? b->gfx : "") &&
	       (a->device_id > 0 ? a->device_id : -1) == (b->device_id > 0 ? b->device_id : -1);
}

#define MEDIAN_NCOLS 8

static void bind_median(struct history_stmt *st, int o, const struct history_sweep *s,
			const struct case_result *r, double m)
{
	bind_text(st, o + 1, s->label);
	bind_text(st, o + 2, r->case_name);
	bind_text(st, o + 3, r->image);
	bind_text(st, o + 4, r->gfx ? r->gfx : "");
	history_bind_int64(st, o + 5, r->device_id > 0 ? r->device_id : -1);
	history_bind_int64(st, o + 6, s->started_us ? s->started_us : s->started * 1000000);
	bind_text(st, o + 7, s->id);
	history_bind_double(st, o + 8, m);
}

int history_changes_medians_insert(struct history_db *db, const struct history_sweep *s,
				   const struct case_result *v, size_t n, struct error *err)
{
	cleanup_stmt struct history_stmt *st = NULL;
	cleanup_free double *m = xcalloc(n + 1, sizeof(*m));
	size_t rows = 0;
	int rc;

	/* A later attempt with samples replaces an earlier one's median: the
	 * earlier is left out, as one statement may not write a key twice. */
	for (size_t i = n; i-- > 0;) {
		m[i] = v[i].perf ? result_median(v[i].perf) : NAN;
		for (size_t j = i + 1; j < n && !isnan(m[i]); j++)
			if (!isnan(m[j]) && same_series(&v[i], &v[j]))
				m[i] = NAN;
		rows += !isnan(m[i]);
	}
	if (!rows)
		return 0;
	if (history_dialect_prepare_rows(db, HSQL_MEDIANS_HEAD, rows, MEDIAN_NCOLS, &st, err) < 0)
		return -1;
	for (size_t i = 0, k = 0; i < n; i++)
		if (!isnan(m[i]))
			bind_median(st, MEDIAN_NCOLS * (int)k++, s, &v[i], m[i]);
	if ((rc = history_step(st)) != HISTORY_DONE)
		return history_sql_error(db, rc, "write a nightly median", err);
	return 0;
}

/* The statements of an import's update, prepared once; the series being
 * searched (history_changes_read.h). */
struct cp_store {
	struct history_db *db;
	struct cp_reader rd;
	struct history_stmt *del, *ins, *image_id;
	const struct cp_nights *nt;
};

#define SERIES_KEY "label = ?1 AND case_name = ?2 AND image_ref = ?3 AND gfx = ?4" \
	" AND device_id = ?5"

static const char *const store_sql[] = {
	"DELETE FROM perf_changes WHERE " SERIES_KEY " AND started_us > ?6 AND started_us <= ?7",
	NULL, /* history_dialect.h's HSQL_CHANGE_PUT */
	"SELECT image_id FROM results WHERE sweep = ?1 AND case_name = ?2 AND image_ref = ?3"
	" ORDER BY attempt DESC LIMIT 1",
};

static void store_release(struct cp_store *st)
{
	history_cp_reader_close(&st->rd);
	history_finalize(st->del);
	history_finalize(st->ins);
	history_finalize(st->image_id);
}

static int store_prepare(struct cp_store *st, struct error *err)
{
	struct history_stmt **sts[] = { &st->del, &st->ins, &st->image_id };

	for (size_t i = 0; i < sizeof(sts) / sizeof(sts[0]); i++)
		if (history_sql_prepare(st->db, store_sql[i] ? store_sql[i]
				: history_dialect_sql(st->db, HSQL_CHANGE_PUT), sts[i], err) < 0)
			return -1;
	return 0;
}

static void bind_key(struct history_stmt *q, const struct cp_store *st, const struct cp_series *s)
{
	history_reset(q);
	bind_text(q, 1, st->rd.label);
	bind_text(q, 2, s->case_name);
	bind_text(q, 3, s->image);
	bind_text(q, 4, s->gfx);
	history_bind_int64(q, 5, s->device_id);
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
			 const struct perf_changepoint *cp, size_t k, size_t i, struct error *err)
{
	const struct cp_nights *nt = st->nt;
	size_t at = cp[i].index, from = i ? cp[i - 1].index : 0;
	size_t to = i + 1 < k ? cp[i + 1].index : nt->n;
	cleanup_free char *id_before = image_id_of(st, nt->sweep[at - 1], s);
	cleanup_free char *id_after = image_id_of(st, nt->sweep[at], s);
	int rc;

	bind_key(st->ins, st, s);
	history_bind_int64(st->ins, 6, nt->started_us[at]);
	bind_text(st->ins, 7, nt->sweep[at]);
	bind_text(st->ins, 8, nt->sweep[at - 1]);
	bind_text(st->ins, 9, id_before);
	bind_text(st->ins, 10, id_after);
	history_bind_double(st->ins, 11, perf_median(nt->med + from, at - from));
	history_bind_double(st->ins, 12, perf_median(nt->med + at, to - at));
	history_bind_double(st->ins, 13, cp[i].ratio);
	history_bind_double(st->ins, 14, cp[i].p);
	bind_text(st->ins, 15, found_of(&nt->old, nt->sweep[at], st->rd.tonight));
	if ((rc = history_step(st->ins)) != HISTORY_DONE)
		return history_sql_error(st->db, rc, "write a change point", err);
	return 0;
}

/* Replace the series' change points after its first night: those stored
 * there (read with its nights: which sweep found each) are deleted, the
 * detector's written. */
static int store_series(void *ctx, const struct cp_series *s, const struct cp_nights *nt,
			struct error *err)
{
	struct cp_store *st = ctx;
	struct perf_changepoint cp[PERF_CP_NIGHTS];
	size_t k;
	int rc;

	st->nt = nt;
	if (!nt->n || perf_changepoints(nt->med, nt->n, NULL, cp, &k, err) < 0)
		return nt->n ? -1 : 0;
	bind_key(st->del, st, s);
	history_bind_int64(st->del, 6, nt->started_us[0]);
	history_bind_int64(st->del, 7, st->rd.tonight_us);
	if (nt->old.n && (rc = history_step(st->del)) != HISTORY_DONE)
		return history_sql_error(st->db, rc, "delete change points", err);
	for (size_t i = 0; i < k; i++)
		if (insert_change(st, s, cp, k, i, err) < 0)
			return -1;
	return 0;
}

int history_changes_update(struct history_db *db, const char *label, const char *sweep_id,
			   struct error *err)
{
	struct cp_store st = { .db = db };
	int rc = history_cp_reader_open(&st.rd, db, label, sweep_id, err);

	if (rc == 0 && st.rd.n)
		rc = store_prepare(&st, err) < 0 ? -1
		     : history_cp_reader_each(&st.rd, store_series, &st, err);
	store_release(&st);
	return rc;
}

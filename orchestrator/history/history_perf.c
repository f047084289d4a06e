/* --perf's samples in the history database (docs/perf.md "In the history"). */
#include "orchestrator/history/history_perf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "common/cleanup.h"
#include "common/json.h"
#include "common/text.h"
#include "common/xalloc.h"
#include "orchestrator/history/history_dialect.h"
#include "orchestrator/history/history_sql.h"
#include "orchestrator/perf/perf_stats.h"

void history_perf_put_init(struct history_perf_put *p, struct history_db *db)
{
	memset(p, 0, sizeof(*p));
	p->db = db;
}

void history_perf_put_release(struct history_perf_put *p)
{
	for (size_t i = 0; i < HISTORY_PERF_PUT_ROWS; i++)
		history_finalize(p->by_n[i]);
	memset(p->by_n, 0, sizeof(p->by_n));
}

#define SAMPLE_NCOLS 9

/* The insert of n samples, SAMPLE_NCOLS parameters a row. */
static int samples_stmt(struct history_perf_put *p, size_t n, struct history_stmt **st,
			struct error *err)
{
	if (!p->by_n[n - 1] &&
	    history_dialect_prepare_rows(p->db, HSQL_SAMPLES_HEAD, n, SAMPLE_NCOLS, &p->by_n[n - 1],
					 err) < 0)
		return -1;
	*st = p->by_n[n - 1];
	return 0;
}

static void bind_ms(struct history_stmt *st, int i, double v)
{
	if (v >= 0 && isfinite(v))
		history_bind_double(st, i, v);
	else
		history_bind_null(st, i);
}

int history_perf_flush(struct history_perf_put *p, struct error *err)
{
	struct history_stmt *st;
	int rc;

	if (!p->n)
		return 0;
	if (samples_stmt(p, p->n, &st, err) < 0)
		return -1;
	history_reset(st);
	for (size_t i = 0; i < p->n; i++) {
		const struct case_result *r = p->rows[i].r;
		const struct perf_sample *x = &r->perf->v[p->rows[i].idx];
		int o = SAMPLE_NCOLS * (int)i;

		bind_text(st, o + 1, p->sweep_id);
		bind_text(st, o + 2, r->case_name);
		bind_text(st, o + 3, r->image);
		history_bind_int(st, o + 4, r->attempt);
		history_bind_int64(st, o + 5, (long long)p->rows[i].idx);
		bind_ms(st, o + 6, x->kernel_ms);
		bind_ms(st, o + 7, x->graph_ms);
		bind_ms(st, o + 8, x->total_ms);
		bind_ms(st, o + 9, x->wall_ms);
	}
	p->n = 0;
	if ((rc = history_step(st)) != HISTORY_DONE)
		return history_sql_error(p->db, rc, "write perf sample", err);
	return 0;
}

int history_perf_insert(struct history_perf_put *p, const char *sweep_id,
			const struct case_result *r, struct error *err)
{
	for (size_t i = 0; r->perf && i < r->perf->n; i++) {
		if (p->n == HISTORY_PERF_PUT_ROWS && history_perf_flush(p, err) < 0)
			return -1;
		p->sweep_id = sweep_id;
		p->rows[p->n].r = r;
		p->rows[p->n++].idx = i;
	}
	return 0;
}

/* ?1 label, ?2 before (NULL: no bound), ?3 last, ?4 case, ?5 only this
 * sweep (NULL: the last ones), ?6 since and ?7 until (NULL: no bound). The sweeps first, then each (sweep, case,
 * image)'s last attempt with samples, then its samples and its result's
 * identity. The label and the case are in the text only when given, so
 * the primary key's (sweep, case_name) prefix finds one case's samples
 * without reading the others' (`make bench-history`). */
#define PERF_SQL(label, case_name, order)                                                  \
	"WITH s AS (SELECT id, started, started_us FROM sweeps WHERE " label                \
	"  AND (?5 IS NULL OR id = ?5)"                                                    \
	"  AND (?2 IS NULL OR (state = 'finished' AND id != ?2 AND started_us <="         \
	"   COALESCE((SELECT started_us FROM sweeps WHERE id = ?2), 1e18)))"               \
	"  AND (?6 IS NULL OR started_us >="                                               \
	"   COALESCE((SELECT started_us FROM sweeps WHERE id = ?6), 0))"                   \
	"  AND (?7 IS NULL OR started_us <="                                               \
	"   COALESCE((SELECT started_us FROM sweeps WHERE id = ?7), 1e18))"                \
	"  ORDER BY started_us DESC, id DESC LIMIT ?3),"                                   \
	" fin AS (SELECT sweep, case_name, image_ref, MAX(attempt) AS attempt"             \
	"  FROM perf_samples WHERE sweep IN (SELECT id FROM s) " case_name                 \
	"  GROUP BY sweep, case_name, image_ref)"                                          \
	" SELECT p.sweep, s.started, p.case_name, p.image_ref, p.attempt, r.image_id,"     \
	"  r.digest, r.gfx, r.device_id, r.driver, p.kernel_ms, p.graph_ms, p.total_ms,"   \
	"  p.wall_ms, s.started_us"                                                         \
	" FROM fin JOIN perf_samples p ON p.sweep = fin.sweep"                             \
	"  AND p.case_name = fin.case_name AND p.image_ref = fin.image_ref"                 \
	"  AND p.attempt = fin.attempt"                                                     \
	" JOIN s ON s.id = p.sweep"                                                         \
	" JOIN results r ON r.sweep = p.sweep AND r.case_name = p.case_name"              \
	"  AND r.image_ref = p.image_ref AND r.attempt = p.attempt"                        \
	" ORDER BY s.started_us " order ", p.sweep, p.case_name, p.image_ref, p.idx"

#define PERF_SQL_ORDERS(label, case_name) \
	{ PERF_SQL(label, case_name, "ASC"), PERF_SQL(label, case_name, "DESC") }

/* [label given][case given][newest first] */
static const char *const perf_sql[2][2][2] = {
	{ PERF_SQL_ORDERS("1 = 1", ""), PERF_SQL_ORDERS("1 = 1", "AND case_name = ?4") },
	{ PERF_SQL_ORDERS("label = ?1", ""), PERF_SQL_ORDERS("label = ?1", "AND case_name = ?4") },
};

static double ms_col(struct history_stmt *st, int i)
{
	return history_col_null(st, i) ? -1 : history_col_double(st, i);
}

int history_perf_samples(struct history_db *db, const struct history_perf_query *q,
			 history_perf_fn fn, void *ctx, struct error *err)
{
	cleanup_stmt struct history_stmt *st = NULL;
	int rc;

	if (history_sql_prepare(db, perf_sql[!!q->label][!!q->case_name][q->newest_first], &st,
				err) < 0)
		return -1;
	bind_text(st, 1, q->label);
	bind_text(st, 2, q->before);
	history_bind_int(st, 3, q->last > 0 ? q->last : 1);
	bind_text(st, 4, q->case_name);
	bind_text(st, 5, q->sweep);
	bind_text(st, 6, q->since);
	bind_text(st, 7, q->until);
	while ((rc = history_step(st)) == HISTORY_ROW) {
		struct history_perf_row row = {
			.sweep_id = col(st, 0), .started = history_col_int64(st, 1),
			.case_name = col(st, 2), .image = col(st, 3),
			.attempt = history_col_int(st, 4), .image_id = col(st, 5),
			.digest = col(st, 6), .gfx = col(st, 7),
			.device_id = history_col_null(st, 8)
					     ? -1 : (long)history_col_int64(st, 8),
			.driver = col(st, 9), .kernel_ms = ms_col(st, 10),
			.graph_ms = ms_col(st, 11), .total_ms = ms_col(st, 12),
			.wall_ms = ms_col(st, 13), .started_us = history_col_int64(st, 14),
		};

		if (fn(ctx, &row) < 0)
			return -1;
	}
	return rc == HISTORY_DONE ? 0 : history_sql_error(db, rc, "read perf samples", err);
}

/* ?1 the sweep. perf_warmup is set exactly when a result has --perf's
 * record (history_import.c). */
static const char sides_sql[] =
	"WITH fin AS (SELECT case_name, image_ref, MAX(attempt) AS attempt FROM results"
	"  WHERE sweep = ?1 AND perf_warmup IS NOT NULL GROUP BY case_name, image_ref)"
	" SELECT r.case_name, r.image_ref, r.attempt, r.image_id, r.digest, r.gfx,"
	"  r.device_id, r.driver, r.perf_note, p.idx, p.kernel_ms"
	" FROM fin JOIN results r ON r.sweep = ?1 AND r.case_name = fin.case_name"
	"  AND r.image_ref = fin.image_ref AND r.attempt = fin.attempt"
	" LEFT JOIN perf_samples p ON p.sweep = ?1 AND p.case_name = r.case_name"
	"  AND p.image_ref = r.image_ref AND p.attempt = r.attempt"
	" ORDER BY r.case_name, r.image_ref, p.idx";

int history_perf_sides(struct history_db *db, const char *sweep_id, history_perf_fn fn,
		       void *ctx, struct error *err)
{
	cleanup_stmt struct history_stmt *st = NULL;
	int rc;

	if (history_sql_prepare(db, sides_sql, &st, err) < 0)
		return -1;
	bind_text(st, 1, sweep_id);
	while ((rc = history_step(st)) == HISTORY_ROW) {
		struct history_perf_row row = {
			.sweep_id = sweep_id, .case_name = col(st, 0), .image = col(st, 1),
			.attempt = history_col_int(st, 2), .image_id = col(st, 3),
			.digest = col(st, 4), .gfx = col(st, 5),
			.device_id = history_col_null(st, 6)
					     ? -1 : (long)history_col_int64(st, 6),
			.driver = col(st, 7), .note = col(st, 8),
			.sample = !history_col_null(st, 9),
			.kernel_ms = ms_col(st, 10), .graph_ms = -1, .total_ms = -1, .wall_ms = -1,
		};

		if (fn(ctx, &row) < 0)
			return -1;
	}
	return rc == HISTORY_DONE ? 0 : history_sql_error(db, rc, "read perf samples", err);
}

/* One line of the series: a sweep, image and GPU product's kernel times. */
struct series_line {
	char *sweep, *image, *gfx, *image_id;
	long long started;
	long device_id;
	double ms[PERF_RUNS_MAX];
	size_t n;
};

struct series {
	struct series_line *v;
	size_t n, alloc;
};

static bool same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

static int series_add(void *ctx, const struct history_perf_row *row)
{
	struct series *s = ctx;
	struct series_line *l = s->n ? &s->v[s->n - 1] : NULL;

	if (!l || strcmp(l->sweep, row->sweep_id) || strcmp(l->image, row->image) ||
	    !same(l->gfx, row->gfx) || l->device_id != row->device_id) {
		if (s->n == s->alloc) {
			s->alloc = s->alloc ? 2 * s->alloc : 16;
			s->v = xrealloc(s->v, s->alloc * sizeof(*s->v));
		}
		l = &s->v[s->n++];
		memset(l, 0, sizeof(*l));
		l->sweep = xstrdup(row->sweep_id);
		l->image = xstrdup(row->image);
		l->gfx = xstrdup_or_null(row->gfx);
		l->image_id = xstrdup_or_null(row->image_id);
		l->started = row->started;
		l->device_id = row->device_id;
	}
	if (row->kernel_ms >= 0 && l->n < PERF_RUNS_MAX)
		l->ms[l->n++] = row->kernel_ms;
	return 0;
}

static void series_release(struct series *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->v[i].sweep);
		free(s->v[i].image);
		free(s->v[i].gfx);
		free(s->v[i].image_id);
	}
	free(s->v);
}

static void minmax(const double *x, size_t n, double *lo, double *hi)
{
	*lo = n ? x[0] : NAN;
	*hi = n ? x[0] : NAN;
	for (size_t i = 1; i < n; i++) {
		*lo = fmin(*lo, x[i]);
		*hi = fmax(*hi, x[i]);
	}
}

static void json_line(cJSON *arr, const struct series_line *l)
{
	cJSON *o = cJSON_CreateObject();
	double lo, hi;

	minmax(l->ms, l->n, &lo, &hi);
	json_add_str(o, "sweep", l->sweep, JSON_TEXT);
	cJSON_AddNumberToObject(o, "started", (double)l->started);
	json_add_str(o, "image", l->image, JSON_TEXT);
	json_add_str(o, "image_id", l->image_id, JSON_TEXT);
	json_add_str(o, "gfx", l->gfx, JSON_TEXT);
	if (l->device_id > 0)
		cJSON_AddNumberToObject(o, "device_id", (double)l->device_id);
	else
		cJSON_AddNullToObject(o, "device_id");
	cJSON_AddNumberToObject(o, "n", (double)l->n);
	if (l->n) {
		cJSON *ms = cJSON_AddArrayToObject(o, "kernel_ms");

		for (size_t i = 0; i < l->n; i++)
			cJSON_AddItemToArray(ms, cJSON_CreateNumber(l->ms[i]));
		cJSON_AddNumberToObject(o, "median_ms", perf_median(l->ms, l->n));
		cJSON_AddNumberToObject(o, "cv", perf_cv(l->ms, l->n));
		cJSON_AddNumberToObject(o, "min_ms", lo);
		cJSON_AddNumberToObject(o, "max_ms", hi);
	}
	cJSON_AddItemToArray(arr, o);
}

static void md_line(struct strbuf *out, const struct series_line *l)
{
	double lo, hi;

	minmax(l->ms, l->n, &lo, &hi);
	strbuf_addstr(out, "| ");
	text_markdown_cell(out, l->sweep);
	strbuf_addstr(out, " | ");
	text_markdown_cell(out, l->image);
	strbuf_addstr(out, " | ");
	text_markdown_cell(out, l->gfx ? l->gfx : "-");
	if (l->device_id > 0)
		strbuf_addf(out, " %ld", l->device_id);
	strbuf_addf(out, " | %zu | ", l->n);
	if (l->n)
		strbuf_addf(out, "%.1f | %.1f%% | %.1f | %.1f |\n", perf_median(l->ms, l->n),
			    100 * perf_cv(l->ms, l->n), lo, hi);
	else
		strbuf_addstr(out, "- | - | - | - |\n");
}

int history_perf_report(struct history_db *db, const char *label, const char *case_name,
			int last, bool json, struct strbuf *out, struct error *err)
{
	struct history_perf_query q = { .label = label, .case_name = case_name, .last = last };
	struct series s = { 0 };
	int rc = history_perf_samples(db, &q, series_add, &s, err);

	if (rc == 0 && json) {
		cleanup_cjson cJSON *arr = cJSON_CreateArray();
		cleanup_free char *text = NULL;

		for (size_t i = 0; i < s.n; i++)
			json_line(arr, &s.v[i]);
		text = cJSON_Print(arr);
		strbuf_addf(out, "%s\n", text);
	} else if (rc == 0) {
		strbuf_addstr(out, "# GPU time of ");
		text_markdown_cell(out, case_name);
		strbuf_addstr(out, "\n\nGPU kernel time (ms) of each sweep's samples, oldest first "
				   "(docs/perf.md).\n\n");
		if (!s.n)
			strbuf_addstr(out, "No samples recorded (sweeps with --perf N record them).\n");
		else
			strbuf_addstr(out, "| sweep | image | GPU | n | median | CV | min | max |\n"
					   "| --- | --- | --- | --- | --- | --- | --- | --- |\n");
		for (size_t i = 0; i < s.n; i++)
			md_line(out, &s.v[i]);
	}
	series_release(&s);
	return rc;
}

/* Each attempt's GPU kernel times summarized (history_perf_stats.h). */
#include "orchestrator/history/history_perf_stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "orchestrator/history/history_dialect.h"
#include "orchestrator/history/history_sql.h"
#include "orchestrator/perf/perf_stats.h"

#define STATS_NCOLS 11

size_t history_perf_stats_times(const double *ms, size_t n, double *x)
{
	size_t k = 0;

	for (size_t i = 0; i < n && k < PERF_SAMPLES_MAX; i++)
		if (ms[i] >= 0 && isfinite(ms[i]))
			x[k++] = ms[i];
	return k;
}

static void bind_nan_null(struct history_stmt *st, int i, double v)
{
	if (isnan(v))
		history_bind_null(st, i);
	else
		history_bind_double(st, i, v);
}

static void bind_stats(struct history_stmt *st, int o, const char *sweep_id,
		       const char *case_name, const char *image, int attempt,
		       const struct perf_summary *s)
{
	bind_text(st, o + 1, sweep_id);
	bind_text(st, o + 2, case_name);
	bind_text(st, o + 3, image);
	history_bind_int(st, o + 4, attempt);
	history_bind_int64(st, o + 5, (long long)s->n);
	history_bind_int64(st, o + 6, (long long)s->zeros);
	history_bind_double(st, o + 7, s->median);
	history_bind_double(st, o + 8, s->lo);
	history_bind_double(st, o + 9, s->hi);
	bind_nan_null(st, o + 10, s->measured_median);
	history_bind_double(st, o + 11, s->measured_cv);
}

void history_perf_stats_col(struct history_stmt *st, int first, struct perf_summary *out)
{
	*out = (struct perf_summary){
		.n = (size_t)history_col_int64(st, first),
		.zeros = (size_t)history_col_int64(st, first + 1),
		.median = history_col_double(st, first + 2),
		.lo = history_col_double(st, first + 3),
		.hi = history_col_double(st, first + 4),
		.measured_median = history_col_null(st, first + 5)
					   ? NAN : history_col_double(st, first + 5),
		.measured_cv = history_col_double(st, first + 6),
	};
}

/* r's summary; false when it has no kernel time to summarize. */
static bool result_summary(const struct case_result *r, struct perf_summary *out)
{
	double ms[PERF_RUNS_MAX], x[PERF_RUNS_MAX];
	size_t n, k;

	if (!r->perf)
		return false;
	n = perf_samples_kernel_ms(r->perf, ms);
	k = history_perf_stats_times(ms, n < PERF_RUNS_MAX ? n : PERF_RUNS_MAX, x);
	if (!k)
		return false;
	perf_summarize(x, k, out);
	return true;
}

int history_perf_stats_insert(struct history_db *db, const char *sweep_id,
			      const struct case_result *v, size_t n, struct error *err)
{
	cleanup_stmt struct history_stmt *st = NULL;
	cleanup_free struct perf_summary *s = xcalloc(n + 1, sizeof(*s));
	cleanup_free bool *has = xcalloc(n + 1, sizeof(*has));
	size_t rows = 0;
	int rc;

	for (size_t i = 0; i < n; i++)
		rows += has[i] = result_summary(&v[i], &s[i]);
	if (!rows)
		return 0;
	if (history_dialect_prepare_rows(db, HSQL_SAMPLE_STATS_HEAD, rows, STATS_NCOLS, &st, err) < 0)
		return -1;
	for (size_t i = 0, k = 0; i < n; i++)
		if (has[i])
			bind_stats(st, STATS_NCOLS * (int)k++, sweep_id, v[i].case_name, v[i].image,
				   v[i].attempt, &s[i]);
	if ((rc = history_step(st)) != HISTORY_DONE)
		return history_sql_error(db, rc, "write a GPU-time summary", err);
	return 0;
}

/* The backfill's summaries, written BACKFILL_ROWS to an insert: a round
 * trip a row was most of the step on a server. */
#define BACKFILL_ROWS 64

struct backfill {
	struct history_db *db;
	struct history_stmt *full; /* the insert of BACKFILL_ROWS rows */
	struct strbuf key[BACKFILL_ROWS]; /* sweep, case, image and attempt, each ended by a NUL */
	struct perf_summary sum[BACKFILL_ROWS];
	size_t n;
};

static void backfill_release(struct backfill *b)
{
	history_finalize(b->full);
	for (size_t i = 0; i < BACKFILL_ROWS; i++)
		strbuf_release(&b->key[i]);
}

static int backfill_flush(struct backfill *b, struct error *err)
{
	cleanup_stmt struct history_stmt *part = NULL;
	struct history_stmt *st;
	int rc;

	if (!b->n)
		return 0;
	if ((b->n != BACKFILL_ROWS || !b->full) &&
	    history_dialect_prepare_rows(b->db, HSQL_SAMPLE_STATS_HEAD, b->n, STATS_NCOLS,
					 b->n == BACKFILL_ROWS ? &b->full : &part, err) < 0)
		return -1;
	st = b->n == BACKFILL_ROWS ? b->full : part;
	history_reset(st);
	for (size_t i = 0; i < b->n; i++) {
		const char *sweep = b->key[i].buf, *case_name = sweep + strlen(sweep) + 1;
		const char *image = case_name + strlen(case_name) + 1;
		const char *attempt = image + strlen(image) + 1;

		bind_stats(st, STATS_NCOLS * (int)i, sweep, case_name, image, atoi(attempt),
			   &b->sum[i]);
	}
	b->n = 0;
	if ((rc = history_step(st)) != HISTORY_DONE)
		return history_sql_error(b->db, rc, "GPU-time summaries", err);
	return 0;
}

/* The attempt whose times are x, summarized and held (written when the
 * batch is full). */
static int backfill_add(struct backfill *b, const struct strbuf *key, const double *x, size_t n,
			struct error *err)
{
	if (b->n == BACKFILL_ROWS && backfill_flush(b, err) < 0)
		return -1;
	strbuf_reset(&b->key[b->n]);
	strbuf_add(&b->key[b->n], key->buf, key->len);
	perf_summarize(x, n, &b->sum[b->n++]);
	return 0;
}

int history_perf_stats_backfill(struct history_db *db, struct error *err)
{
	cleanup_stmt struct history_stmt *get = NULL;
	__attribute__((cleanup(backfill_release))) struct backfill b = { .db = db };
	cleanup_strbuf struct strbuf key = STRBUF_INIT, next = STRBUF_INIT;
	cleanup_free double *x = xmalloc(PERF_SAMPLES_MAX * sizeof(*x));
	size_t n = 0;
	int rc;

	for (size_t i = 0; i < BACKFILL_ROWS; i++)
		strbuf_init(&b.key[i], 0);
	if (history_sql_prepare(db, "SELECT sweep, case_name, image_ref, attempt, kernel_ms"
				" FROM perf_samples WHERE kernel_ms >= 0"
				" ORDER BY sweep, case_name, image_ref, attempt, idx", &get, err) < 0)
		return -1;
	history_many_rows(get);
	while ((rc = history_step(get)) == HISTORY_ROW) {
		strbuf_reset(&next);
		for (int c = 0; c < 4; c++) {
			strbuf_addstr(&next, col(get, c) ? col(get, c) : "");
			strbuf_addch(&next, '\0');
		}
		if (n && (next.len != key.len || memcmp(next.buf, key.buf, key.len))) {
			if (backfill_add(&b, &key, x, n, err) < 0)
				return -1;
			n = 0;
		}
		if (!n) {
			strbuf_reset(&key);
			strbuf_add(&key, next.buf, next.len);
		}
		if (n < PERF_SAMPLES_MAX)
			x[n++] = history_col_double(get, 4);
	}
	if (rc != HISTORY_DONE)
		return history_sql_error(db, rc, "GPU-time summaries", err);
	if (n && backfill_add(&b, &key, x, n, err) < 0)
		return -1;
	return backfill_flush(&b, err);
}

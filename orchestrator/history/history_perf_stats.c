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

static void bind_nan_null(struct history_stmt *st, int i, double v)
{
	if (isnan(v))
		history_bind_null(st, i);
	else
		history_bind_double(st, i, v);
}

/* One row of perf_sample_stats; its strings are the import's results',
 * or the step's own (backfill_clear frees them). */
struct stats_row {
	const char *sweep, *case_name, *image;
	int attempt;
	struct perf_summary sum;
};

/* v's n rows in one insert (the import's batch of results, the step's
 * batch of attempts: a round trip a row was most of the step on a
 * server). */
static int write_rows(struct history_db *db, const struct stats_row *v, size_t n,
		      struct error *err)
{
	cleanup_stmt struct history_stmt *st = NULL;
	int rc;

	if (!n)
		return 0;
	if (history_dialect_prepare_rows(db, HSQL_SAMPLE_STATS_HEAD, n, STATS_NCOLS, &st, err) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		int o = STATS_NCOLS * (int)i;

		bind_text(st, o + 1, v[i].sweep);
		bind_text(st, o + 2, v[i].case_name);
		bind_text(st, o + 3, v[i].image);
		history_bind_int(st, o + 4, v[i].attempt);
		history_bind_int64(st, o + 5, (long long)v[i].sum.n);
		history_bind_int64(st, o + 6, (long long)v[i].sum.zeros);
		history_bind_double(st, o + 7, v[i].sum.median);
		history_bind_double(st, o + 8, v[i].sum.lo);
		history_bind_double(st, o + 9, v[i].sum.hi);
		bind_nan_null(st, o + 10, v[i].sum.measured_median);
		history_bind_double(st, o + 11, v[i].sum.measured_cv);
	}
	if ((rc = history_step(st)) != HISTORY_DONE)
		return history_sql_error(db, rc, "write a GPU-time summary", err);
	return 0;
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

/* r's summary; false when it has no kernel time to summarize. The times
 * are perf_samples_kernel_ms's (at least 0 ms), finite, as the site reads
 * them back (kernel_ms >= 0: a time that is not one is stored NULL). */
static bool result_summary(const struct case_result *r, struct perf_summary *out)
{
	double ms[PERF_RUNS_MAX];
	size_t n, k = 0;

	if (!r->perf)
		return false;
	n = perf_samples_kernel_ms(r->perf, ms);
	for (size_t i = 0; i < n; i++)
		if (isfinite(ms[i]))
			ms[k++] = ms[i];
	if (!k)
		return false;
	perf_summarize(ms, k, out);
	return true;
}

int history_perf_stats_insert(struct history_db *db, const char *sweep_id,
			      const struct case_result *v, size_t n, struct error *err)
{
	cleanup_free struct stats_row *rows = xcalloc(n + 1, sizeof(*rows));
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		rows[k] = (struct stats_row){ .sweep = sweep_id, .case_name = v[i].case_name,
					      .image = v[i].image, .attempt = v[i].attempt };
		k += result_summary(&v[i], &rows[k].sum);
	}
	return write_rows(db, rows, k, err);
}

/* The step's attempts, summarized and written BACKFILL_ROWS at a time;
 * each row's strings its own. */
#define BACKFILL_ROWS 64

struct backfill {
	struct history_db *db;
	struct stats_row v[BACKFILL_ROWS];
	size_t n;
	double x[PERF_SAMPLES_MAX]; /* the attempt being read: its times so far */
	size_t n_x;
};

static void backfill_clear(struct backfill *b)
{
	for (size_t i = 0; i < b->n; i++) {
		free((char *)b->v[i].sweep);
		free((char *)b->v[i].case_name);
		free((char *)b->v[i].image);
	}
	b->n = 0;
}

static int backfill_flush(struct backfill *b, struct error *err)
{
	int rc = write_rows(b->db, b->v, b->n, err);

	backfill_clear(b);
	return rc;
}

/* The attempt being read (the last row held) is whole: summarized, and
 * the batch written when it is full. */
static int backfill_close(struct backfill *b, struct error *err)
{
	perf_summarize(b->x, b->n_x, &b->v[b->n - 1].sum);
	b->n_x = 0;
	return b->n == BACKFILL_ROWS ? backfill_flush(b, err) : 0;
}

/* st's row starts another attempt than the one being read. */
static bool another(const struct backfill *b, struct history_stmt *st)
{
	const struct stats_row *r = b->n ? &b->v[b->n - 1] : NULL;

	return !r || strcmp(r->sweep, col(st, 0)) || strcmp(r->case_name, col(st, 1)) ||
	       strcmp(r->image, col(st, 2)) || r->attempt != history_col_int(st, 3);
}

int history_perf_stats_backfill(struct history_db *db, struct error *err)
{
	cleanup_stmt struct history_stmt *get = NULL;
	cleanup_free struct backfill *b = xcalloc(1, sizeof(*b));
	int rc;

	b->db = db;
	if (history_sql_prepare(db, "SELECT sweep, case_name, image_ref, attempt, kernel_ms"
				" FROM perf_samples WHERE kernel_ms >= 0"
				" ORDER BY sweep, case_name, image_ref, attempt, idx", &get, err) < 0)
		return -1;
	history_many_rows(get);
	while ((rc = history_step(get)) == HISTORY_ROW) {
		if (another(b, get)) {
			if (b->n_x && backfill_close(b, err) < 0)
				goto fail;
			b->v[b->n++] = (struct stats_row){
				.sweep = xstrdup(col(get, 0)), .case_name = xstrdup(col(get, 1)),
				.image = xstrdup(col(get, 2)), .attempt = history_col_int(get, 3),
			};
		}
		if (b->n_x < PERF_SAMPLES_MAX)
			b->x[b->n_x++] = history_col_double(get, 4);
	}
	if (rc != HISTORY_DONE) {
		history_sql_error(db, rc, "GPU-time summaries", err);
		goto fail;
	}
	if (b->n_x && backfill_close(b, err) < 0)
		goto fail;
	return backfill_flush(b, err);
fail:
	backfill_clear(b);
	return -1;
}

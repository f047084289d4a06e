#include "orchestrator/site/site_query.h"

#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "orchestrator/history/history_dialect.h"
#include "orchestrator/history/history_query.h"

#define WINDOW_SQL                                                                        \
	"WITH w AS (SELECT id, started, folder, host FROM sweeps WHERE label = ?1"        \
	" AND (?3 IS NULL OR host = ?3) ORDER BY started DESC, id DESC LIMIT ?2)"

/* A label's window: ?1 label, ?2 its last sweeps, ?3 one host (NULL: any). */
static void bind_window(struct history_stmt *st, const char *label, int last, const char *host)
{
	history_bind_text(st, 1, label);
	history_bind_int(st, 2, last);
	history_bind_text(st, 3, host);
}

int site_query_labels(struct history_db *db, const char *only, const char *host,
		      struct strvec *labels, struct error *err)
{
	cleanup_stmt struct history_stmt *st = NULL;
	int rc;

	if (history_sql_prepare(db,
		    "SELECT DISTINCT label FROM sweeps WHERE (?1 IS NULL OR label = ?1)"
		    " AND (?2 IS NULL OR host = ?2) ORDER BY label",
		    &st, err) < 0)
		return -1;
	history_bind_text(st, 1, only);
	history_bind_text(st, 2, host);
	while ((rc = history_step(st)) == HISTORY_ROW)
		strvec_push(labels, history_col(st, 0));
	return rc == HISTORY_DONE ? 0 : history_sql_error(db, rc, "labels", err);
}

void site_window_release(struct site_window_sweep *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].id);
		free(v[i].folder);
		free(v[i].host);
	}
	free(v);
}

int site_query_window(struct history_db *db, const char *label, int last, const char *host,
		      struct site_window_sweep **v, size_t *n, struct error *err)
{
	cleanup_stmt struct history_stmt *st = NULL;
	size_t alloc = 0;
	int rc;

	*v = NULL;
	*n = 0;
	if (history_sql_prepare(db, WINDOW_SQL " SELECT id, started, folder, host FROM w"
				   " ORDER BY started, id", &st, err) < 0)
		return -1;
	bind_window(st, label, last, host);
	while ((rc = history_step(st)) == HISTORY_ROW) {
		if (*n == alloc)
			*v = xrealloc(*v, (alloc = alloc ? 2 * alloc : 64) * sizeof(**v));
		(*v)[(*n)++] = (struct site_window_sweep){
			.id = xstrdup(history_col(st, 0)), .started = history_col_int64(st, 1),
			.folder = history_col(st, 2) ? xstrdup(history_col(st, 2)) : NULL,
			.host = history_col(st, 3) ? xstrdup(history_col(st, 3)) : NULL,
		};
	}
	return rc == HISTORY_DONE ? 0 : history_sql_error(db, rc, "sweeps", err);
}

int site_query_case_count(struct history_db *db, const char *label, int last,
			  const char *host, size_t *n, struct error *err)
{
	cleanup_stmt struct history_stmt *st = NULL;
	int rc;

	/* DISTINCT in a subquery, not COUNT(DISTINCT): PostgreSQL then hashes
	 * the names (0.36 s at 600,000 results) where it sorted them (0.95 s). */
	if (history_sql_prepare(db, WINDOW_SQL " SELECT COUNT(*) FROM (SELECT DISTINCT r.case_name"
				   " FROM w JOIN results r ON r.sweep = w.id) d",
		    &st, err) < 0)
		return -1;
	bind_window(st, label, last, host);
	rc = history_step(st);
	*n = rc == HISTORY_ROW ? (size_t)history_col_int64(st, 0) : 0;
	return rc == HISTORY_ROW ? 0 : history_sql_error(db, rc, "rows", err);
}

int site_query_results(struct history_db *db, const char *label, int last, const char *host,
		       site_result_fn fn, void *ctx, struct error *err)
{
	cleanup_stmt struct history_stmt *st = NULL;
	int rc;

	if (history_sql_prepare(db,
		    WINDOW_SQL " SELECT r.case_name, r.image_ref, w.id, r.state, r.outcome,"
		    " r.fault_class, r.kernel, r.run_dir, r.image_id, " SITE_GPU_IDENTITY_SQL ","
		    " r.attempt, r.duration, r.digest, r.gfx, r.device_id, r.driver"
		    " FROM w JOIN results r ON r.sweep = w.id"
		    " ORDER BY r.case_name, r.image_ref, w.started, w.id, r.attempt",
		    &st, err) < 0)
		return -1;
	history_many_rows(st);
	bind_window(st, label, last, host);
	while ((rc = history_step(st)) == HISTORY_ROW) {
		struct site_result_row r = {
			.case_name = history_col(st, 0), .image = history_col(st, 1), .sweep_id = history_col(st, 2),
			.state = history_col(st, 3), .outcome = history_col(st, 4), .fault_class = history_col(st, 5),
			.kernel = history_col(st, 6), .run_dir = history_col(st, 7), .image_id = history_col(st, 8),
			.gpus = history_col(st, 9), .attempt = history_col_int(st, 10),
			.duration_s = history_col_double(st, 11), .digest = history_col(st, 12),
			.gfx = history_col(st, 13), .driver = history_col(st, 15),
			.device_id = history_col_null(st, 14)
					     ? -1 : (long)history_col_int64(st, 14),
		};

		if (fn(ctx, &r) < 0)
			return -1;
	}
	return rc == HISTORY_DONE ? 0 : history_sql_error(db, rc, "results", err);
}

struct bisect_row {
	struct site_bisect b;
	size_t order; /* newest first, as read */
};

static int by_case_then_newest(const void *x, const void *y)
{
	const struct bisect_row *a = x, *b = y;
	int c = strcmp(a->b.case_name, b->b.case_name);

	return c ? c : (a->order > b->order) - (a->order < b->order);
}

/* Sorted by case, each case's newest kept. */
static void keep_newest(struct bisect_row *rows, size_t n, struct site_bisects *out)
{
	if (n) /* qsort's array must not be NULL, even empty */
		qsort(rows, n, sizeof(*rows), by_case_then_newest);
	out->v = xcalloc(n + 1, sizeof(*out->v));
	for (size_t i = 0; i < n; i++) {
		if (out->n && !strcmp(out->v[out->n - 1].case_name, rows[i].b.case_name)) {
			free(rows[i].b.case_name);
			free(rows[i].b.line);
			continue;
		}
		out->v[out->n++] = rows[i].b;
	}
}

int site_query_bisects(struct history_db *db, struct site_bisects *out, struct error *err)
{
	cleanup_stmt struct history_stmt *st = NULL;
	cleanup_free struct bisect_row *rows = NULL;
	size_t n = 0, alloc = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	/* A bisection runs under a label of its own: the label is not asked. */
	if (history_sql_prepare(db, history_dialect_sql(db, HSQL_SITE_BISECT), &st, err) < 0)
		return -1;
	while ((rc = history_step(st)) == HISTORY_ROW) {
		if (n == alloc)
			rows = xrealloc(rows, (alloc = alloc ? 2 * alloc : 16) * sizeof(*rows));
		rows[n].b.case_name = xstrdup(history_col(st, 0) ? history_col(st, 0) : "");
		rows[n].b.line = xasprintf("first bad image %s (last good %s)",
					   history_col(st, 2) ? history_col(st, 2) : "?",
					   history_col(st, 1) ? history_col(st, 1) : "?");
		rows[n].order = n;
		n++;
	}
	keep_newest(rows, n, out);
	if (rc != HISTORY_DONE) {
		site_bisects_release(out);
		return history_sql_error(db, rc, "bisects", err);
	}
	return 0;
}

static int case_cmp(const void *key, const void *elem)
{
	return strcmp(key, ((const struct site_bisect *)elem)->case_name);
}

const char *site_bisects_find(const struct site_bisects *b, const char *case_name)
{
	const struct site_bisect *hit =
		b->n ? bsearch(case_name, b->v, b->n, sizeof(*b->v), case_cmp) : NULL;

	return hit ? hit->line : NULL;
}

void site_bisects_release(struct site_bisects *b)
{
	for (size_t i = 0; i < b->n; i++) {
		free(b->v[i].case_name);
		free(b->v[i].line);
	}
	free(b->v);
	memset(b, 0, sizeof(*b));
}

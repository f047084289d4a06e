#include "orchestrator/site/site_query.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#include <sys/types.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "orchestrator/history/history_sql.h"

#define WINDOW_SQL                                                                        \
	"WITH w AS (SELECT id, started, folder, host FROM sweeps WHERE label = ?1"        \
	" ORDER BY started DESC, id DESC LIMIT ?2)"

int site_query_labels(struct history_db *db, const char *only, struct strvec *labels,
		      struct error *err)
{
	cleanup_stmt sqlite3_stmt *st = NULL;
	int rc;

	if (history_sql_prepare(db,
		    "SELECT DISTINCT label FROM sweeps WHERE ?1 IS NULL OR label = ?1"
		    " ORDER BY label",
		    &st, err) < 0)
		return -1;
	bind_text(st, 1, only);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		strvec_push(labels, col(st, 0));
	return rc == SQLITE_DONE ? 0 : history_sql_error(db, rc, "labels", err);
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

int site_query_window(struct history_db *db, const char *label, int last,
		      struct site_window_sweep **v, size_t *n, struct error *err)
{
	cleanup_stmt sqlite3_stmt *st = NULL;
	size_t alloc = 0;
	int rc;

	*v = NULL;
	*n = 0;
	if (history_sql_prepare(db, WINDOW_SQL " SELECT id, started, folder, host FROM w"
				   " ORDER BY started, id", &st, err) < 0)
		return -1;
	bind_text(st, 1, label);
	sqlite3_bind_int(st, 2, last);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (*n == alloc)
			*v = xrealloc(*v, (alloc = alloc ? 2 * alloc : 64) * sizeof(**v));
		(*v)[(*n)++] = (struct site_window_sweep){
			.id = xstrdup(col(st, 0)), .started = sqlite3_column_int64(st, 1),
			.folder = col(st, 2) ? xstrdup(col(st, 2)) : NULL,
			.host = col(st, 3) ? xstrdup(col(st, 3)) : NULL,
		};
	}
	return rc == SQLITE_DONE ? 0 : history_sql_error(db, rc, "sweeps", err);
}

int site_query_case_count(struct history_db *db, const char *label, int last, size_t *n,
			 struct error *err)
{
	cleanup_stmt sqlite3_stmt *st = NULL;
	int rc;

	if (history_sql_prepare(db, WINDOW_SQL " SELECT COUNT(DISTINCT r.case_name) FROM w"
				   " JOIN results r ON r.sweep = w.id",
		    &st, err) < 0)
		return -1;
	bind_text(st, 1, label);
	sqlite3_bind_int(st, 2, last);
	rc = sqlite3_step(st);
	*n = rc == SQLITE_ROW ? (size_t)sqlite3_column_int64(st, 0) : 0;
	return rc == SQLITE_ROW ? 0 : history_sql_error(db, rc, "rows", err);
}

/* One sweep's results in case order, on the primary key alone: no sort. */
#define SWEEP_RESULTS_SQL                                                                  \
	"SELECT r.case_name, r.image_ref, r.state, r.outcome, r.fault_class, r.kernel,"    \
	" r.run_dir, r.image_id, " SITE_GPU_IDENTITY_SQL ", r.attempt, r.duration,"        \
	" r.digest, r.gfx, r.device_id, r.driver FROM results r WHERE r.sweep = ?1"        \
	" ORDER BY r.case_name, r.image_ref, r.attempt"

struct sweep_stream {
	sqlite3_stmt **st;
	bool *live;
	size_t n;
};

static void streams_release(struct sweep_stream *s)
{
	for (size_t i = 0; i < s->n; i++)
		sqlite3_finalize(s->st[i]);
	free(s->st);
	free(s->live);
}

static int stream_step(struct history_db *db, struct sweep_stream *s, size_t i, struct error *err)
{
	int rc = sqlite3_step(s->st[i]);

	s->live[i] = rc == SQLITE_ROW;
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : history_sql_error(db, rc, "results", err);
}

/* The smallest (case, image) at the head of a stream, copied: stepping
 * frees the columns. 0: every stream is done. */
static int least_key(struct sweep_stream *s, struct strbuf *case_name, struct strbuf *image)
{
	ssize_t best = -1;

	for (size_t i = 0; i < s->n; i++) {
		int c;

		if (!s->live[i])
			continue;
		/* Both orders are SQLite's BINARY collation, strcmp's. */
		if (best < 0 || (c = strcmp(col(s->st[i], 0), col(s->st[best], 0))) < 0 ||
		    (c == 0 && strcmp(col(s->st[i], 1), col(s->st[best], 1)) < 0))
			best = (ssize_t)i;
	}
	if (best < 0)
		return 0;
	strbuf_reset(case_name);
	strbuf_addstr(case_name, col(s->st[best], 0));
	strbuf_reset(image);
	strbuf_addstr(image, col(s->st[best], 1));
	return 1;
}

static bool at_key(sqlite3_stmt *st, const struct strbuf *case_name, const struct strbuf *image)
{
	return !strcmp(col(st, 0), case_name->buf) && !strcmp(col(st, 1), image->buf);
}

/* The window's sweeps each read in case order and merged here, sweep by
 * sweep within a (case, image): one ORDER BY over the window sorted every
 * result through a temporary B-tree that spilled to disk, about half of a
 * night's site. */
int site_query_results(struct history_db *db, const struct site_window_sweep *win, size_t n_win,
		       site_result_fn fn, void *ctx, struct error *err)
{
	struct sweep_stream s = { xcalloc(n_win + 1, sizeof(*s.st)), xcalloc(n_win + 1, sizeof(bool)),
				  n_win };
	cleanup_strbuf struct strbuf case_name = STRBUF_INIT, image = STRBUF_INIT;
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < n_win; i++) {
		rc = history_sql_prepare(db, SWEEP_RESULTS_SQL, &s.st[i], err);
		if (rc == 0) {
			bind_text(s.st[i], 1, win[i].id);
			rc = stream_step(db, &s, i, err);
		}
	}
	while (rc == 0 && least_key(&s, &case_name, &image))
		for (size_t i = 0; rc == 0 && i < n_win; i++)
			while (rc == 0 && s.live[i] && at_key(s.st[i], &case_name, &image)) {
				sqlite3_stmt *st = s.st[i];
				struct site_result_row r = {
					.case_name = col(st, 0), .image = col(st, 1),
					.sweep_id = win[i].id, .state = col(st, 2),
					.outcome = col(st, 3), .fault_class = col(st, 4),
					.kernel = col(st, 5), .run_dir = col(st, 6),
					.image_id = col(st, 7), .gpus = col(st, 8),
					.attempt = sqlite3_column_int(st, 9),
					.duration_s = sqlite3_column_double(st, 10),
					.digest = col(st, 11), .gfx = col(st, 12),
					.driver = col(st, 14),
					.device_id = sqlite3_column_type(st, 13) == SQLITE_NULL
							     ? -1 : (long)sqlite3_column_int64(st, 13),
				};

				rc = fn(ctx, &r) < 0 ? -1 : stream_step(db, &s, i, err);
			}
	streams_release(&s);
	return rc;
}

int site_query_bisect(struct history_db *db, sqlite3_stmt **st, const char *case_name,
		      char **out, struct error *err)
{
	int rc;

	/* The newest bisection that found a first bad image for this case (a
	 * bisection runs under a label of its own, so the label is not asked).
	 * Prepared once per site: parsing it was most of a case's cost. */
	*out = NULL;
	if (!*st && history_sql_prepare(db,
		    "SELECT b.last_good, b.first_bad FROM bisects b,"
		    " json_each(b.answer, '$.first_bad.cases') k"
		    " WHERE b.verdict = 'found' AND json_valid(b.answer)"
		    " AND json_extract(k.value, '$.case') = ?1"
		    " ORDER BY b.finished DESC LIMIT 1",
		    st, err) < 0)
		return -1;
	sqlite3_reset(*st);
	bind_text(*st, 1, case_name);
	rc = sqlite3_step(*st);
	if (rc == SQLITE_ROW) {
		*out = xasprintf("first bad image %s (last good %s)",
				 col(*st, 1) ? col(*st, 1) : "?", col(*st, 0) ? col(*st, 0) : "?");
		rc = SQLITE_DONE;
	}
	sqlite3_reset(*st);
	return rc == SQLITE_DONE ? 0 : history_sql_error(db, rc, "bisects", err);
}

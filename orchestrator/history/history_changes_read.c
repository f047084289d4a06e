/* The change-point step's reads (history_changes_read.h): tonight's
 * series in the database's order, then per page of them one statement for
 * their nights and one for their stored change points, both in that
 * order, so each row is matched to its series by walking forward. */
#include "orchestrator/history/history_changes_read.h"

#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "orchestrator/history/history_dialect.h"
#include "orchestrator/history/history_sql.h"

/* Series per page: a page's nights are read whole (a server sends them in
 * one answer), at most this many times PERF_CP_NIGHTS rows. */
#define CP_PAGE 256

#define ORDER_T " ORDER BY t.case_name, t.image_ref, t.gfx, t.device_id"

/* ?1 label, ?2 tonight, ?3 tonight's start: tonight's series' stored
 * change points up to tonight, in the order of the series. */
static const char changes_sql[] =
	"SELECT c.case_name, c.image_ref, c.gfx, c.device_id, c.started_us, c.sweep,"
	" c.found_sweep FROM perf_medians t JOIN perf_changes c ON c.label = ?1"
	" AND c.case_name = t.case_name AND c.image_ref = t.image_ref AND c.gfx = t.gfx"
	" AND c.device_id = t.device_id AND c.started_us <= ?3"
	" WHERE t.sweep = ?2 AND t.label = ?1" ORDER_T ", c.started_us, c.sweep";

static int read_series(struct cp_reader *r, struct error *err)
{
	cleanup_stmt struct history_stmt *q = NULL;
	size_t alloc = 0;
	int rc;

	if (history_sql_prepare(r->db, "SELECT t.case_name, t.image_ref, t.gfx, t.device_id"
				" FROM perf_medians t WHERE t.sweep = ?1 AND t.label = ?2" ORDER_T,
				&q, err) < 0)
		return -1;
	bind_text(q, 1, r->tonight);
	bind_text(q, 2, r->label);
	while ((rc = history_step(q)) == HISTORY_ROW) {
		if (r->n == alloc)
			r->v = xrealloc(r->v, (alloc = alloc ? 2 * alloc : 64) * sizeof(*r->v));
		r->v[r->n++] = (struct cp_series){ xstrdup(col(q, 0)), xstrdup(col(q, 1)),
						   xstrdup(col(q, 2)), history_col_int64(q, 3) };
	}
	return rc == HISTORY_DONE ? 0 : history_sql_error(r->db, rc, "read nightly medians", err);
}

static int read_start(struct cp_reader *r, struct error *err)
{
	cleanup_stmt struct history_stmt *q = NULL;
	int rc;

	if (history_sql_prepare(r->db, "SELECT COALESCE(started_us, started * 1000000)"
				" FROM sweeps WHERE id = ?1", &q, err) < 0)
		return -1;
	bind_text(q, 1, r->tonight);
	if ((rc = history_step(q)) != HISTORY_ROW)
		return history_sql_error(r->db, rc, "read the sweep's start", err);
	r->tonight_us = history_col_int64(q, 0);
	return 0;
}

static bool same_series(struct history_stmt *q, const struct cp_series *s)
{
	const char *c = col(q, 0), *i = col(q, 1), *g = col(q, 2);

	return c && i && g && !strcmp(c, s->case_name) && !strcmp(i, s->image) &&
	       !strcmp(g, s->gfx) && history_col_int64(q, 3) == s->device_id;
}

/* The series of q's row (its first 4 columns): the first from *k on, in
 * [*k, to), as both are in the database's order; -1 for none. */
static long series_of(struct cp_reader *r, struct history_stmt *q, size_t *k, size_t to)
{
	for (size_t i = *k; i < to; i++)
		if (same_series(q, &r->v[i]))
			return (long)(*k = i);
	return -1;
}

static int read_stored(struct cp_reader *r, struct error *err)
{
	cleanup_stmt struct history_stmt *q = NULL;
	size_t k = 0, alloc = 0;
	long i;
	int rc;

	if (history_sql_prepare(r->db, changes_sql, &q, err) < 0)
		return -1;
	bind_text(q, 1, r->label);
	bind_text(q, 2, r->tonight);
	history_bind_int64(q, 3, r->tonight_us);
	while ((rc = history_step(q)) == HISTORY_ROW) {
		if ((i = series_of(r, q, &k, r->n)) < 0)
			continue;
		if (r->n_old == alloc)
			r->old = xrealloc(r->old, (alloc = alloc ? 2 * alloc : 64) * sizeof(*r->old));
		r->old[r->n_old++] = (struct cp_stored){ (size_t)i, history_col_int64(q, 4),
							 xstrdup(col(q, 5)), xstrdup(col(q, 6)) };
	}
	return rc == HISTORY_DONE ? 0 : history_sql_error(r->db, rc, "read change points", err);
}

int history_cp_reader_open(struct cp_reader *r, struct history_db *db, const char *label,
			   const char *tonight, struct error *err)
{
	*r = (struct cp_reader){ .db = db, .label = label, .tonight = tonight };
	if (read_series(r, err) < 0)
		return -1;
	if (!r->n)
		return 0;
	if (read_start(r, err) < 0 || read_stored(r, err) < 0 ||
	    history_sql_prepare(db, history_dialect_sql(db, HSQL_CP_NIGHTS), &r->medians, err) < 0)
		return -1;
	r->page = xcalloc(CP_PAGE, sizeof(*r->page));
	return 0;
}

static void page_clear(struct cp_nights *nt, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < nt[i].n; j++)
			free(nt[i].sweep[j]);
		nt[i].n = 0;
		strvec_clear(&nt[i].old);
	}
}

void history_cp_reader_close(struct cp_reader *r)
{
	if (r->page)
		page_clear(r->page, CP_PAGE);
	free(r->page);
	history_finalize(r->medians);
	for (size_t i = 0; i < r->n_old; i++) {
		free(r->old[i].sweep);
		free(r->old[i].found);
	}
	free(r->old);
	for (size_t i = 0; i < r->n; i++) {
		free(r->v[i].case_name);
		free(r->v[i].image);
		free(r->v[i].gfx);
	}
	free(r->v);
	*r = (struct cp_reader){ 0 };
}

static void bind_series(struct history_stmt *q, int at, const struct cp_series *s)
{
	bind_text(q, at, s->case_name);
	bind_text(q, at + 1, s->image);
	bind_text(q, at + 2, s->gfx);
	history_bind_int64(q, at + 3, s->device_id);
}

static void bind_page(struct cp_reader *r, struct history_stmt *q, size_t from, size_t to)
{
	history_reset(q);
	bind_text(q, 1, r->label);
	bind_text(q, 2, r->tonight);
	history_bind_int64(q, 3, r->tonight_us);
	history_bind_int(q, 4, PERF_CP_NIGHTS);
	bind_series(q, 5, &r->v[from]);
	bind_series(q, 9, &r->v[to - 1]);
}

/* A night, oldest first; the oldest is dropped past PERF_CP_NIGHTS (nights
 * that share a start are all read on SQLite: the last ones are kept). */
static void night_add(struct cp_nights *nt, const char *sweep, long long started_us, double med)
{
	size_t last = PERF_CP_NIGHTS - 1;

	if (nt->n == PERF_CP_NIGHTS) {
		free(nt->sweep[0]);
		memmove(nt->sweep, nt->sweep + 1, last * sizeof(nt->sweep[0]));
		memmove(nt->med, nt->med + 1, last * sizeof(nt->med[0]));
		memmove(nt->started_us, nt->started_us + 1, last * sizeof(nt->started_us[0]));
		nt->n--;
	}
	nt->sweep[nt->n] = xstrdup(sweep);
	nt->started_us[nt->n] = started_us;
	nt->med[nt->n++] = med;
}

/* The page's nights, then its stored change points after each series'
 * first night. */
static int read_page(struct cp_reader *r, size_t from, size_t to, struct error *err)
{
	struct history_stmt *m = r->medians;
	size_t k = from;
	long i;
	int rc;

	bind_page(r, m, from, to);
	while ((rc = history_step(m)) == HISTORY_ROW)
		if ((i = series_of(r, m, &k, to)) >= 0)
			night_add(&r->page[i - (long)from], col(m, 4), history_col_int64(m, 5),
				  history_col_double(m, 6));
	if (rc != HISTORY_DONE)
		return history_sql_error(r->db, rc, "read nightly medians", err);
	for (; r->next_old < r->n_old && r->old[r->next_old].series < to; r->next_old++) {
		const struct cp_stored *o = &r->old[r->next_old];
		struct cp_nights *nt = &r->page[o->series - from];

		if (o->series >= from && nt->n && o->started_us > nt->started_us[0]) {
			strvec_push(&nt->old, o->sweep);
			strvec_push(&nt->old, o->found);
		}
	}
	return 0;
}

int history_cp_reader_each(struct cp_reader *r, cp_series_fn fn, void *ctx, struct error *err)
{
	for (size_t from = 0; from < r->n; from += CP_PAGE) {
		size_t to = from + CP_PAGE < r->n ? from + CP_PAGE : r->n;
		int rc = read_page(r, from, to, err);

		for (size_t i = from; rc == 0 && i < to; i++)
			rc = fn(ctx, &r->v[i], &r->page[i - from], err);
		page_clear(r->page, to - from);
		if (rc < 0)
			return -1;
	}
	return 0;
}

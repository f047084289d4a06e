/* The history site's GPU time from the history database
 * (orchestrator/site/site_perf_gen.h). */
#include "orchestrator/site/site_perf_gen.h"

#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "orchestrator/history/history_changes.h"
#include "orchestrator/history/history_perf_stats.h"
#include "orchestrator/history/history_query.h"
#include "orchestrator/perf/perf_stats.h"
#include "orchestrator/site/site_gen.h"

/* One sweep's nights in case order, on the primary key alone. */
const char site_perf_sweep_sql[] =
	"SELECT case_name, image_ref, attempt, n, zeros, median_ms, lo_ms, hi_ms,"
	" measured_median_ms, measured_cv FROM perf_sample_stats WHERE sweep = ?1"
	" ORDER BY case_name, image_ref, attempt";

/* One night's kernel times as its summary counted them (at least 0 ms,
 * at most PERF_SAMPLES_MAX), on the primary key alone. */
const char site_perf_samples_sql[] =
	"SELECT kernel_ms FROM perf_samples WHERE sweep = ?1 AND case_name = ?2"
	" AND image_ref = ?3 AND attempt = ?4 AND kernel_ms >= 0 ORDER BY idx"
	" LIMIT ?5";

void site_perf_result(struct site_perf_label *l, size_t col, const struct site_result_row *r)
{
	if (l->n_res == l->alloc_res)
		l->res = xrealloc(l->res, (l->alloc_res = l->alloc_res ? 2 * l->alloc_res : 64) *
						  sizeof(*l->res));
	l->res[l->n_res++] = (struct site_perf_result){
		.col = col, .attempt = r->attempt, .device_id = r->device_id,
		.image = r->image, .image_id = r->image_id, .digest = r->digest, .gfx = r->gfx,
		.driver = r->driver,
	};
}


static const struct site_perf_result *result_of(const struct site_perf_label *l, size_t col,
						const char *image, int attempt)
{
	for (size_t i = 0; i < l->n_res; i++)
		if (l->res[i].col == col && l->res[i].attempt == attempt &&
		    !strcmp(l->res[i].image, image))
			return &l->res[i];
	return NULL;
}

static int step(struct history_db *db, struct site_perf_label *l, size_t i, struct error *err)
{
	int rc = history_step(l->st[i]);

	l->live[i] = rc == HISTORY_ROW;
	return rc == HISTORY_ROW || rc == HISTORY_DONE ? 0
						     : history_sql_error(db, rc, "perf samples", err);
}

static int cp_add(void *ctx, const struct history_change_row *r)
{
	struct site_perf_cp cp = {
		.case_name = r->case_name, .image = r->image, .gfx = r->gfx, .sweep = r->sweep,
		.found = r->found_sweep, .image_id_before = r->image_id_before,
		.image_id_after = r->image_id_after, .device_id = r->device_id,
		.ratio = r->ratio, .p = r->p, .median_before = r->median_before,
		.median_after = r->median_after, .accepted = r->accepted,
	};

	site_perf_cps_add(ctx, &cp);
	return 0;
}

static int open_label(struct history_db *db, struct site_perf_label *l, const char *label,
		      const struct site_window_sweep *win, size_t n_win, struct error *err)
{
	struct history_change_query q = { .label = label };

	l->opened = true;
	/* A label's change points are few (a case's level moves seldom): all
	 * of them, read once, in case order. */
	if (history_changes_each(db, &q, cp_add, &l->cps, err) < 0)
		return -1;
	l->st = xcalloc(n_win + 1, sizeof(*l->st));
	l->live = xcalloc(n_win + 1, sizeof(bool));
	l->n = n_win;
	l->c.last_col = n_win ? n_win - 1 : 0;
	l->db = db;
	if (history_sql_prepare(db, site_perf_samples_sql, &l->samples, err) < 0)
		return -1;
	for (size_t i = 0; i < n_win; i++) {
		if (history_sql_prepare(db, site_perf_sweep_sql, &l->st[i], err) < 0)
			return -1;
		history_many_rows(l->st[i]);
		history_bind_text(l->st[i], 1, win[i].id);
		if (step(db, l, i, err) < 0)
			return -1;
	}
	return 0;
}

/* One night's kernel times, for a comparison's U test. */
static int load_samples(void *ctx, const struct site_perf_series *s, struct site_perf_night *n,
			struct error *err)
{
	struct site_perf_label *l = ctx;
	size_t alloc = 0;
	int rc;

	history_reset(l->samples);
	history_bind_text(l->samples, 1, n->sweep_id);
	history_bind_text(l->samples, 2, l->case_name);
	history_bind_text(l->samples, 3, s->image);
	history_bind_int(l->samples, 4, n->attempt);
	history_bind_int64(l->samples, 5, PERF_SAMPLES_MAX);
	n->n_ms = 0;
	while ((rc = history_step(l->samples)) == HISTORY_ROW) {
		if (n->n_ms == alloc)
			n->ms = xrealloc(n->ms, (alloc = alloc ? 2 * alloc : 8) * sizeof(double));
		n->ms[n->n_ms++] = history_col_double(l->samples, 0);
	}
	return rc == HISTORY_DONE ? 0 : history_sql_error(l->db, rc, "perf samples", err);
}

static const char *text(struct history_stmt *st, int i)
{
	return history_col(st, i);
}

int site_perf_for_case(struct history_db *db, struct site_perf_label *l, const char *label,
		       const struct site_window_sweep *win, size_t n_win, const char *case_name,
		       const char *case_page, struct site_perf_changes *changes,
		       const struct site_perf_case **out, struct error *err)
{
	static const struct perf_rule rule = { PERF_THRESHOLD_DEFAULT, PERF_ALPHA_DEFAULT,
					       PERF_MAX_CV_DEFAULT };

	*out = NULL;
	if (!l->opened && open_label(db, l, label, win, n_win, err) < 0)
		return -1;
	site_perf_case_reset(&l->c);
	for (size_t i = 0; i < l->n; i++) {
		struct history_stmt *st = l->st[i];
		int c;

		/* Both orders are SQLite's BINARY collation, strcmp's. */
		while (l->live[i] && (c = strcmp(text(st, 0), case_name)) <= 0) {
			const struct site_perf_result *r =
				c ? NULL : result_of(l, i, text(st, 1), history_col_int(st, 2));

			if (r) {
				struct site_perf_row row = {
					.image = r->image, .attempt = r->attempt,
					.image_id = r->image_id, .digest = r->digest, .gfx = r->gfx,
					.device_id = r->device_id, .driver = r->driver,
					.sweep_id = win[i].id, .col = i, .started = win[i].started,
				};

				history_perf_stats_col(st, 3, &row.sum);
				site_perf_case_add(&l->c, &row);
			}
			if (step(db, l, i, err) < 0)
				return -1;
		}
	}
	l->n_res = 0;
	if (!l->c.n)
		return 0;
	changes->any = true;
	l->case_name = case_name;
	if (site_perf_case_finish(&l->c, &rule, load_samples, l, err) < 0)
		return -1;
	site_perf_case_mark(&l->c, &l->cps, case_name, n_win ? win[n_win - 1].id : NULL, label,
			    case_page, changes);
	site_perf_changes_add(changes, label, case_name, case_page, &l->c);
	*out = &l->c;
	return 0;
}

void site_perf_label_close(struct site_perf_label *l)
{
	for (size_t i = 0; i < l->n; i++)
		history_finalize(l->st[i]);
	free(l->st);
	free(l->live);
	history_finalize(l->samples);
	site_perf_case_release(&l->c);
	site_perf_cps_release(&l->cps);
	l->n_res = 0;
	free(l->res);
	memset(l, 0, sizeof(*l));
}

int site_perf_write(struct site_gen *g)
{
	site_perf_changes_sort(&g->perf);
	if (!g->perf.any)
		return 0;
	strbuf_reset(&g->page);
	if (site_perf_changes_html(&g->perf, g->n_labels, &g->page, g->err) < 0)
		return -1;
	return site_gen_write(g, SITE_PERF_PAGE);
}

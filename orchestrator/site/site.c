/* `history site DIR`: the label pass. Results come in grid order (case,
 * image, sweep, attempt); a row's cells are final when the next row
 * starts, a case's timeline when the next case does, a grid page when
 * SITE_GRID_CASES cases are done. */
#include "orchestrator/site/site.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "common/intern.h"
#include "orchestrator/history/history_query.h"
#include "orchestrator/site/site_gen.h"
#include "orchestrator/site/site_perf_gen.h"
#include "orchestrator/site/site_runs.h"
#include "orchestrator/site/site_signatures.h"

struct label_pass {
	struct site_gen *g;
	const char *label;
	struct site_window_sweep *win;
	size_t n_win;
	struct site_sweep_col *cols;
	char **folder;              /* per sweep: its canonical folder when it is ours */
	struct site_runs *runs;     /* per sweep: its run folders, listed once */
	struct site_index_label *idx;
	unsigned *col_pass, *col_total;
	/* the grid page being filled */
	struct site_grid_row *rows;
	size_t n_rows, alloc_rows, page_cases, first_case, case_page, n_cases_total;
	struct strvec page_strings;
	/* the row and the case being read */
	bool *flaky, *failed;       /* per sweep */
	/* A row's statuses, worked out when it is read (per sweep) */
	enum site_outcome *row_o;
	enum site_status *row_s;
	bool *row_first;
	/* The cells of rows already written, for the next rows: an
	 * allocation a row was a large request, and a large request makes
	 * malloc consolidate every small block freed since (most of the 5%
	 * malloc_consolidate took in a profile of a night's site). */
	struct site_grid_cell **spare;
	size_t n_spare, alloc_spare;
	int col;                    /* the row's last sweep, -1: none */
	struct site_timeline_entry *tl;
	int *tl_col;
	size_t n_tl, alloc_tl, tl_row;
	struct strvec case_strings;
	/* What results repeat (image refs and IDs, GPU lists, GPU products,
	 * fault classes, kernels), once for the label: they were copied per
	 * result, ten allocations a result with the GPU-time pass's. */
	struct intern strings;
	struct site_perf_label perf;
};

static const char *keep_str(struct strvec *v, const char *s)
{
	if (!s)
		return NULL;
	strvec_push(v, s);
	return v->v[v->n - 1];
}

/* A folder the site may link to: a directory of the caller's, by its
 * canonical path. */
static char *our_folder(const char *path)
{
	struct stat st;

	if (!path || lstat(path, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != getuid())
		return NULL;
	return realpath(path, NULL);
}

static const char *run_href(struct label_pass *p, size_t col, const char *run_dir)
{
	cleanup_free char *path = NULL, *real = NULL;
	cleanup_strbuf struct strbuf href = STRBUF_INIT;
	const char *base = p->folder[col];
	size_t n;

	if (!base || !site_run_dir_ok(run_dir))
		return NULL;
	switch (site_runs_href(&p->runs[col], run_dir, &href)) {
	case 1:
		return keep_str(&p->case_strings, href.buf);
	case 0:
		return NULL;
	}
	path = xasprintf("%s/%s", base, run_dir);
	real = our_folder(path);
	n = strlen(base);
	if (!real || strncmp(real, base, n) || real[n] != '/')
		return NULL;
	site_relative_href(p->g->dir.path, real, &href);
	return keep_str(&p->case_strings, href.buf);
}

static void open_window(struct label_pass *p)
{
	p->cols = xcalloc(p->n_win + 1, sizeof(*p->cols));
	p->folder = xcalloc(p->n_win + 1, sizeof(char *));
	p->runs = xcalloc(p->n_win + 1, sizeof(*p->runs));
	p->flaky = xcalloc(p->n_win + 1, sizeof(bool));
	p->failed = xcalloc(p->n_win + 1, sizeof(bool));
	p->col_pass = xcalloc(p->n_win + 1, sizeof(unsigned));
	p->col_total = xcalloc(p->n_win + 1, sizeof(unsigned));
	p->row_o = xcalloc(p->n_win + 1, sizeof(*p->row_o));
	p->row_s = xcalloc(p->n_win + 1, sizeof(*p->row_s));
	p->row_first = xcalloc(p->n_win + 1, sizeof(bool));
	for (size_t i = 0; i < p->n_win; i++) {
		cleanup_free char *report = NULL;
		struct stat st;

		p->cols[i].id = p->win[i].id;
		p->cols[i].started = p->win[i].started;
		p->folder[i] = our_folder(p->win[i].folder);
		if (!p->folder[i])
			continue;
		site_runs_list(&p->runs[i], p->folder[i], p->g->dir.path);
		report = xasprintf("%s/report.html", p->folder[i]);
		if (lstat(report, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == getuid()) {
			cleanup_strbuf struct strbuf href = STRBUF_INIT;

			site_relative_href(p->g->dir.path, report, &href);
			p->cols[i].report_href = keep_str(&p->g->keep, href.buf);
		}
	}
}

static void close_window(struct label_pass *p)
{
	for (size_t i = 0; i < p->n_win; i++) {
		free(p->folder[i]);
		site_runs_release(&p->runs[i]);
	}
	free(p->folder);
	free(p->runs);
	free(p->cols);
	free(p->flaky);
	free(p->failed);
	free(p->col_pass);
	free(p->col_total);
	free(p->row_o);
	free(p->row_s);
	free(p->row_first);
	for (size_t i = 0; i < p->n_spare; i++)
		free(p->spare[i]);
	free(p->spare);
}

/* The rows of the page are written: their cells go to the spares. */
static void release_rows(struct label_pass *p)
{
	if (p->n_spare + p->n_rows > p->alloc_spare) {
		p->alloc_spare = p->n_spare + p->n_rows;
		p->spare = xrealloc(p->spare, p->alloc_spare * sizeof(*p->spare));
	}
	for (size_t i = 0; i < p->n_rows; i++)
		p->spare[p->n_spare++] = (struct site_grid_cell *)p->rows[i].cells;
	p->n_rows = 0;
}

/* Sweep page sp of n: aligned on the newest sweep, so the last page is
 * full and the first may not be. */
static void sweep_page(size_t n_win, size_t sp, size_t n_pages, size_t *col0, size_t *n)
{
	size_t end = n_win - (n_pages - 1 - sp) * SITE_GRID_SWEEPS;

	*col0 = end > SITE_GRID_SWEEPS ? end - SITE_GRID_SWEEPS : 0;
	*n = end - *col0;
}

static size_t sweep_pages(size_t n_win)
{
	return n_win ? (n_win + SITE_GRID_SWEEPS - 1) / SITE_GRID_SWEEPS : 1;
}

static int flush_page(struct label_pass *p)
{
	struct site_gen *g = p->g;
	size_t n_sp = sweep_pages(p->n_win);
	struct site_grid grid = {
		.label = p->label, .sweeps = p->cols, .n_sweeps = p->n_win, .rows = p->rows,
		.n_rows = p->n_rows, .n_sweep_pages = n_sp, .case_page = p->case_page,
		.n_case_pages = (p->n_cases_total + SITE_GRID_CASES - 1) / SITE_GRID_CASES,
		.first_case = p->first_case, .n_cases = p->page_cases,
		.n_cases_total = p->n_cases_total,
	};
	int rc = 0;

	if (!grid.n_case_pages)
		grid.n_case_pages = 1;
	for (size_t sp = 0; sp < n_sp && rc == 0; sp++) {
		grid.sweep_page = sp;
		sweep_page(p->n_win, sp, n_sp, &grid.col0, &grid.n_cols);
		strbuf_reset(&g->page);
		strbuf_reset(&g->name);
		site_grid_page_name(p->label, sp, p->case_page, &g->name);
		if ((rc = site_grid_html(&grid, &g->page, g->err)) == 0)
			rc = site_gen_write(g, g->name.buf);
	}
	release_rows(p);
	p->first_case += p->page_cases;
	p->page_cases = 0;
	p->case_page++;
	strvec_clear(&p->page_strings);
	return rc;
}

/* The row's cells are all read: their statuses, and what the index and
 * the rate pages count. */
static void finish_row(struct label_pass *p)
{
	struct site_grid_row *row = &p->rows[p->n_rows - 1];
	struct site_grid_cell *cells = (struct site_grid_cell *)row->cells;
	enum site_outcome *o = p->row_o;
	enum site_status *s = p->row_s;
	bool *first = p->row_first;

	for (size_t c = 0; c < p->n_win; c++)
		o[c] = cells[c].outcome;
	site_row_statuses(o, p->flaky, p->n_win, s, first);
	for (size_t c = 0; c < p->n_win; c++) {
		cells[c].status = s[c];
		cells[c].first = first[c];
		p->col_total[c] += o[c] >= SO_PASS;
		p->col_pass[c] += o[c] == SO_PASS;
	}
	if (p->n_win)
		p->idx->counts[s[p->n_win - 1]]++;
	for (size_t i = p->tl_row; i < p->n_tl; i++) {
		struct site_timeline_entry *e = &p->tl[i];
		size_t c = (size_t)p->tl_col[i];

		e->status = s[c];
		e->first = first[c];
		site_rates_count(p->g, p->n_win, c, e->image_id, e->image, p->win[c].host, e->gpus,
				 e->outcome);
	}
	memset(p->flaky, 0, p->n_win * sizeof(bool));
	memset(p->failed, 0, p->n_win * sizeof(bool));
	p->idx->n_rows++;
}

static int finish_case(struct label_pass *p)
{
	struct site_gen *g = p->g;
	const char *case_name = p->rows[p->n_rows - 1].case_name;
	struct site_timeline t = { .label = p->label, .case_name = case_name, .v = p->tl,
				   .n = p->n_tl };
	cleanup_strbuf struct strbuf grid = STRBUF_INIT;
	int rc;

	for (size_t i = 0; i < p->n_tl; i++) {
		t.results += p->tl[i].outcome != SO_MISSING;
		t.flaky += p->tl[i].status == SS_FLAKY;
	}
	t.bisect = site_bisects_find(&g->bisects, case_name);
	site_grid_page_name(p->label, sweep_pages(p->n_win) - 1, p->case_page, &grid);
	t.grid_page = grid.buf;
	strbuf_reset(&g->page);
	strbuf_reset(&g->name);
	site_case_page_name(p->label, case_name, &g->name);
	if (site_perf_for_case(g->db, &p->perf, p->label, p->win, p->n_win, case_name,
			       g->name.buf, &g->perf, &t.perf, g->err) < 0)
		return -1;
	rc = site_timeline_html(&t, &g->page, g->err);
	if (rc == 0)
		rc = site_gen_write(g, g->name.buf);
	g->stats->cases++;
	p->n_tl = 0;
	strvec_clear(&p->case_strings);
	p->page_cases++;
	if (rc == 0 && p->page_cases >= SITE_GRID_CASES)
		rc = flush_page(p);
	return rc;
}

static void start_row(struct label_pass *p, const char *case_name, const char *image)
{
	struct site_grid_row *row;
	cleanup_strbuf struct strbuf page = STRBUF_INIT;

	if (p->n_rows == p->alloc_rows)
		p->rows = xrealloc(p->rows, (p->alloc_rows = p->alloc_rows ? 2 * p->alloc_rows : 64) *
						    sizeof(*p->rows));
	row = &p->rows[p->n_rows++];
	site_case_page_name(p->label, case_name, &page);
	row->case_name = keep_str(&p->page_strings, case_name);
	row->image = keep_str(&p->page_strings, image);
	row->case_page = keep_str(&p->page_strings, page.buf);
	row->cells = p->n_spare ? memset(p->spare[--p->n_spare], 0,
					 (p->n_win + 1) * sizeof(struct site_grid_cell))
			       : xcalloc(p->n_win + 1, sizeof(struct site_grid_cell));
	p->col = -1;
	p->tl_row = p->n_tl;
}

static size_t find_col(struct label_pass *p, const char *sweep_id)
{
	size_t c = p->col < 0 ? 0 : (size_t)p->col;

	while (c < p->n_win && strcmp(p->cols[c].id, sweep_id))
		c++;
	return c;
}

static void put_entry(struct label_pass *p, size_t c, const struct site_result_row *r,
		      enum site_outcome o)
{
	struct site_timeline_entry *e;

	if ((int)c != p->col) {
		if (p->n_tl == p->alloc_tl) {
			p->alloc_tl = p->alloc_tl ? 2 * p->alloc_tl : 128;
			p->tl = xrealloc(p->tl, p->alloc_tl * sizeof(*p->tl));
			p->tl_col = xrealloc(p->tl_col, p->alloc_tl * sizeof(int));
		}
		p->tl_col[p->n_tl++] = (int)c;
	}
	e = &p->tl[p->n_tl - 1];
	*e = (struct site_timeline_entry){
		.sweep_id = p->cols[c].id, .started = p->cols[c].started,
		.image = r->image, .image_id = r->image_id, .fault_class = r->fault_class,
		.kernel = r->kernel, .gpus = r->gpus,
		.run_href = run_href(p, c, r->run_dir), .outcome = o, .attempts = r->attempt,
		.duration_s = r->duration_s,
	};
}

/* r with its repeated strings kept for the label pass. */
static struct site_result_row kept_row(struct label_pass *p, const struct site_result_row *r)
{
	struct site_result_row k = *r;

	k.image = intern(&p->strings, r->image);
	k.image_id = intern(&p->strings, r->image_id);
	k.fault_class = intern(&p->strings, r->fault_class);
	k.kernel = intern(&p->strings, r->kernel);
	k.gpus = intern(&p->strings, r->gpus);
	k.digest = intern(&p->strings, r->digest);
	k.gfx = intern(&p->strings, r->gfx);
	k.driver = intern(&p->strings, r->driver);
	return k;
}

static int on_result(void *ctx, const struct site_result_row *raw)
{
	struct label_pass *p = ctx;
	struct site_result_row kept = kept_row(p, raw);
	const struct site_result_row *r = &kept;
	struct site_grid_row *row = p->n_rows ? &p->rows[p->n_rows - 1] : NULL;
	bool new_case = !row || strcmp(row->case_name, r->case_name);
	enum site_outcome o = site_outcome_parse(r->state, r->outcome);
	struct site_grid_cell *cell;
	size_t c;

	p->g->stats->results++;
	if (new_case || strcmp(row->image, r->image)) {
		if (row)
			finish_row(p);
		if (row && new_case && finish_case(p) < 0)
			return -1;
		start_row(p, r->case_name, r->image);
		row = &p->rows[p->n_rows - 1];
	}
	if ((c = find_col(p, r->sweep_id)) >= p->n_win)
		return 0; /* a sweep that left the window meanwhile */
	site_perf_result(&p->perf, c, r);
	cell = (struct site_grid_cell *)&row->cells[c];
	/* A later attempt replaces the cell; a replay that did not pass
	 * before it makes a final PASS flaky. */
	if ((int)c == p->col && cell->outcome >= SO_MAF)
		p->failed[c] = true;
	p->flaky[c] = o == SO_PASS && p->failed[c];
	put_entry(p, c, r, o);
	p->col = (int)c;
	*cell = (struct site_grid_cell){ .outcome = o, .attempts = r->attempt };
	if (o >= SO_MAF) {
		cleanup_strbuf struct strbuf fam = STRBUF_INIT;

		site_kernel_family(r->kernel, &fam);
		cell->fault_class = r->fault_class;
		cell->kernel_family = intern(&p->strings, fam.buf);
	}
	return 0;
}

static void close_index(struct label_pass *p)
{
	struct site_point *rate = xcalloc(p->n_win + 1, sizeof(*rate));
	size_t n = 0;
	cleanup_strbuf struct strbuf grid = STRBUF_INIT;

	for (size_t c = 0; c < p->n_win; c++)
		if (p->col_total[c])
			rate[n++] = (struct site_point){ (double)p->cols[c].started,
							 (double)p->col_pass[c] / p->col_total[c],
							 NULL, false };
	site_grid_page_name(p->label, sweep_pages(p->n_win) - 1, 0, &grid);
	p->idx->label = keep_str(&p->g->keep, p->label);
	p->idx->grid_page = keep_str(&p->g->keep, grid.buf);
	p->idx->pass_rate = rate;
	p->idx->n_sweeps = n;
	if (p->n_win) {
		p->idx->last_sweep = keep_str(&p->g->keep, p->win[p->n_win - 1].id);
		p->idx->last_started = p->win[p->n_win - 1].started;
	}
}

static int label_pass(struct site_gen *g, const char *label)
{
	struct label_pass p = { .g = g, .label = label, .col = -1, .page_strings = STRVEC_INIT,
				.case_strings = STRVEC_INIT, .strings = INTERN_INIT };
	int rc;

	g->labels = xrealloc(g->labels, (g->n_labels + 1) * sizeof(*g->labels));
	p.idx = memset(&g->labels[g->n_labels++], 0, sizeof(*p.idx));
	if (site_query_window(g->db, label, g->o->last, g->o->host, &p.win, &p.n_win, g->err) < 0 ||
	    site_query_case_count(g->db, label, g->o->last, g->o->host, &p.n_cases_total,
				  g->err) < 0) {
		site_window_release(p.win, p.n_win);
		return -1;
	}
	open_window(&p);
	rc = site_query_results(g->db, label, g->o->last, g->o->host, on_result, &p, g->err);
	if (rc == 0 && p.n_rows) {
		finish_row(&p);
		rc = finish_case(&p);
	}
	if (rc == 0 && (p.n_rows || p.case_page == 0))
		rc = flush_page(&p);
	site_rates_close_label(g, p.cols, p.n_win, label);
	close_index(&p);
	release_rows(&p);
	free(p.rows);
	free(p.tl);
	free(p.tl_col);
	strvec_clear(&p.page_strings);
	strvec_clear(&p.case_strings);
	close_window(&p);
	site_perf_label_close(&p.perf);
	intern_release(&p.strings);
	site_window_release(p.win, p.n_win);
	return rc;
}

int history_site_generate(struct history_db *db, const char *dir, const struct site_options *o,
			  struct site_stats *stats, struct error *err)
{
	struct site_gen g = { .db = db, .o = o, .stats = stats, .err = err, .keep = STRVEC_INIT,
			      .perf = { .keep = STRVEC_INIT } };
	cleanup_strvec struct strvec labels = STRVEC_INIT;
	int rc;

	memset(stats, 0, sizeof(*stats));
	strbuf_init(&g.page, 1 << 16);
	strbuf_init(&g.name, 64);
	rc = site_dir_open(&g.dir, dir, err);
	/* one snapshot: the pages agree with each other while sweeps land */
	if (rc == 0)
		rc = history_read_begin(db, err);
	if (rc == 0)
		rc = site_query_labels(db, o->label, o->host, &labels, err);
	if (rc == 0 && labels.n)
		rc = site_query_bisects(db, &g.bisects, err);
	for (size_t i = 0; rc == 0 && i < labels.n; i++)
		rc = label_pass(&g, labels.v[i]);
	stats->labels = g.n_labels;
	if (rc == 0)
		rc = site_signatures_write(&g);
	if (rc == 0)
		rc = site_perf_write(&g);
	if (rc == 0)
		rc = site_rates_write(&g);
	history_read_end(db);
	if (rc == 0)
		rc = site_dir_finish(&g.dir, err);
	stats->written = g.dir.written;
	stats->kept = g.dir.kept;
	stats->removed = g.dir.removed;
	for (size_t i = 0; i < g.n_labels; i++)
		free((void *)g.labels[i].pass_rate);
	free(g.labels);
	free(g.fresh);
	site_perf_changes_release(&g.perf);
	site_rates_release(&g.images);
	site_rates_release(&g.gpus);
	strvec_clear(&g.keep);
	strbuf_release(&g.page);
	strbuf_release(&g.name);
	site_dir_release(&g.dir);
	site_bisects_release(&g.bisects);
	return rc;
}

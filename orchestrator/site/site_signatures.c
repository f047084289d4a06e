/* `history site`: a page per failure signature seen in the labels'
 * windows, their list, and the index's "untriaged, first seen today"
 * (docs/sweep.md "The history site"). One grouped query per part (the
 * signatures, their cases, images, GPUs and known issues), each ordered by
 * signature and read in step, so memory is one signature's page; where it
 * was first and last seen comes from the signature's index over the whole
 * database. */
#include "orchestrator/site/site_signatures.h"

#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "orchestrator/finding/signature.h"
#include "orchestrator/history/history_query.h"
#include "orchestrator/site/site_sig.h"

/* The last ?2 sweeps of each label (?1: one label, NULL: all) of host ?3
 * (NULL: every host); n = 1 is a label's last sweep. */
#define WINDOWS_SQL                                                                       \
	"WITH w AS (SELECT id, label, started, host, n FROM (SELECT id, label, started, host," \
	" ROW_NUMBER() OVER (PARTITION BY label ORDER BY started DESC, id DESC) AS n"       \
	" FROM sweeps WHERE (?1 IS NULL OR label = ?1) AND (?3 IS NULL OR host = ?3)) q"      \
	" WHERE n <= ?2)"
/* The failures first, by the signature index, then their sweep: left to
 * itself SQLite reads every result of the windows (by sweep) to keep the
 * few with a signature, ten times the work. */
#define FAILED " FROM results r CROSS JOIN w WHERE r.sweep = w.id AND r.sig_id IS NOT NULL"
#define RESULT_KEY "w.id || '\x1f' || r.case_name || '\x1f' || r.image_ref"

enum { Q_SIGS, Q_CASES, Q_IMAGES, Q_GPUS, Q_KNOWN, Q__COUNT };

static const char *const queries[Q__COUNT] = {
	[Q_SIGS] = WINDOWS_SQL " SELECT r.sig_id, MAX(r.outcome), MAX(r.fault_class),"
		   " MAX(r.sig_family), MAX(r.sig_evidence), MAX(r.sig_stop_reason),"
		   " MAX(r.sig_partial), COUNT(DISTINCT " RESULT_KEY "), COUNT(DISTINCT w.id),"
		   " MAX(CASE WHEN w.n = 1 AND r.known_id IS NULL THEN 1 ELSE 0 END)" FAILED " GROUP BY r.sig_id ORDER BY 1",
	[Q_CASES] = WINDOWS_SQL " SELECT r.sig_id, r.case_name, w.label,"
		    " COUNT(DISTINCT " RESULT_KEY ")" FAILED " GROUP BY 1, 2, 3 ORDER BY 1, 4 DESC, 2, 3",
	[Q_IMAGES] = WINDOWS_SQL " SELECT r.sig_id, r.image_ref, r.image_id,"
		     " COUNT(DISTINCT " RESULT_KEY ")" FAILED " GROUP BY 1, 2, 3 ORDER BY 1, 4 DESC, 2, 3",
	[Q_GPUS] = WINDOWS_SQL " SELECT r.sig_id, " SITE_GPU_IDENTITY_SQL ", w.host,"
		   " COUNT(DISTINCT " RESULT_KEY ")" FAILED " GROUP BY 1, 2, 3 ORDER BY 1, 4 DESC, 2, 3",
	[Q_KNOWN] = WINDOWS_SQL " SELECT r.sig_id, r.known_id, MAX(r.known_link), MAX(r.known_owner),"
		    " MAX(w.started), COUNT(DISTINCT " RESULT_KEY ")" FAILED
		    " AND r.known_id IS NOT NULL GROUP BY 1, 2 ORDER BY 1, 5 DESC, 2",
};

/* The sweeps a signature was seen in, anywhere, oldest first (ties by
 * id): the first row is where it was first seen, the first row of the
 * newest start where it was last seen. */
static const char seen_sql[] =
	"SELECT id, started FROM sweeps WHERE id IN (SELECT sweep FROM results WHERE sig_id = ?1)"
	" ORDER BY started, id";

struct cursor {
	struct history_stmt *st;
	bool row;
};

struct sig_pass {
	struct site_gen *g;
	struct cursor q[Q__COUNT];
	struct history_stmt *seen;
	struct strvec strings;      /* one signature's */
	struct site_sig_row *rows;  /* the list page */
	size_t n_rows;
	struct strvec keep;         /* the list's strings */
};

static int step(struct sig_pass *p, struct cursor *c)
{
	int rc = history_step(c->st);

	c->row = rc == HISTORY_ROW;
	if (rc == HISTORY_ROW || rc == HISTORY_DONE)
		return 0;
	return history_sql_error(p->g->db, rc, "signatures", p->g->err);
}

static const char *kept(struct strvec *v, const char *s)
{
	if (!s)
		return NULL;
	strvec_push(v, s);
	return v->v[v->n - 1];
}

/* Whether c's current row is one of signature id's. */
static bool at(const struct cursor *c, const char *id)
{
	return c->row && !strcmp(history_col(c->st, 0), id);
}

/* Moves cursor c past the rows of signatures before id (a signature the
 * other queries see and this one does not). */
static int seek(struct sig_pass *p, struct cursor *c, const char *id)
{
	while (c->row && strcmp(history_col(c->st, 0), id) < 0)
		if (step(p, c) < 0)
			return -1;
	return 0;
}

/* The rows of c for the signature id as items: name, detail, page. */
typedef void (*item_fn)(struct sig_pass *p, struct history_stmt *st, struct site_sig_item *it);

static int collect(struct sig_pass *p, struct cursor *c, const char *id, item_fn fn,
		   struct site_sig_item **v, size_t *n, size_t *total)
{
	*v = xcalloc(SITE_SIG_LIST_MAX, sizeof(**v));
	*n = *total = 0;
	if (seek(p, c, id) < 0)
		return -1;
	for (; at(c, id); (*total)++) {
		if (*n < SITE_SIG_LIST_MAX)
			fn(p, c->st, &(*v)[(*n)++]);
		if (step(p, c) < 0)
			return -1;
	}
	return 0;
}

static void case_item(struct sig_pass *p, struct history_stmt *st, struct site_sig_item *it)
{
	cleanup_strbuf struct strbuf page = STRBUF_INIT;
	cleanup_free char *detail = xasprintf("label %s", history_col(st, 2));

	site_case_page_name(history_col(st, 2), history_col(st, 1), &page);
	*it = (struct site_sig_item){ .name = kept(&p->strings, history_col(st, 1)),
				      .detail = kept(&p->strings, detail),
				      .page = kept(&p->strings, page.buf),
				      .results = (size_t)history_col_int64(st, 3) };
}

static void image_item(struct sig_pass *p, struct history_stmt *st, struct site_sig_item *it)
{
	cleanup_strbuf struct strbuf page = STRBUF_INIT;
	const char *id = history_col(st, 2) ? history_col(st, 2) : "no image ID";
	const char *parts[] = { id };

	/* The image's pass-rate page (site_rates.c names it by its ID). */
	site_page_name("image", parts, 1, &page);
	*it = (struct site_sig_item){ .name = kept(&p->strings, history_col(st, 1)),
				      .detail = kept(&p->strings, id),
				      .page = kept(&p->strings, page.buf),
				      .results = (size_t)history_col_int64(st, 3) };
}

static void gpu_item(struct sig_pass *p, struct history_stmt *st, struct site_sig_item *it)
{
	const char *gpus = history_col(st, 1) ? history_col(st, 1) : "?";
	cleanup_free char *name = xasprintf("%s %s", history_col(st, 2) ? history_col(st, 2) : "?", gpus);
	cleanup_strbuf struct strbuf page = STRBUF_INIT;
	const char *parts[] = { name };

	/* One GPU has a pass-rate page (site_rates.c: "<host> <GPU>"). */
	if (!strchr(gpus, ','))
		site_page_name("gpu", parts, 1, &page);
	*it = (struct site_sig_item){ .name = kept(&p->strings, name),
				      .page = page.len ? kept(&p->strings, page.buf) : NULL,
				      .results = (size_t)history_col_int64(st, 3) };
}

static int seen(struct sig_pass *p, const char *id, struct site_sig *s)
{
	cleanup_strbuf struct strbuf last = STRBUF_INIT;
	bool any = false;
	int rc;

	history_reset(p->seen);
	history_bind_text(p->seen, 1, id);
	while ((rc = history_step(p->seen)) == HISTORY_ROW) {
		long long started = history_col_int64(p->seen, 1);

		if (!any) {
			s->first_sweep = kept(&p->strings, history_col(p->seen, 0));
			s->first_started = started;
		}
		if (!any || started > s->last_started) {
			strbuf_reset(&last);
			strbuf_addstr(&last, history_col(p->seen, 0) ? history_col(p->seen, 0) : "");
			s->last_started = started;
		}
		any = true;
	}
	if (any)
		s->last_sweep = kept(&p->strings, last.buf);
	history_reset(p->seen);
	return rc == HISTORY_DONE ? 0 : history_sql_error(p->g->db, rc, "signatures", p->g->err);
}

static int known_issues(struct sig_pass *p, const char *id, struct site_sig_known **v,
			size_t *n)
{
	struct cursor *c = &p->q[Q_KNOWN];

	*n = 0;
	*v = NULL;
	if (seek(p, c, id) < 0)
		return -1;
	while (at(c, id)) {
		*v = xrealloc(*v, (*n + 1) * sizeof(**v));
		(*v)[(*n)++] = (struct site_sig_known){
			.id = kept(&p->strings, history_col(c->st, 1)),
			.link = kept(&p->strings, history_col(c->st, 2)),
			.owner = kept(&p->strings, history_col(c->st, 3)),
			.last_started = history_col_int64(c->st, 4),
			.results = (size_t)history_col_int64(c->st, 5),
		};
		if (step(p, c) < 0)
			return -1;
	}
	return 0;
}

/* Whether the sweep is a label's last one in the windows shown. */
static bool latest(const struct site_gen *g, const char *sweep)
{
	for (size_t i = 0; sweep && i < g->n_labels; i++)
		if (g->labels[i].last_sweep && !strcmp(g->labels[i].last_sweep, sweep))
			return true;
	return false;
}

/* The current row of Q_SIGS: its page, and its row in the list. */
static int one(struct sig_pass *p)
{
	struct history_stmt *st = p->q[Q_SIGS].st;
	struct site_gen *g = p->g;
	struct site_sig s = {
		.id = kept(&p->strings, history_col(st, 0)),
		.outcome = kept(&p->strings, history_col(st, 1)),
		.fault_class = kept(&p->strings, history_col(st, 2)),
		.family = kept(&p->strings, history_col(st, 3)),
		.evidence = kept(&p->strings, history_col(st, 4)),
		.stop_reason = kept(&p->strings, history_col(st, 5)),
		.partial = history_col_int(st, 6) != 0,
		.results = (size_t)history_col_int64(st, 7),
		.sweeps = (size_t)history_col_int64(st, 8),
	};
	bool untriaged_last = history_col_int(st, 9) != 0;
	struct site_sig_item *cases = NULL, *images = NULL, *gpus = NULL;
	struct site_sig_known *known = NULL;
	cleanup_strbuf struct strbuf rule = STRBUF_INIT;
	const char *parts[] = { s.id };
	struct site_sig_row *row;
	int rc;

	rc = collect(p, &p->q[Q_CASES], s.id, case_item, &cases, &s.n_cases, &s.cases_total);
	if (rc == 0)
		rc = collect(p, &p->q[Q_IMAGES], s.id, image_item, &images, &s.n_images,
			     &s.images_total);
	if (rc == 0)
		rc = collect(p, &p->q[Q_GPUS], s.id, gpu_item, &gpus, &s.n_gpus, &s.gpus_total);
	if (rc == 0)
		rc = known_issues(p, s.id, &known, &s.n_known);
	if (rc == 0)
		rc = seen(p, s.id, &s);
	s.cases = cases;
	s.images = images;
	s.gpus = gpus;
	s.known = known;
	if (rc == 0 && !s.n_known) {
		struct signature sig;

		signature_init(&sig);
		signature_from_parts(&sig, s.outcome, s.fault_class, s.family, s.evidence,
				     s.stop_reason, s.partial);
		if (signature_set(&sig))
			signature_rule_yaml(&sig, &rule);
		signature_release(&sig);
		s.rule = rule.len ? rule.buf : NULL;
	}
	strbuf_reset(&g->page);
	strbuf_reset(&g->name);
	site_page_name("sig", parts, 1, &g->name);
	if (rc == 0 && (rc = site_sig_html(&s, &g->page, g->err)) == 0)
		rc = site_gen_write(g, g->name.buf);
	if (rc == 0) {
		p->rows = xrealloc(p->rows, (p->n_rows + 1) * sizeof(*p->rows));
		row = &p->rows[p->n_rows++];
		*row = (struct site_sig_row){
			.id = kept(&p->keep, s.id), .page = kept(&p->keep, g->name.buf),
			.outcome = kept(&p->keep, s.outcome),
			.fault_class = kept(&p->keep, s.fault_class),
			.family = kept(&p->keep, s.family),
			.known_id = s.n_known ? kept(&p->keep, known[0].id) : NULL,
			.known_owner = s.n_known ? kept(&p->keep, known[0].owner) : NULL,
			.cases = s.cases_total, .results = s.results,
			.first_started = s.first_started, .last_started = s.last_started,
			.fresh = untriaged_last && latest(g, s.first_sweep),
		};
	}
	free(cases);
	free(images);
	free(gpus);
	free(known);
	strvec_clear(&p->strings);
	return rc;
}

static int by_last_seen(const void *a, const void *b)
{
	const struct site_sig_row *x = a, *y = b;

	if (x->last_started != y->last_started)
		return x->last_started > y->last_started ? -1 : 1;
	return strcmp(x->id, y->id);
}

/* The list page, and the index's fresh ones (kept in g for the index). */
static int finish(struct sig_pass *p)
{
	struct site_gen *g = p->g;

	if (p->n_rows) /* rows is NULL then, and qsort's pointer must not be */
		qsort(p->rows, p->n_rows, sizeof(*p->rows), by_last_seen);
	for (size_t i = 0; i < p->n_rows; i++) {
		const struct site_sig_row *r = &p->rows[i];
		cleanup_free char *detail = NULL;

		if (!r->fresh)
			continue;
		detail = xasprintf("%s %s%s%s, %zu case%s", r->outcome ? r->outcome : "-",
				   r->fault_class ? r->fault_class : "-", r->family ? " · " : "",
				   r->family ? r->family : "", r->cases, r->cases == 1 ? "" : "s");
		g->fresh = xrealloc(g->fresh, (g->n_fresh + 1) * sizeof(*g->fresh));
		strvec_push(&g->keep, r->id);
		strvec_push(&g->keep, r->page);
		strvec_push(&g->keep, detail);
		g->fresh[g->n_fresh++] = (struct site_index_link){
			.name = g->keep.v[g->keep.n - 3], .page = g->keep.v[g->keep.n - 2],
			.detail = g->keep.v[g->keep.n - 1] };
	}
	g->signatures_page = p->n_rows ? SITE_SIGNATURES_PAGE : NULL;
	strbuf_reset(&g->page);
	if (site_sig_list_html(p->rows, p->n_rows, &g->page, g->err) < 0)
		return -1;
	return site_gen_write(g, SITE_SIGNATURES_PAGE);
}

int site_signatures_write(struct site_gen *g)
{
	struct sig_pass p = { .g = g, .strings = STRVEC_INIT, .keep = STRVEC_INIT };
	int rc = 0;

	for (int i = 0; i < Q__COUNT && rc == 0; i++) {
		rc = history_sql_prepare(g->db, queries[i], &p.q[i].st, g->err);
		if (rc == 0) {
			history_bind_text(p.q[i].st, 1, g->o->label);
			history_bind_int(p.q[i].st, 2, g->o->last);
			history_bind_text(p.q[i].st, 3, g->o->host);
			rc = step(&p, &p.q[i]);
		}
	}
	if (rc == 0)
		rc = history_sql_prepare(g->db, seen_sql, &p.seen, g->err);
	while (rc == 0 && p.q[Q_SIGS].row) {
		rc = one(&p);
		if (rc == 0)
			rc = step(&p, &p.q[Q_SIGS]);
	}
	if (rc == 0)
		rc = finish(&p);
	for (int i = 0; i < Q__COUNT; i++)
		history_finalize(p.q[i].st);
	history_finalize(p.seen);
	free(p.rows);
	strvec_clear(&p.keep);
	strvec_clear(&p.strings);
	return rc;
}

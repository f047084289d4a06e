/* A grid page: the rows (case x image) of one case page over the sweeps of
 * one sweep page, a cell per result coloured by outcome, regressions and
 * first failures marked, filters by status, fault class and kernel family
 * done with radio buttons and the stylesheet's :checked rules. */
#include "orchestrator/site/site_pages.h"

#include <stdio.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/text.h"
#include "common/strvec.h"
#include "common/xalloc.h"
#include "orchestrator/site/site_doc.h"

static const char *short_outcome(enum site_outcome o)
{
	static const char *const s[SO__COUNT] = { "\xc2\xb7", "-", "P", "M", "F", "A", "H", "U" };

	return (unsigned)o < SO__COUNT ? s[o] : "?";
}

static const char *status_mark(enum site_status s)
{
	/* ▼ regressed, ▲ fixed, ~ flaky: readable without colour. */
	return s == SS_REGRESSED ? "\xe2\x96\xbc" : s == SS_FIXED ? "\xe2\x96\xb2"
						  : s == SS_FLAKY ? "~" : "";
}

/* The filter slot of value among the page's values: the first
 * SITE_FILTER_MAX - 1 distinct ones have their own, the rest share the
 * last ("other"). */
static int slot(struct strvec *seen, const char *value)
{
	const char *v = value ? value : "-";

	for (size_t i = 0; i < seen->n; i++)
		if (!strcmp(seen->v[i], v))
			return (int)i;
	if (seen->n < SITE_FILTER_MAX - 1) {
		strvec_push(seen, v);
		return (int)seen->n - 1;
	}
	return SITE_FILTER_MAX - 1;
}

struct grid_slots {
	struct strvec faults, families;
	bool other_fault, other_family;
	struct strbuf cls, tip, text; /* the cell being written */
};

static const struct site_grid_cell *cell_at(const struct site_grid *g, size_t r, size_t j)
{
	return &g->rows[r].cells[g->col0 + j];
}

static void collect_slots(const struct site_grid *g, struct grid_slots *s)
{
	for (size_t r = 0; r < g->n_rows; r++)
		for (size_t j = 0; j < g->n_cols; j++) {
			const struct site_grid_cell *c = cell_at(g, r, j);

			if (c->outcome < SO_MAF)
				continue;
			s->other_fault |= slot(&s->faults, c->fault_class) == SITE_FILTER_MAX - 1;
			s->other_family |=
				slot(&s->families, c->kernel_family) == SITE_FILTER_MAX - 1;
		}
}

static void radio(xmlNodePtr parent, const char *group, const char *id, const char *text,
		  bool checked)
{
	xmlNodePtr in = xmlNewChild(parent, NULL, X("input"), NULL), l;

	site_prop(in, "type", "radio");
	site_prop(in, "name", group);
	site_prop(in, "id", id);
	if (checked)
		xmlNewProp(in, X("checked"), NULL);
	l = site_el(parent, "label", text);
	site_prop(l, "for", id);
}

static void radio_group(xmlNodePtr wrap, const char *title, const char *prefix,
			const struct strvec *values, bool other)
{
	char id[32];

	site_el(wrap, "b", title);
	snprintf(id, sizeof(id), "%s-all", prefix);
	radio(wrap, prefix, id, "all", true);
	for (size_t i = 0; i < values->n; i++) {
		snprintf(id, sizeof(id), "%s-%zu", prefix, i);
		radio(wrap, prefix, id, values->v[i], false);
	}
	if (other) {
		snprintf(id, sizeof(id), "%s-%d", prefix, SITE_FILTER_MAX - 1);
		radio(wrap, prefix, id, "other", false);
	}
	xmlNewChild(wrap, NULL, X("br"), NULL);
}

static void filters(xmlNodePtr wrap, struct grid_slots *s)
{
	cleanup_strvec struct strvec statuses = STRVEC_INIT;
	char id[32];

	site_el(wrap, "b", "Status");
	radio(wrap, "fs", "fs-all", "all", true);
	for (int k = SS_FIXED; k < SS__COUNT; k++) {
		snprintf(id, sizeof(id), "fs-%s", site_status_name((enum site_status)k));
		radio(wrap, "fs", id, site_status_name((enum site_status)k), false);
	}
	xmlNewChild(wrap, NULL, X("br"), NULL);
	radio_group(wrap, "Fault class", "ff", &s->faults, s->other_fault);
	radio_group(wrap, "Kernel family", "fk", &s->families, s->other_family);
}

/* Links to the other pages of the same rows (by sweeps) and of the same
 * sweeps (by rows). */
static void page_links(xmlNodePtr n, const struct site_grid *g, bool by_sweeps)
{
	size_t pages = by_sweeps ? g->n_sweep_pages : g->n_case_pages;
	size_t here = by_sweeps ? g->sweep_page : g->case_page;
	cleanup_strbuf struct strbuf href = STRBUF_INIT;

	site_el(n, "b", by_sweeps ? "Sweeps (oldest first):" : " Cases:");
	for (size_t p = 0; p < pages; p++) {
		char text[32];

		strbuf_reset(&href);
		site_grid_page_name(g->label, by_sweeps ? p : g->sweep_page,
				    by_sweeps ? g->case_page : p, &href);
		snprintf(text, sizeof(text), p == here ? "[%zu]" : "%zu", p + 1);
		if (p == here)
			site_el(n, "span", text);
		else
			site_link(n, href.buf, text);
		xmlAddChild(n, xmlNewText(X(" ")));
	}
}

static void nav(xmlNodePtr body, const struct site_grid *g)
{
	xmlNodePtr n = xmlNewChild(body, NULL, X("nav"), NULL);

	page_links(n, g, true);
	xmlNewChild(n, NULL, X("br"), NULL);
	page_links(n, g, false);
}

static void header(xmlNodePtr table, const struct site_grid *g)
{
	xmlNodePtr tr = xmlNewChild(table, NULL, X("tr"), NULL);

	site_el(tr, "th", "case");
	site_el(tr, "th", "image");
	for (size_t j = 0; j < g->n_cols; j++) {
		const struct site_sweep_col *s = &g->sweeps[g->col0 + j];
		char when[32];
		xmlNodePtr th = xmlNewChild(tr, NULL, X("th"), NULL);

		site_date(s->started, false, when, sizeof(when));
		site_prop(th, "title", s->id);
		site_prop(th, "class", "sweep");
		if (s->report_href)
			site_link(th, s->report_href, when + 5);
		else
			site_el(th, "span", when + 5);
	}
}

static void cell(xmlNodePtr tr, const struct site_grid *g, const struct site_grid_row *row,
		 size_t j, struct grid_slots *s)
{
	const struct site_grid_cell *c = &row->cells[g->col0 + j];
	xmlNodePtr td = xmlNewChild(tr, NULL, X("td"), NULL);
	char n[TEXT_LONG_MAX];

	/* Built piece by piece: three snprintf a cell were 3.5% of a
	 * night's site instructions. */
	strbuf_reset(&s->cls);
	strbuf_addstr(&s->cls, "c o-");
	strbuf_addstr(&s->cls, site_outcome_name(c->outcome));
	strbuf_addstr(&s->cls, " s-");
	strbuf_addstr(&s->cls, site_status_name(c->status));
	if (c->first)
		strbuf_addstr(&s->cls, " first");
	strbuf_reset(&s->tip);
	strbuf_addstr(&s->tip, g->sweeps[g->col0 + j].id);
	strbuf_addstr(&s->tip, ": ");
	strbuf_addstr(&s->tip, site_outcome_name(c->outcome));
	if (c->fault_class) {
		strbuf_addch(&s->tip, ' ');
		strbuf_addstr(&s->tip, c->fault_class);
	}
	if (c->kernel_family) {
		strbuf_addstr(&s->tip, " in ");
		strbuf_addstr(&s->tip, c->kernel_family);
	}
	strbuf_addstr(&s->tip, ", ");
	strbuf_addstr(&s->tip, site_status_name(c->status));
	if (c->first)
		strbuf_addstr(&s->tip, ", first failure");
	strbuf_addstr(&s->tip, " (");
	strbuf_addstr(&s->tip, text_long(n, c->attempts));
	strbuf_addstr(&s->tip, c->attempts == 1 ? " attempt)" : " attempts)");
	strbuf_reset(&s->text);
	strbuf_addstr(&s->text, short_outcome(c->outcome));
	strbuf_addstr(&s->text, status_mark(c->status));
	site_prop(td, "class", s->cls.buf);
	site_prop(td, "title", s->tip.buf);
	site_link(td, row->case_page, s->text.buf);
}

static void row(xmlNodePtr table, const struct site_grid *g, size_t r, struct grid_slots *s)
{
	const struct site_grid_row *w = &g->rows[r];
	cleanup_strbuf struct strbuf cls = STRBUF_INIT;
	bool has[SS__COUNT] = { 0 }, fault[SITE_FILTER_MAX] = { 0 },
	     family[SITE_FILTER_MAX] = { 0 };
	xmlNodePtr tr = xmlNewChild(table, NULL, X("tr"), NULL), th;

	for (size_t j = 0; j < g->n_cols; j++) {
		const struct site_grid_cell *c = cell_at(g, r, j);

		has[c->status] = true;
		if (c->outcome >= SO_MAF) {
			fault[slot(&s->faults, c->fault_class)] = true;
			family[slot(&s->families, c->kernel_family)] = true;
		}
	}
	strbuf_addstr(&cls, "r");
	for (int k = 0; k < SS__COUNT; k++)
		if (has[k])
			strbuf_addf(&cls, " hs-%s", site_status_name((enum site_status)k));
	for (int k = 0; k < SITE_FILTER_MAX; k++) {
		if (fault[k])
			strbuf_addf(&cls, " hf%d", k);
		if (family[k])
			strbuf_addf(&cls, " hk%d", k);
	}
	site_prop(tr, "class", cls.buf);
	th = xmlNewChild(tr, NULL, X("th"), NULL);
	site_prop(th, "class", "case");
	site_prop(th, "title", w->case_name);
	site_link(th, w->case_page, w->case_name);
	site_el(tr, "td", w->image);
	for (size_t j = 0; j < g->n_cols; j++)
		cell(tr, g, w, j, s);
}

int site_grid_html(const struct site_grid *g, struct strbuf *out, struct error *err)
{
	struct grid_slots s = { .faults = STRVEC_INIT, .families = STRVEC_INIT,
				.cls = STRBUF_INIT, .tip = STRBUF_INIT, .text = STRBUF_INIT };
	cleanup_free char *title = xasprintf(
		"%s: cases %zu-%zu of %zu, sweeps %zu-%zu of %zu", g->label, g->first_case + 1,
		g->first_case + g->n_cases, g->n_cases_total, g->col0 + 1, g->col0 + g->n_cols,
		g->n_sweeps);
	struct site_doc d;
	xmlNodePtr wrap, table;
	int rc;

	site_doc_begin_filtered(&d, title);
	nav(d.body, g);
	site_el(d.body, "p",
		"P pass, M memory access fault, F fail, A abort, H hang, U unknown, - no replay, "
		"\xc2\xb7 no result; \xe2\x96\xbc regressed, \xe2\x96\xb2 fixed, ~ flaky; "
		"underlined: the row's first failure. A cell opens the case's timeline.");
	collect_slots(g, &s);
	wrap = xmlNewChild(d.body, NULL, X("div"), NULL);
	site_prop(wrap, "class", "filters");
	filters(wrap, &s);
	table = xmlNewChild(wrap, NULL, X("table"), NULL);
	site_prop(table, "class", "grid");
	site_prop(table, "id", "grid");
	header(table, g);
	for (size_t r = 0; r < g->n_rows; r++)
		row(table, g, r, &s);
	rc = site_doc_finish(&d, out, err);
	strvec_clear(&s.faults);
	strvec_clear(&s.families);
	strbuf_release(&s.cls);
	strbuf_release(&s.tip);
	strbuf_release(&s.text);
	return rc;
}

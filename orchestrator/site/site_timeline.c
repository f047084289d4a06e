/* A case's timeline: its outcome per sweep and image, the replay's wall
 * time as an SVG line per image, where it first failed (and what a bisect
 * found), its kernels and fault classes over time, its flaky rate. */
#include "orchestrator/site/site_pages.h"

#include <stdio.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "orchestrator/site/site_doc.h"
#include "orchestrator/site/site_perf.h"

#define SITE_TIMELINE_LAST 10

static bool same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

static void wall_time_chart(xmlNodePtr body, const struct site_timeline *t)
{
	cleanup_free struct site_point *pts = xcalloc(t->n + 1, sizeof(*pts));
	cleanup_free struct site_series *series = xcalloc(t->n + 1, sizeof(*series));
	cleanup_free char *tips = xcalloc(t->n + 1, 160);
	char first[32] = "", last[32] = "";
	long long lo = 0, hi = 0;
	size_t n_pts = 0, n_series = 0;
	struct site_chart c = { .title = "replay wall time per sweep", .x_first = first,
				.x_last = last, .y_unit = " s", .width = 720, .height = 200 };

	for (size_t i = 0; i < t->n; i++) {
		const struct site_timeline_entry *e = &t->v[i];
		char *tip = tips + 160 * i, when[32];

		if (e->outcome < SO_PASS)
			continue;
		if (!n_series || !same(series[n_series - 1].name, e->image)) {
			series[n_series].name = e->image;
			series[n_series++].v = pts + n_pts;
		}
		site_date(e->started, false, when, sizeof(when));
		snprintf(tip, 160, "%s %s: %s, %.2f s", when, e->image ? e->image : "",
			 site_outcome_name(e->outcome), e->duration_s);
		pts[n_pts++] = (struct site_point){ (double)e->started, e->duration_s, tip,
						    e->outcome != SO_PASS };
		series[n_series - 1].n++;
		lo = !lo || e->started < lo ? e->started : lo;
		hi = e->started > hi ? e->started : hi;
	}
	site_el(body, "h2", "Replay wall time");
	if (!n_pts) {
		site_el(body, "p", "No replay in the window.");
		return;
	}
	site_date(lo, false, first, sizeof(first));
	site_date(hi, false, last, sizeof(last));
	site_svg_line(body, &c, series, n_series);
}

static void first_failures(xmlNodePtr body, const struct site_timeline *t)
{
	xmlNodePtr ul = NULL;

	site_el(body, "h2", "First failure");
	for (size_t i = 0; i < t->n; i++) {
		const struct site_timeline_entry *e = &t->v[i];
		char when[32];
		xmlNodePtr li;

		if (!e->first)
			continue;
		if (!ul) {
			ul = xmlNewChild(body, NULL, X("ul"), NULL);
			site_prop(ul, "id", "first-failure");
		}
		site_date(e->started, true, when, sizeof(when));
		li = site_elf(ul, "li", "%s (%s): %s%s%s with image %s (%s)", e->sweep_id, when,
			      site_outcome_name(e->outcome), e->fault_class ? " " : "",
			      e->fault_class ? e->fault_class : "", e->image ? e->image : "-",
			      e->image_id ? e->image_id : "no image ID");
		site_prop(li, "class", "first");
	}
	if (!ul)
		site_el(body, "p", "No failure in the window.");
	site_elf(body, "p", "Bisect: %s", t->bisect ? t->bisect : "none recorded");
}

/* Each (fault class, kernel) the case failed with: when first and last
 * seen and how often, in the window. */
static void faults_over_time(xmlNodePtr body, const struct site_timeline *t)
{
	xmlNodePtr table = NULL, tr;
	cleanup_free bool *done = xcalloc(t->n + 1, sizeof(bool));

	site_el(body, "h2", "Kernels and fault classes");
	for (size_t i = 0; i < t->n; i++) {
		const struct site_timeline_entry *e = &t->v[i], *lastseen = e;
		size_t times = 0;

		if (done[i] || e->outcome < SO_MAF)
			continue;
		for (size_t k = i; k < t->n; k++)
			if (!done[k] && t->v[k].outcome >= SO_MAF &&
			    same(t->v[k].fault_class, e->fault_class) && same(t->v[k].kernel, e->kernel)) {
				done[k] = true;
				times++;
				if (t->v[k].started >= lastseen->started)
					lastseen = &t->v[k];
			}
		if (!table) {
			table = xmlNewChild(body, NULL, X("table"), NULL);
			site_prop(table, "id", "faults");
			tr = xmlNewChild(table, NULL, X("tr"), NULL);
			site_el(tr, "th", "fault class");
			site_el(tr, "th", "kernel");
			site_el(tr, "th", "first seen");
			site_el(tr, "th", "last seen");
			site_el(tr, "th", "times");
		}
		tr = xmlNewChild(table, NULL, X("tr"), NULL);
		site_el(tr, "td", e->fault_class ? e->fault_class : "-");
		site_el(tr, "td", e->kernel ? e->kernel : "-");
		site_el(tr, "td", e->sweep_id);
		site_el(tr, "td", lastseen->sweep_id);
		site_elf(tr, "td", "%zu", times);
	}
	if (!table)
		site_el(body, "p", "No fault in the window.");
}

static void entry_row(xmlNodePtr table, const struct site_timeline_entry *e)
{
	xmlNodePtr tr = xmlNewChild(table, NULL, X("tr"), NULL), td;
	cleanup_free char *cls = xasprintf("e o-%s s-%s%s", site_outcome_name(e->outcome),
					   site_status_name(e->status), e->first ? " first" : "");
	char when[32];

	site_date(e->started, true, when, sizeof(when));
	site_prop(tr, "class", cls);
	site_el(tr, "td", e->sweep_id);
	site_el(tr, "td", when);
	site_el(tr, "td", e->image);
	site_el(tr, "td", site_outcome_name(e->outcome));
	site_el(tr, "td", site_status_name(e->status));
	site_el(tr, "td", e->fault_class ? e->fault_class : "");
	site_el(tr, "td", e->kernel ? e->kernel : "");
	site_elf(tr, "td", "%.2f", e->duration_s);
	site_elf(tr, "td", "%d", e->attempts);
	site_el(tr, "td", e->gpus ? e->gpus : "");
	td = xmlNewChild(tr, NULL, X("td"), NULL);
	if (e->run_href)
		site_link(td, e->run_href, "run folder");
}

/* One coloured letter per result, oldest first, a line per image: the
 * outcome of every sweep at a glance, in few nodes. */
static void strip(xmlNodePtr body, const struct site_timeline *t)
{
	cleanup_strbuf struct strbuf cls = STRBUF_INIT, tip = STRBUF_INIT;
	xmlNodePtr p = NULL;

	site_el(body, "h2", "Outcome per sweep");
	for (size_t i = 0; i < t->n; i++) {
		const struct site_timeline_entry *e = &t->v[i];
		const char *outcome = site_outcome_name(e->outcome),
			   *status = site_status_name(e->status);
		char when[32], letter[2] = { e->outcome < SO_PASS ? '-' : outcome[0], '\0' };
		xmlNodePtr sp;

		if (!p || !same(e->image, t->v[i - 1].image)) {
			p = xmlNewChild(body, NULL, X("p"), NULL);
			site_prop(p, "class", "strip");
			site_el(p, "b", e->image ? e->image : "-");
		}
		site_date(e->started, false, when, sizeof(when));
		/* Piece by piece: two snprintf a result were 3% of a case
		 * page's instructions. */
		strbuf_reset(&cls);
		strbuf_addstr(&cls, "o-");
		strbuf_addstr(&cls, outcome);
		strbuf_addstr(&cls, " s-");
		strbuf_addstr(&cls, status);
		strbuf_reset(&tip);
		strbuf_addstr(&tip, when);
		strbuf_addch(&tip, ' ');
		strbuf_addstr(&tip, e->sweep_id);
		strbuf_addstr(&tip, ": ");
		strbuf_addstr(&tip, outcome);
		strbuf_addstr(&tip, ", ");
		strbuf_addstr(&tip, status);
		sp = site_el(p, "span", letter);
		site_prop(sp, "class", cls.buf);
		site_prop(sp, "title", tip.buf);
	}
}

/* The results table: every one that did not simply pass, and the last
 * SITE_TIMELINE_LAST of each image, newest first. */
static void entries(xmlNodePtr body, const struct site_timeline *t)
{
	cleanup_free bool *shown = xcalloc(t->n + 1, sizeof(bool));
	xmlNodePtr table, tr;

	for (size_t i = 0, end; i < t->n; i = end) {
		for (end = i; end < t->n && same(t->v[end].image, t->v[i].image); end++)
			;
		for (size_t k = i; k < end; k++)
			shown[k] = end - k <= SITE_TIMELINE_LAST || t->v[k].status != SS_PASS;
	}
	site_elf(body, "h2", "Results: every one that did not pass, and the last %d per image",
		 SITE_TIMELINE_LAST);
	table = xmlNewChild(body, NULL, X("table"), NULL);
	site_prop(table, "id", "results");
	tr = xmlNewChild(table, NULL, X("tr"), NULL);
	for (const char *const *h = (const char *const[]){ "sweep", "started (UTC)", "image",
							     "outcome", "status", "fault class",
							     "kernel", "wall s", "attempts", "GPUs",
							     "", NULL };
	     *h; h++)
		site_el(tr, "th", *h);
	for (size_t i = t->n; i-- > 0;)
		if (shown[i])
			entry_row(table, &t->v[i]);
}

int site_timeline_html(const struct site_timeline *t, struct strbuf *out, struct error *err)
{
	cleanup_free char *title = xasprintf("%s (%s)", t->case_name, t->label);
	struct site_doc d;
	xmlNodePtr p;

	site_doc_begin(&d, title);
	p = xmlNewChild(d.body, NULL, X("p"), NULL);
	site_link(p, t->grid_page, "back to the grid");
	site_elf(d.body, "p", "%zu result(s) in the window; flaky rate %zu/%zu (%.1f %%).",
		 t->results, t->flaky, t->results,
		 t->results ? 100.0 * (double)t->flaky / (double)t->results : 0.0);
	first_failures(d.body, t);
	wall_time_chart(d.body, t);
	site_perf_chart(d.body, t->perf);
	strip(d.body, t);
	faults_over_time(d.body, t);
	entries(d.body, t);
	return site_doc_finish(&d, out, err);
}

/* The site's page names, and its small pages: the index and the pass rates
 * per image and per GPU. */
#include "orchestrator/site/site_pages.h"

#include <stdio.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "orchestrator/site/site_doc.h"
#include "orchestrator/site/site_perf.h"

void site_grid_page_name(const char *label, size_t sweep_page, size_t case_page,
			 struct strbuf *out)
{
	const char *parts[] = { label };

	strbuf_addf(out, "grid-%016llx-%zu-%zu.html", (unsigned long long)site_fnv(parts, 1),
		    sweep_page, case_page);
}

void site_case_page_name(const char *label, const char *case_name, struct strbuf *out)
{
	const char *parts[] = { label, case_name };

	site_page_name("case", parts, 2, out);
}

static void rate_chart(xmlNodePtr parent, const char *title, const struct site_point *p,
		       size_t n)
{
	char first[32] = "", last[32] = "";
	struct site_series s = { .name = "pass rate", .v = p, .n = n };
	struct site_chart c = { .title = title, .x_first = first, .x_last = last,
				.y_unit = "", .y_max = 1, .width = 640, .height = 160 };

	if (n) {
		site_date((long long)p[0].x, false, first, sizeof(first));
		site_date((long long)p[n - 1].x, false, last, sizeof(last));
	}
	site_svg_line(parent, &c, &s, 1);
}

static void index_labels(xmlNodePtr body, const struct site_index *x)
{
	xmlNodePtr table = xmlNewChild(body, NULL, X("table"), NULL), tr;

	site_prop(table, "id", "labels");
	tr = xmlNewChild(table, NULL, X("tr"), NULL);
	for (const char *const *h = (const char *const[]){ "label", "last sweep", "rows",
							     "pass", "regressed", "fixed", "flaky",
							     "fail", "no replay", "pass rate", NULL };
	     *h; h++)
		site_el(tr, "th", *h);
	for (size_t i = 0; i < x->n_labels; i++) {
		const struct site_index_label *l = &x->labels[i];
		char when[32];
		xmlNodePtr td;

		site_date(l->last_started, true, when, sizeof(when));
		tr = xmlNewChild(table, NULL, X("tr"), NULL);
		site_prop(tr, "class", "label");
		site_link(xmlNewChild(tr, NULL, X("td"), NULL), l->grid_page, l->label);
		site_elf(tr, "td", "%s (%s)", l->last_sweep, when);
		site_elf(tr, "td", "%zu", l->n_rows);
		site_elf(tr, "td", "%u", l->counts[SS_PASS]);
		site_elf(tr, "td", "%u", l->counts[SS_REGRESSED]);
		site_elf(tr, "td", "%u", l->counts[SS_FIXED]);
		site_elf(tr, "td", "%u", l->counts[SS_FLAKY]);
		site_elf(tr, "td", "%u", l->counts[SS_FAIL]);
		site_elf(tr, "td", "%u", l->counts[SS_NONE] + l->counts[SS_MISSING]);
		td = xmlNewChild(tr, NULL, X("td"), NULL);
		rate_chart(td, "pass rate per sweep", l->pass_rate, l->n_sweeps);
	}
}

static void index_links(xmlNodePtr body, const char *title, const struct site_index_link *v,
			size_t n)
{
	xmlNodePtr ul;

	site_el(body, "h2", title);
	ul = xmlNewChild(body, NULL, X("ul"), NULL);
	for (size_t i = 0; i < n; i++) {
		xmlNodePtr li = xmlNewChild(ul, NULL, X("li"), NULL);

		site_link(li, v[i].page, v[i].name);
		xmlAddChild(li, xmlNewText(X(" ")));
		site_elf(li, "span", "%s pass %.1f %%", v[i].detail ? v[i].detail : "",
			 100 * v[i].pass_rate);
	}
}

/* What broke for the first time in the last sweeps and nobody has
 * claimed: first on the page. */
static void index_fresh(xmlNodePtr body, const struct site_index *x)
{
	xmlNodePtr ul, p;

	if (!x->signatures_page)
		return;
	site_el(body, "h2", "Untriaged, first seen today");
	if (!x->n_fresh)
		site_el(body, "p", "None: every signature of the last sweeps was seen before or "
				   "is a known issue.");
	ul = x->n_fresh ? xmlNewChild(body, NULL, X("ul"), NULL) : NULL;
	if (ul)
		site_prop(ul, "id", "fresh");
	for (size_t i = 0; i < x->n_fresh; i++) {
		xmlNodePtr li = xmlNewChild(ul, NULL, X("li"), NULL);

		site_link(li, x->fresh[i].page, x->fresh[i].name);
		site_elf(li, "span", " %s", x->fresh[i].detail ? x->fresh[i].detail : "");
	}
	p = xmlNewChild(body, NULL, X("p"), NULL);
	site_link(p, x->signatures_page, "All failure signatures");
}

int site_index_html(const struct site_index *x, struct strbuf *out, struct error *err)
{
	struct site_doc d;

	site_doc_begin(&d, "Sweep history");
	site_elf(d.body, "p", "Generated %s UTC from the history database; %zu label(s).",
		 x->generated ? x->generated : "-", x->n_labels);
	index_fresh(d.body, x);
	site_perf_index_line(d.body, x->perf);
	index_labels(d.body, x);
	index_links(d.body, "Pass rates per image ID", x->images, x->n_images);
	index_links(d.body, "Pass rates per GPU", x->gpus, x->n_gpus);
	return site_doc_finish(&d, out, err);
}

int site_rates_html(const struct site_rates *r, struct strbuf *out, struct error *err)
{
	cleanup_free char *title = xasprintf("%s %s", r->kind, r->key);
	cleanup_free struct site_point *pts = xcalloc(r->n + 1, sizeof(*pts));
	struct site_doc d;
	xmlNodePtr table, tr;

	site_doc_begin(&d, title);
	if (r->aka)
		site_elf(d.body, "p", "Tags: %s", r->aka);
	for (size_t i = 0; i < r->n; i++) {
		pts[i].x = (double)r->v[i].started;
		pts[i].y = r->v[i].total ? (double)r->v[i].pass / r->v[i].total : 0;
	}
	rate_chart(d.body, "pass rate per sweep", pts, r->n);
	table = xmlNewChild(d.body, NULL, X("table"), NULL);
	site_prop(table, "id", "rates");
	tr = xmlNewChild(table, NULL, X("tr"), NULL);
	site_el(tr, "th", "sweep");
	site_el(tr, "th", "label");
	site_el(tr, "th", "started (UTC)");
	site_el(tr, "th", "pass / replayed");
	for (size_t i = r->n; i-- > 0;) {
		char when[32];

		site_date(r->v[i].started, true, when, sizeof(when));
		tr = xmlNewChild(table, NULL, X("tr"), NULL);
		site_el(tr, "td", r->v[i].sweep_id);
		site_el(tr, "td", r->v[i].label);
		site_el(tr, "td", when);
		site_elf(tr, "td", "%u / %u", r->v[i].pass, r->v[i].total);
	}
	return site_doc_finish(&d, out, err);
}

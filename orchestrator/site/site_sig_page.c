/* The site's signature pages and their list (docs/sweep.md "The history
 * site"). Pure: the model in, HTML out, with the site's document and
 * stylesheet (no script). */
#include "orchestrator/site/site_sig.h"

#include <string.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "orchestrator/finding/known_issues.h"
#include "orchestrator/report/report.h"
#include "orchestrator/site/site_doc.h"

static void row2(xmlNodePtr table, const char *name, const char *value)
{
	xmlNodePtr tr = xmlNewChild(table, NULL, X("tr"), NULL);

	site_el(tr, "th", name);
	site_el(tr, "td", value ? value : "-");
}

static void seen(xmlNodePtr table, const char *name, const char *sweep, long long started)
{
	char when[32];
	cleanup_free char *t = NULL;

	site_date(started, true, when, sizeof(when));
	t = xasprintf("%s UTC (%s)", when, sweep ? sweep : "-");
	row2(table, name, t);
}

/* A list of items, each with its link and count; "and N more" past it. */
static void items(xmlNodePtr body, const char *title, const char *id,
		  const struct site_sig_item *v, size_t n, size_t total)
{
	xmlNodePtr ul;

	site_elf(body, "h2", "%s (%zu)", title, total);
	ul = xmlNewChild(body, NULL, X("ul"), NULL);
	site_prop(ul, "id", id);
	for (size_t i = 0; i < n; i++) {
		xmlNodePtr li = xmlNewChild(ul, NULL, X("li"), NULL);

		if (v[i].page)
			site_link(li, v[i].page, v[i].name);
		else
			site_el(li, "span", v[i].name);
		site_elf(li, "span", " %s%s%zu result%s", v[i].detail ? v[i].detail : "",
			 v[i].detail ? ", " : "", v[i].results, v[i].results == 1 ? "" : "s");
	}
	if (total > n)
		site_elf(body, "p", "and %zu more", total - n);
}

static void known(xmlNodePtr body, const struct site_sig *s)
{
	xmlNodePtr table, tr, td;

	site_el(body, "h2", "Known issue");
	if (!s->n_known) {
		site_el(body, "p", "Untriaged: no known-issue rule marked it. A rule to paste under "
				   "issues: in the known-issues file:");
		if (s->rule) {
			/* Its lines kept: it is pasted as it is. */
			cleanup_free char *rule = report_clean(s->rule, true);

			xmlNewTextChild(body, NULL, X("pre"), X(rule));
		}
		return;
	}
	table = xmlNewChild(body, NULL, X("table"), NULL);
	site_prop(table, "id", "known");
	tr = xmlNewChild(table, NULL, X("tr"), NULL);
	for (const char *const *h = (const char *const[]){ "issue", "owner", "link", "results",
							     "last marked (UTC)", NULL };
	     *h; h++)
		site_el(tr, "th", *h);
	for (size_t i = 0; i < s->n_known; i++) {
		const struct site_sig_known *k = &s->known[i];
		char when[32];

		site_date(k->last_started, true, when, sizeof(when));
		tr = xmlNewChild(table, NULL, X("tr"), NULL);
		site_el(tr, "td", k->id);
		site_el(tr, "td", k->owner ? k->owner : "-");
		td = xmlNewChild(tr, NULL, X("td"), NULL);
		/* Only an http(s) link is followed; anything else is text. */
		if (known_link_is_web(k->link))
			site_link(td, k->link, k->link);
		else
			site_el(td, "span", k->link ? k->link : "-");
		site_elf(tr, "td", "%zu", k->results);
		site_el(tr, "td", when);
	}
}

int site_sig_html(const struct site_sig *s, struct strbuf *out, struct error *err)
{
	cleanup_free char *title = xasprintf("Signature %s", s->id);
	cleanup_free char *seen_in = xasprintf("%zu result%s in %zu sweep%s", s->results,
					      s->results == 1 ? "" : "s", s->sweeps,
					      s->sweeps == 1 ? "" : "s");
	struct site_doc d;
	xmlNodePtr table;

	site_doc_begin(&d, title);
	site_link(xmlNewChild(d.body, NULL, X("p"), NULL), SITE_SIGNATURES_PAGE,
		  "all signatures");
	table = xmlNewChild(d.body, NULL, X("table"), NULL);
	site_prop(table, "id", "parts");
	row2(table, "outcome", s->outcome);
	row2(table, "fault class", s->fault_class);
	row2(table, "kernel family", s->family);
	row2(table, "evidence", s->evidence);
	row2(table, "stop reason", s->stop_reason);
	if (s->partial)
		row2(table, "partial", "yes: stored before signatures, from outcome, class "
				       "and kernel");
	seen(table, "first seen", s->first_sweep, s->first_started);
	seen(table, "last seen", s->last_sweep, s->last_started);
	row2(table, "in the windows shown", seen_in);
	known(d.body, s);
	items(d.body, "Cases", "cases", s->cases, s->n_cases, s->cases_total);
	items(d.body, "Images", "images", s->images, s->n_images, s->images_total);
	items(d.body, "GPUs", "gpus", s->gpus, s->n_gpus, s->gpus_total);
	return site_doc_finish(&d, out, err);
}

int site_sig_list_html(const struct site_sig_row *v, size_t n, struct strbuf *out,
		       struct error *err)
{
	struct site_doc d;
	xmlNodePtr table, tr;

	site_doc_begin(&d, "Failure signatures");
	site_elf(d.body, "p", "%zu signature%s in the windows shown, last seen first.", n,
		 n == 1 ? "" : "s");
	table = xmlNewChild(d.body, NULL, X("table"), NULL);
	site_prop(table, "id", "signatures");
	tr = xmlNewChild(table, NULL, X("tr"), NULL);
	for (const char *const *h = (const char *const[]){ "signature", "outcome", "fault class",
							     "kernel family", "known issue",
							     "cases", "results", "first seen",
							     "last seen", NULL };
	     *h; h++)
		site_el(tr, "th", *h);
	for (size_t i = 0; i < n; i++) {
		char first[32], last[32];
		cleanup_free char *known = NULL;

		site_date(v[i].first_started, false, first, sizeof(first));
		site_date(v[i].last_started, false, last, sizeof(last));
		if (v[i].known_id)
			known = xasprintf("%s (%s)", v[i].known_id,
					  v[i].known_owner ? v[i].known_owner : "-");
		tr = xmlNewChild(table, NULL, X("tr"), NULL);
		if (v[i].fresh)
			site_prop(tr, "class", "first");
		site_link(xmlNewChild(tr, NULL, X("td"), NULL), v[i].page, v[i].id);
		site_el(tr, "td", v[i].outcome ? v[i].outcome : "-");
		site_el(tr, "td", v[i].fault_class ? v[i].fault_class : "-");
		site_el(tr, "td", v[i].family ? v[i].family : "-");
		site_el(tr, "td", known ? known : "untriaged");
		site_elf(tr, "td", "%zu", v[i].cases);
		site_elf(tr, "td", "%zu", v[i].results);
		site_el(tr, "td", first);
		site_el(tr, "td", last);
	}
	return site_doc_finish(&d, out, err);
}

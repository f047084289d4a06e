/* report.html: one self-contained page (docs/sweep.md "Reports"). The case
 * x image matrix, each cell coloured by outcome with its status marked, a
 * strip of the case's outcomes in the label's last sweeps, filters by
 * status and outcome, links to finding.md and replay.log by relative path.
 * Built with libxml2's HTML tree API (text and attributes are escaped by
 * the serializer) and a Content-Security-Policy that lets nothing load
 * and no script run but its own (allowed by hash, not 'unsafe-inline').
 * The page without its matrix rows is one small tree; the rows are built
 * and serialised one at a time into the file, so a sweep of 10,000 cases
 * never holds the tree of 10,000 rows. */
#include "orchestrator/finding/known_issues.h"
#include "orchestrator/report/report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libxml/HTMLtree.h>

#include "common/cleanup.h"
#include "common/relpath.h"
#include "common/strvec.h"
#include "common/xalloc.h"
#include "orchestrator/finding/finding.h"

#define X(s) ((const xmlChar *)(s))

static const char css[] =
	"body{font:14px system-ui,sans-serif;margin:1.5em;color:#222}"
	"table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:3px 6px;"
	"vertical-align:top}th{background:#eee;text-align:left}"
	".o-PASS{background:#d7f5d7}.o-MAF,.o-FAIL,.o-ABORT{background:#f8d0d0}"
	".o-HANG{background:#f5ddb0}.o-UNKNOWN{background:#e6e0f5}.o-none{background:#eee}"
	".mark{font-weight:bold;margin-left:.4em}.s-regressed .mark,.s-changed .mark,"
	".s-missing .mark{color:#b00}.s-fixed .mark{color:#070}.s-flaky .mark{color:#a60}"
	".ab{color:#06c;margin-left:.3em}.trend span{display:inline-block;width:9px;"
	"height:9px;margin-right:1px;border:1px solid #999}.trend{margin-top:2px}"
	"a{margin-right:.5em}.hidden{display:none}.counts span{margin-right:1em}"
	/* The history squares in colours of their own, darker than any cell's
	 * and ringed in white, so a green square shows on a green cell. */
	".trend span{border:1px solid #333;box-shadow:0 0 0 1px #fff}"
	".trend .o-PASS{background:#2e9e3e}.trend .o-MAF,.trend .o-FAIL,.trend .o-ABORT"
	"{background:#c62828}.trend .o-HANG{background:#e08a00}.trend .o-UNKNOWN"
	"{background:#7e57c2}.trend .o-none{background:#9e9e9e}"
	".sig{font-size:12px;color:#333;margin-top:2px}.tri{font-size:11px;font-weight:bold;"
	"padding:0 4px;border-radius:3px;margin-left:.3em}.tri-known{background:#dde7f5;"
	"color:#1a4a8a}.tri-untriaged{background:#fff3c4;color:#7a5200;border:1px solid #c9a400}"
	".perf{font-size:12px;color:#333;margin-top:2px}.perf-slower{color:#b00;font-weight:bold}"
	".perf-faster{color:#070}.perf-noisy,.perf-insufficient,.perf-unmeasurable{color:#777}"
	"#triage table{margin-bottom:1em}#triage h3{margin:.6em 0 .3em}";

/* Rows stay when any of their cells matches every filter; the triage
 * tables' rows when they are the owner's (or no owner is chosen). An
 * address ending in #owner=<value> opens the page filtered (a link per
 * team). Its SHA-256 is
 * in the page's CSP: tests/unit/test_report_safety.c recomputes it from
 * the rendered page (openssl), so an edit without a new hash fails. */
#define REPORT_HTML_SCRIPT_HASH "sha256-tDVZ+eno5zhx/L8+CljBuGCf0GJAu53DbWpFipSQ5bs="
static const char script[] =
	"(function(){var s=document.getElementById('f-status'),"
	"o=document.getElementById('f-outcome'),w=document.getElementById('f-owner');"
	"function f(){var ow=w?w.value:'',i,k;"
	"var rows=document.querySelectorAll('tr.case');for(i=0;i<rows.length;i++){"
	"var cells=rows[i].querySelectorAll('td.cell'),show=false;"
	"for(k=0;k<cells.length;k++){var c=cells[k];"
	"if((!s.value||c.dataset.status===s.value)&&(!o.value||c.dataset.outcome===o.value)"
	"&&(!ow||c.dataset.owner===ow))show=true;}rows[i].classList.toggle('hidden',!show);}"
	"var g=document.querySelectorAll('tr.group');for(i=0;i<g.length;i++)"
	"g[i].classList.toggle('hidden',!!ow&&g[i].dataset.owner!==ow);}"
	"s.addEventListener('change',f);o.addEventListener('change',f);"
	"if(w){w.addEventListener('change',f);var h=/^#owner=(.*)$/.exec(location.hash);"
	"if(h){w.value=decodeURIComponent(h[1]);f();}}})();";

static xmlNodePtr el(xmlNodePtr parent, const char *name, const char *text)
{
	cleanup_free char *c = report_clean(text, true);

	return xmlNewTextChild(parent, NULL, X(name), c ? X(c) : NULL);
}

static void prop(xmlNodePtr n, const char *name, const char *value)
{
	cleanup_free char *c = report_clean(value ? value : "", false);

	xmlNewProp(n, X(name), X(c));
}

/* The outcome as a class name: only letters pass, anything else is "none". */
static const char *outcome_key(const char *o)
{
	enum finding_outcome e;

	return finding_outcome_from_name(o, &e) ? finding_outcome_name(e) : "none";
}

static void head(xmlNodePtr html, const struct report *r)
{
	xmlNodePtr h = xmlNewChild(html, NULL, X("head"), NULL), m;
	cleanup_free char *title = xasprintf("Sweep %s", r->sweep_id);

	m = xmlNewChild(h, NULL, X("meta"), NULL);
	xmlNewProp(m, X("charset"), X("utf-8"));
	m = xmlNewChild(h, NULL, X("meta"), NULL);
	xmlNewProp(m, X("http-equiv"), X("Content-Security-Policy"));
	/* The one script runs by its hash: a script anything else put in the
	 * page (were escaping ever to fail) does not. */
	xmlNewProp(m, X("content"), X("default-src 'none'; style-src 'unsafe-inline'; "
				      "script-src '" REPORT_HTML_SCRIPT_HASH "'; img-src data:"));
	el(h, "title", title);
	xmlAddChild(xmlNewChild(h, NULL, X("style"), NULL), xmlNewText(X(css)));
}

static void select_filter(xmlNodePtr parent, const char *id, const char *label,
			  const struct strvec *values)
{
	xmlNodePtr l = el(parent, "label", label), s, o;

	s = xmlNewChild(l, NULL, X("select"), NULL);
	prop(s, "id", id);
	o = el(s, "option", "all");
	prop(o, "value", "");
	for (size_t i = 0; i < values->n; i++) {
		o = el(s, "option", values->v[i]);
		prop(o, "value", values->v[i]);
	}
}

static void push_unique(struct strvec *v, const char *s)
{
	for (size_t i = 0; i < v->n; i++)
		if (!strcmp(v->v[i], s))
			return;
	strvec_push(v, s);
}

/* Whose a failure is, as the owner filter's value: "k:<owner>" for a
 * known one, "u" for an untriaged one (no owner name can be "u" then);
 * NULL for a cell without a signature. Caller frees. */
static char *owner_key(const struct report_case *c)
{
	if (!c->sig_id || !c->outcome || finding_outcome_is(c->outcome, OUTCOME_PASS))
		return NULL;
	if (!c->known_id)
		return xstrdup("u");
	return xasprintf("k:%s", c->known_owner ? c->known_owner : "");
}

/* The owner filter: "untriaged" and every known issue's owner. */
static void owner_filter(xmlNodePtr p, const struct report *r)
{
	cleanup_strvec struct strvec keys = STRVEC_INIT;
	xmlNodePtr l, s, o;

	for (size_t i = 0; i < r->n; i++) {
		cleanup_free char *k = owner_key(&r->cases[i]);

		if (k)
			push_unique(&keys, k);
	}
	if (!keys.n)
		return;
	l = el(p, "label", "Owner ");
	s = xmlNewChild(l, NULL, X("select"), NULL);
	prop(s, "id", "f-owner");
	o = el(s, "option", "all");
	prop(o, "value", "");
	for (size_t i = 0; i < keys.n; i++) {
		const char *k = keys.v[i];

		o = el(s, "option", !strcmp(k, "u") ? "untriaged" : k[2] ? k + 2 : "(no owner)");
		prop(o, "value", k);
	}
}

static void filters(xmlNodePtr body, const struct report *r)
{
	cleanup_strvec struct strvec st = STRVEC_INIT, oc = STRVEC_INIT;
	xmlNodePtr p = xmlNewChild(body, NULL, X("p"), NULL);

	for (size_t i = 0; i < r->n; i++) {
		push_unique(&st, sweep_status_name(r->cases[i].status));
		push_unique(&oc, outcome_key(r->cases[i].outcome));
	}
	select_filter(p, "f-status", "Status ", &st);
	select_filter(p, "f-outcome", " Outcome ", &oc);
}

static void file_link(xmlNodePtr parent, const char *dir, const char *file)
{
	cleanup_free char *href = xasprintf("%s/%s", dir, file);
	xmlNodePtr a = el(parent, "a", file);

	prop(a, "href", href);
}

/* A known issue's link is followed only when it is http(s). */
/* A heading and a table with its header row. */
static xmlNodePtr titled_table(xmlNodePtr sec, const char *title, const char *id,
			       const char *const *names)
{
	xmlNodePtr table, tr;

	el(sec, "h3", title);
	table = xmlNewChild(sec, NULL, X("table"), NULL);
	prop(table, "id", id);
	tr = xmlNewChild(table, NULL, X("tr"), NULL);
	for (; *names; names++)
		el(tr, "th", *names);
	return table;
}

/* A triage row, shown or hidden by the owner filter like the cells. */
static xmlNodePtr group_row(xmlNodePtr table, const struct report_case *first)
{
	xmlNodePtr tr = xmlNewChild(table, NULL, X("tr"), NULL);
	cleanup_free char *owner = owner_key(first);

	prop(tr, "class", "group");
	prop(tr, "data-owner", owner);
	return tr;
}

/* What a group covers, in words: "24 results (12 cases on 2 images)". */
static void covers(xmlNodePtr tr, const struct report_failure_group *g)
{
	cleanup_free char *t = xasprintf("%zu result%s (%zu case%s on %zu image%s)", g->results,
					 g->results == 1 ? "" : "s", g->cases,
					 g->cases == 1 ? "" : "s", g->images,
					 g->images == 1 ? "" : "s");

	el(tr, "td", t);
}

static void untriaged_table(xmlNodePtr sec, const struct report_failure_groups *g)
{
	static const char *const names[] = { "signature", "outcome", "fault class",
					     "kernel family", "evidence", "covers", NULL };
	xmlNodePtr table = titled_table(sec, "Untriaged, by signature", "untriaged", names);

	for (size_t k = 0; k < g->n_untriaged; k++) {
		const struct report_failure_group *u = &g->untriaged[k];
		const struct report_case *c = u->first;
		xmlNodePtr tr = group_row(table, c);

		el(xmlNewChild(tr, NULL, X("td"), NULL), "code", u->key);
		el(tr, "td", c->outcome ? c->outcome : "-");
		el(tr, "td", c->fault_class ? c->fault_class : "-");
		el(tr, "td", c->sig_family ? c->sig_family : "-");
		el(tr, "td", c->sig_evidence ? c->sig_evidence : "-");
		covers(tr, u);
	}
}

static void known_table(xmlNodePtr sec, const struct report_failure_groups *g)
{
	static const char *const names[] = { "issue", "owner", "link", "covers", "signatures",
					     NULL };
	xmlNodePtr table = titled_table(sec, "Known, by issue", "known", names);

	for (size_t k = 0; k < g->n_known; k++) {
		const struct report_failure_group *q = &g->known[k];
		const struct report_case *c = q->first;
		xmlNodePtr tr = group_row(table, c), td;
		cleanup_free char *sigs = xasprintf("%zu", q->signatures);

		el(tr, "td", q->key);
		el(tr, "td", c->known_owner ? c->known_owner : "-");
		td = xmlNewChild(tr, NULL, X("td"), NULL);
		if (known_link_is_web(c->known_link))
			prop(el(td, "a", c->known_link), "href", c->known_link);
		else
			el(td, "span", c->known_link ? c->known_link : "-");
		covers(tr, q);
		el(tr, "td", sigs);
	}
}

/* The page opens like summary.md: untriaged failures by signature, then
 * known ones by issue, each with what it covers; the expired rules. */
static void triage_section(xmlNodePtr body, const struct report *r)
{
	struct report_failure_groups g;
	xmlNodePtr sec, ul;
	cleanup_free char *line = NULL;

	report_failure_groups(r, &g);
	if (!g.n_untriaged && !g.n_known && !r->n_expired_rules) {
		report_failure_groups_release(&g);
		return;
	}
	sec = xmlNewChild(body, NULL, X("section"), NULL);
	prop(sec, "id", "triage");
	el(sec, "h2", "Triage");
	line = xasprintf("%zu untriaged signature%s, %zu known issue%s.", g.n_untriaged,
			 g.n_untriaged == 1 ? "" : "s", g.n_known, g.n_known == 1 ? "" : "s");
	el(sec, "p", line);
	/* Whose failures the tables and the matrix show. */
	owner_filter(xmlNewChild(sec, NULL, X("p"), NULL), r);
	if (r->n_expired_rules) {
		el(sec, "p", "Expired known-issue rules:");
		ul = xmlNewChild(sec, NULL, X("ul"), NULL);
		prop(ul, "class", "expired");
		for (size_t k = 0; k < r->n_expired_rules; k++)
			el(ul, "li", r->expired_rules[k]);
	}
	if (g.n_untriaged)
		untriaged_table(sec, &g);
	if (g.n_known)
		known_table(sec, &g);
	report_failure_groups_release(&g);
}

/* A failing cell's short signature (class and kernel family) and
 * whether a known issue covers it; without a signature, its fault class.
 * A known issue's link is a link only when it is http(s). */
static void triage(xmlNodePtr td, const struct report_case *c)
{
	cleanup_strbuf struct strbuf sig = STRBUF_INIT;
	xmlNodePtr d, sp;

	if (!c->outcome || finding_outcome_is(c->outcome, OUTCOME_PASS))
		return;
	if (c->sig_id)
		strbuf_addf(&sig, "%s%s%s", c->fault_class ? c->fault_class : "?",
			    c->sig_family ? " · " : "", c->sig_family ? c->sig_family : "");
	else if (c->fault_class)
		strbuf_addstr(&sig, c->fault_class);
	if (!sig.len)
		return;
	d = el(td, "div", sig.buf);
	prop(d, "class", "sig");
	if (c->sig_id) {
		cleanup_free char *tip = xasprintf("signature %s", c->sig_id);

		prop(d, "title", tip);
	}
	if (!c->sig_id)
		return;
	if (!c->known_id) {
		sp = el(d, "span", "untriaged");
		prop(sp, "class", "tri tri-untriaged");
		return;
	}
	{
		cleanup_free char *label = xasprintf("known %s", c->known_id);
		cleanup_free char *tip = xasprintf("%s%s%s", c->known_id,
						   c->known_owner ? ", owner " : "",
						   c->known_owner ? c->known_owner : "");
		bool web = known_link_is_web(c->known_link);

		sp = el(d, web ? "a" : "span", label);
		prop(sp, "class", "tri tri-known");
		prop(sp, "title", tip);
		if (web)
			prop(sp, "href", c->known_link);
	}
}

/* The GPU time against the baseline's: status and change, the numbers
 * in the tooltip (docs/perf.md "In the reports"). */
static void perf_line(xmlNodePtr td, const struct report_case *c)
{
	cleanup_strbuf struct strbuf tip = STRBUF_INIT, shown = STRBUF_INIT;
	cleanup_free char *cls = NULL;
	xmlNodePtr d;

	if (!c->perf)
		return;
	report_perf_line(c->perf, &tip);
	strbuf_addf(&shown, "GPU %s", perf_status_name(c->perf->status));
	if (isfinite(c->perf->cmp.ratio) && c->perf->cmp.ratio > 0)
		strbuf_addf(&shown, " %+.1f%%", 100.0 * (c->perf->cmp.ratio - 1.0));
	cls = xasprintf("perf perf-%s", perf_status_name(c->perf->status));
	d = el(td, "div", shown.buf);
	prop(d, "class", cls);
	prop(d, "title", tip.buf);
}

static void cell(xmlNodePtr tr, const struct report *r, const struct report_case *c)
{
	xmlNodePtr td = xmlNewChild(tr, NULL, X("td"), NULL), t, sp;
	cleanup_free char *cls = xasprintf("cell o-%s s-%s", outcome_key(c->outcome),
					   sweep_status_name(c->status));
	cleanup_free char *tip = xasprintf("%s %s %s", c->outcome ? c->outcome : "no replay",
					   c->fault_class ? c->fault_class : "",
					   c->kernel ? c->kernel : (c->message ? c->message : ""));
	cleanup_free char *owner = owner_key(c);

	prop(td, "class", cls);
	prop(td, "data-status", sweep_status_name(c->status));
	prop(td, "data-outcome", outcome_key(c->outcome));
	if (owner)
		prop(td, "data-owner", owner);
	prop(td, "title", tip);
	el(td, "span", c->outcome ? c->outcome : "-");
	sp = el(td, "span", sweep_status_name(c->status));
	prop(sp, "class", "mark");
	if (c->ab_differs) {
		sp = el(td, "span", "A/B");
		prop(sp, "class", "ab");
		prop(sp, "title", "outcome differs between images");
	}
	triage(td, c);
	perf_line(td, c);
	/* Only a plain relative path inside the sweep folder is a link. */
	if (relpath_plain_below(c->run_dir)) {
		xmlNodePtr links = xmlNewChild(td, NULL, X("div"), NULL);

		file_link(links, c->run_dir, "finding.md");
		file_link(links, c->run_dir, "replay.log");
	}
	t = xmlNewChild(td, NULL, X("div"), NULL);
	prop(t, "class", "trend");
	for (size_t i = 0; i < c->n_trend; i++) {
		const char *word = r->trend_words[c->trend[i]];
		cleanup_free char *k = xasprintf("o-%s", outcome_key(word));

		sp = xmlNewChild(t, NULL, X("span"), NULL);
		prop(sp, "class", k);
		prop(sp, "title", word);
	}
}

/* Where the rows go: a comment the page's serialisation is cut at. */
#define ROWS_MARK "hrr-matrix-rows"

struct rows {
	struct strvec images, names;
	xmlNodePtr table; /* a detached table the row being written sits in */
};

static void matrix(xmlNodePtr body, const struct report *r, struct rows *rows)
{
	xmlNodePtr table = xmlNewChild(body, NULL, X("table"), NULL), tr;

	prop(table, "id", "matrix");
	for (size_t i = 0; i < r->n; i++) {
		push_unique(&rows->images, r->cases[i].image);
		push_unique(&rows->names, r->cases[i].case_name);
	}
	tr = xmlNewChild(table, NULL, X("tr"), NULL);
	el(tr, "th", "case");
	for (size_t k = 0; k < rows->images.n; k++)
		el(tr, "th", rows->images.v[k]);
	/* No rows: the table as it is (a mark would change its layout). */
	if (rows->names.n)
		xmlAddChild(table, xmlNewDocComment(body->doc, X(ROWS_MARK)));
}

/* Row n of the matrix in a table of its own, followed by a comment when
 * more rows follow: the serializer lays it out as in the whole table. */
static xmlNodePtr row(const struct report *r, struct rows *rows, size_t n)
{
	xmlNodePtr tr = xmlNewChild(rows->table, NULL, X("tr"), NULL);

	prop(tr, "class", "case");
	el(tr, "th", rows->names.v[n]);
	for (size_t k = 0; k < rows->images.n; k++) {
		const struct report_case *found = NULL;

		for (size_t i = 0; i < r->n && !found; i++)
			if (!strcmp(r->cases[i].case_name, rows->names.v[n]) &&
			    !strcmp(r->cases[i].image, rows->images.v[k]))
				found = &r->cases[i];
		if (found)
			cell(tr, r, found);
		else
			el(tr, "td", "");
	}
	if (n + 1 < rows->names.n)
		xmlAddChild(rows->table, xmlNewDocComment(tr->doc, X(ROWS_MARK)));
	return tr;
}

static void summary(xmlNodePtr body, const struct report *r)
{
	cleanup_strbuf struct strbuf line = STRBUF_INIT;
	xmlNodePtr p;

	el(body, "h1", r->sweep_id);
	strbuf_addf(&line, "Label %s, baseline %s, state %s.", r->label,
		    r->baseline ? r->baseline : "none", sweep_state_name(r->state));
	el(body, "p", line.buf);
	p = xmlNewChild(body, NULL, X("p"), NULL);
	prop(p, "class", "counts");
	for (size_t k = 0; k < ST__COUNT; k++) {
		enum sweep_status s = sweep_status_report_order[k];
		cleanup_free char *t = xasprintf("%s: %zu", sweep_status_name(s), r->counts[s]);

		if (r->counts[s])
			el(p, "span", t);
	}
	strbuf_reset(&line);
	for (size_t k = 0; k < REPORT_PERF_ORDER_N; k++)
		if (r->perf_counts[report_perf_order[k]])
			strbuf_addf(&line, "%s%zu %s", line.len ? ", " : "GPU time: ",
				    r->perf_counts[report_perf_order[k]],
				    perf_status_name(report_perf_order[k]));
	if (line.len) {
		p = el(body, "p", line.buf);
		prop(p, "class", "counts");
	}
	strbuf_reset(&line);
	report_verdict(r, &line);
	el(body, "p", line.buf);
}

static void free_children(xmlNodePtr n)
{
	while (n->children) {
		xmlNodePtr c = n->children;

		xmlUnlinkNode(c);
		xmlFreeNode(c);
	}
}

/* The page's text around the rows, the rows, in the encoding
 * htmlDocDumpMemoryFormat writes without a meta encoding (HTML
 * entities: ASCII), so the bytes are those of the whole page dumped. */
static int write_page(htmlDocPtr doc, const struct report *r, struct rows *rows, FILE *out)
{
	xmlCharEncodingHandlerPtr enc = xmlFindCharEncodingHandler("HTML");
	xmlOutputBufferPtr buf = xmlOutputBufferCreateFile(out, enc);
	xmlChar *page = NULL;
	const char *cut, *mark = "<!--" ROWS_MARK "-->";
	int len = 0;

	if (!buf)
		return -1;
	htmlDocDumpMemoryFormat(doc, &page, &len, 1);
	if (!page) {
		xmlOutputBufferClose(buf);
		return -1;
	}
	cut = strstr((const char *)page, mark);
	xmlOutputBufferWrite(buf, cut ? (int)(cut - (const char *)page) : len, (const char *)page);
	for (size_t n = 0; cut && n < rows->names.n; n++) {
		htmlNodeDumpFormatOutput(buf, doc, row(r, rows, n), NULL, 1);
		free_children(rows->table);
	}
	if (cut)
		xmlOutputBufferWriteString(buf, cut + strlen(mark));
	xmlFree(page);
	return xmlOutputBufferClose(buf) < 0 ? -1 : 0;
}

int report_html(const struct report *r, FILE *out, struct error *err)
{
	htmlDocPtr doc = htmlNewDocNoDtD(NULL, NULL);
	struct rows rows = { STRVEC_INIT, STRVEC_INIT, NULL };
	xmlNodePtr html, body;
	int rc;

	if (!doc)
		return error_set(err, ERR_SYSTEM, 0, "report.html: cannot create a document");
	xmlCreateIntSubset(doc, X("html"), NULL, NULL);
	html = xmlNewNode(NULL, X("html"));
	xmlDocSetRootElement(doc, html);
	xmlNewProp(html, X("lang"), X("en"));
	head(html, r);
	body = xmlNewChild(html, NULL, X("body"), NULL);
	summary(body, r);
	triage_section(body, r);
	filters(body, r);
	matrix(body, r, &rows);
	xmlAddChild(xmlNewChild(body, NULL, X("script"), NULL), xmlNewText(X(script)));
	rows.table = xmlNewDocNode(doc, NULL, X("table"), NULL);
	rc = write_page(doc, r, &rows, out);
	xmlFreeNode(rows.table);
	xmlFreeDoc(doc);
	strvec_clear(&rows.images);
	strvec_clear(&rows.names);
	if (rc < 0)
		return error_set(err, ERR_SYSTEM, 0, "report.html: serialising failed");
	return 0;
}

/* What every page of the site shares (site_doc.h): the document, its CSP
 * and stylesheet, and the node helpers. Apart from any one page, so that a
 * page's own renderer and the pages it adds to call into it, never into
 * each other. */
#include "orchestrator/site/site_doc.h"

#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "orchestrator/report/report.h"
#include "orchestrator/site/site_pages.h"
#include "orchestrator/site/site_text.h"

static const char css_base[] =
	"body{font:14px system-ui,sans-serif;margin:1.2em;color:#222}"
	"table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 5px;"
	"vertical-align:top;text-align:left}th{background:#eee}"
	"table.grid td.c{text-align:center;min-width:1.4em;padding:1px}"
	"table.grid td.c a{text-decoration:none;color:inherit;display:block}"
	"table.grid th.case{font-weight:normal;max-width:28em;overflow:hidden;"
	"text-overflow:ellipsis;white-space:nowrap}"
	".o-PASS{background:#d7f5d7}.o-MAF,.o-FAIL,.o-ABORT{background:#f8c8c8}"
	".o-HANG{background:#f5ddb0}.o-UNKNOWN{background:#e6e0f5}.o-none{background:#e8e8e8}"
	".o-missing{background:#fff;color:#bbb}"
	".s-regressed{outline:2px solid #b00;outline-offset:-2px;font-weight:bold}"
	".s-fixed{color:#070;font-weight:bold}.s-flaky{color:#a60;font-weight:bold}"
	"td.first{box-shadow:inset 0 -3px 0 #600}li.first,tr.first{font-weight:bold}"
	".filters{margin:.6em 0}.filters b{margin:0 .3em 0 1em}nav a{margin-right:.8em}"
	"svg.chart{background:#fafafa;border:1px solid #ddd;margin:.5em 0}"
	"svg.chart circle.pt{r:2.5px}svg.chart circle.alert{r:3.5px;fill:#c00}"
	".strip span{display:inline-block;min-width:1.1em;text-align:center;margin-right:1px;"
	"font-size:11px}.strip b{display:inline-block;min-width:10em;font-weight:normal}";

/* The filter rules are generated (one per status and per filter slot), so
 * the stylesheet is built once and its hash with it. */
static struct strbuf css_text = STRBUF_INIT, csp_text = STRBUF_INIT;

const char *site_css(void)
{
	if (css_text.len)
		return css_text.buf;
	strbuf_addstr(&css_text, css_base);
	for (int s = 0; s < SS__COUNT; s++)
		strbuf_addf(&css_text, "#fs-%s:checked~table.grid tr.r:not(.hs-%s){display:none}",
			    site_status_name((enum site_status)s),
			    site_status_name((enum site_status)s));
	for (int i = 0; i < SITE_FILTER_MAX; i++)
		strbuf_addf(&css_text,
			    "#ff-%d:checked~table.grid tr.r:not(.hf%d){display:none}"
			    "#fk-%d:checked~table.grid tr.r:not(.hk%d){display:none}",
			    i, i, i, i);
	return css_text.buf;
}

/* Pages without a filter need none of its rules: a case page is written
 * every night, and the rules would be a third of it. */
const char *site_css_plain(void)
{
	return css_base;
}

const char *site_csp(void)
{
	const char *css = site_css();
	struct strbuf hash = STRBUF_INIT, plain = STRBUF_INIT;

	if (csp_text.len)
		return csp_text.buf;
	site_csp_hash(css, css_text.len, &hash);
	site_csp_hash(css_base, sizeof(css_base) - 1, &plain);
	/* Nothing loads, nothing runs, no form posts, no <base> redirects the
	 * relative links; only the site's two stylesheets, by hash. */
	strbuf_addf(&csp_text,
		    "default-src 'none'; style-src '%s' '%s'; script-src 'none'; img-src 'none'; "
		    "base-uri 'none'; form-action 'none'",
		    hash.buf, plain.buf);
	strbuf_release(&hash);
	strbuf_release(&plain);
	return csp_text.buf;
}

bool site_plain(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e)
			return false;
	return true;
}

xmlNodePtr site_el(xmlNodePtr parent, const char *name, const char *text)
{
	cleanup_free char *c = text && !site_plain(text) ? report_clean(text, false) : NULL;

	return xmlNewTextChild(parent, NULL, X(name), X(c ? c : text));
}

xmlNodePtr site_elf(xmlNodePtr parent, const char *name, const char *fmt, ...)
{
	cleanup_strbuf struct strbuf t = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&t, fmt, ap);
	va_end(ap);
	return site_el(parent, name, t.buf ? t.buf : "");
}

void site_prop(xmlNodePtr n, const char *name, const char *value)
{
	const char *v = value ? value : "";
	cleanup_free char *c = site_plain(v) ? NULL : report_clean(v, false);

	xmlNewProp(n, X(name), X(c ? c : v));
}

xmlNodePtr site_link(xmlNodePtr parent, const char *href, const char *text)
{
	xmlNodePtr a = site_el(parent, "a", text);

	site_prop(a, "href", href);
	return a;
}

void site_date(long long epoch, bool with_time, char *buf, size_t len)
{
	time_t t = (time_t)epoch;
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, with_time ? "%Y-%m-%d %H:%M" : "%Y-%m-%d", &tm);
}

static void doc_begin(struct site_doc *d, const char *title, const char *css)
{
	xmlNodePtr html, h, m;

	d->doc = htmlNewDocNoDtD(NULL, NULL);
	/* Element and attribute names interned once per page, not copied per
	 * node: a grid page has tens of thousands of nodes. */
	d->doc->dict = xmlDictCreate();
	xmlCreateIntSubset(d->doc, X("html"), NULL, NULL);
	html = xmlNewNode(NULL, X("html"));
	xmlDocSetRootElement(d->doc, html);
	xmlNewProp(html, X("lang"), X("en"));
	h = xmlNewChild(html, NULL, X("head"), NULL);
	m = xmlNewChild(h, NULL, X("meta"), NULL);
	xmlNewProp(m, X("charset"), X("utf-8"));
	m = xmlNewChild(h, NULL, X("meta"), NULL);
	xmlNewProp(m, X("http-equiv"), X("Content-Security-Policy"));
	xmlNewProp(m, X("content"), X(site_csp()));
	m = xmlNewChild(h, NULL, X("meta"), NULL);
	xmlNewProp(m, X("name"), X("referrer"));
	xmlNewProp(m, X("content"), X("no-referrer"));
	site_el(h, "title", title);
	xmlAddChild(xmlNewChild(h, NULL, X("style"), NULL), xmlNewText(X(css)));
	d->body = xmlNewChild(html, NULL, X("body"), NULL);
	site_link(xmlNewChild(d->body, NULL, X("nav"), NULL), SITE_INDEX, "all labels");
	site_el(d->body, "h1", title);
}

void site_doc_begin(struct site_doc *d, const char *title)
{
	doc_begin(d, title, site_css_plain());
}

void site_doc_begin_filtered(struct site_doc *d, const char *title)
{
	doc_begin(d, title, site_css());
}

int site_doc_finish(struct site_doc *d, struct strbuf *out, struct error *err)
{
	/* The tree is UTF-8 already: an output buffer without an encoder
	 * spares htmlDocDumpMemory's UTF-8 to UTF-8 conversion of every
	 * write, most of a page's cost. */
	xmlOutputBufferPtr buf = xmlAllocOutputBuffer(NULL);
	int rc = 0;

	if (!buf) {
		xmlFreeDoc(d->doc);
		return error_set(err, ERR_SYSTEM, 0, "history site: out of memory");
	}
	htmlDocContentDumpFormatOutput(buf, d->doc, "UTF-8", 0);
	xmlFreeDoc(d->doc);
	d->doc = NULL;
	if (buf->error || !xmlOutputBufferGetContent(buf))
		rc = error_set(err, ERR_SYSTEM, 0, "history site: serialising a page failed");
	else
		strbuf_add(out, xmlOutputBufferGetContent(buf), xmlOutputBufferGetSize(buf));
	xmlOutputBufferClose(buf);
	return rc;
}

/* Inside the site's renderers: one page's libxml2 document and the node
 * helpers every page uses. Not for other modules. */
#ifndef HRR_REPORT_SITE_DOC_H
#define HRR_REPORT_SITE_DOC_H

#include <stdbool.h>
#include <libxml/HTMLtree.h>

#include "common/error.h"
#include "common/strbuf.h"

#define X(s) ((const xmlChar *)(s))

struct site_doc {
	htmlDocPtr doc;
	xmlNodePtr body;
};

/* head (charset, CSP, title, the stylesheet), body with a link home. */
void site_doc_begin(struct site_doc *d, const char *title);
/* The same with the stylesheet of the filters' rules (a grid page). */
void site_doc_begin_filtered(struct site_doc *d, const char *title);
/* Serialise into out and free the document. */
int site_doc_finish(struct site_doc *d, struct strbuf *out, struct error *err)
	__attribute__((warn_unused_result));

/* Printable ASCII only: nothing to sanitise (libxml2 still escapes it). */
bool site_plain(const char *s);
/* A child element with sanitised text (NULL: none). */
xmlNodePtr site_el(xmlNodePtr parent, const char *name, const char *text);
xmlNodePtr site_elf(xmlNodePtr parent, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* An attribute with a sanitised value. */
void site_prop(xmlNodePtr n, const char *name, const char *value);
xmlNodePtr site_link(xmlNodePtr parent, const char *href, const char *text);
/* "2026-12-01" / "2026-12-01 21:00" (UTC). */
void site_date(long long epoch, bool with_time, char *buf, size_t len);

#endif

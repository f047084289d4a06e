/* junit.xml as Jenkins' and GitLab's JUnit readers expect it: one
 * <testsuite> per image, one <testcase> per case (docs/sweep.md "Reports").
 * Written with libxml2's xmlTextWriter, which escapes <>&" but passes
 * control characters and invalid UTF-8 through: report_clean comes first. */
#include "report/report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libxml/xmlwriter.h>

#include "common/cleanup.h"
#include "common/xalloc.h"

static void cleanup_writer_fn(xmlTextWriterPtr *w)
{
	if (*w)
		xmlFreeTextWriter(*w);
}
#define cleanup_writer __attribute__((cleanup(cleanup_writer_fn)))

static void cleanup_xmlbuf_fn(xmlBufferPtr *b)
{
	if (*b)
		xmlBufferFree(*b);
}
#define cleanup_xmlbuf __attribute__((cleanup(cleanup_xmlbuf_fn)))

#define X(s) ((const xmlChar *)(s))

/* Every xmlTextWriter call returns < 0 on failure; collect them so one
 * check at the end covers the document. */
struct jw {
	xmlTextWriterPtr w;
	bool failed;
};

static void ok(struct jw *j, int rc)
{
	if (rc < 0)
		j->failed = true;
}

static void attr(struct jw *j, const char *name, const char *value)
{
	cleanup_free char *c = report_clean(value ? value : "", false);

	ok(j, xmlTextWriterWriteAttribute(j->w, X(name), X(c)));
}

static void attrf(struct jw *j, const char *name, const char *fmt, double v)
{
	char buf[64];

	snprintf(buf, sizeof(buf), fmt, v);
	ok(j, xmlTextWriterWriteAttribute(j->w, X(name), X(buf)));
}

static void text(struct jw *j, const char *s)
{
	cleanup_free char *c = report_clean(s ? s : "", true);

	ok(j, xmlTextWriterWriteString(j->w, X(c)));
}

static bool is_failure(const struct report_case *c)
{
	return c->outcome && strcmp(c->outcome, "PASS") && c->status != ST_FLAKY;
}

static bool is_skipped(const struct report_case *c)
{
	return c->status == ST_BLOCKED || c->status == ST_NEEDS_CONFIRM;
}

static bool is_error(const struct report_case *c)
{
	return c->status == ST_ERROR || c->status == ST_MISSING;
}

static void testcase(struct jw *j, const struct report_case *c)
{
	ok(j, xmlTextWriterStartElement(j->w, X("testcase")));
	attr(j, "classname", c->image);
	attr(j, "name", c->case_name);
	attrf(j, "time", "%.3f", c->duration_s);
	if (is_failure(c)) {
		cleanup_free char *msg = xasprintf("%s %s %s", c->outcome,
						   c->fault_class ? c->fault_class : "-",
						   c->kernel ? c->kernel : "-");

		ok(j, xmlTextWriterStartElement(j->w, X("failure")));
		attr(j, "message", msg);
		attr(j, "type", sweep_status_name(c->status));
		text(j, c->finding_md ? c->finding_md : msg);
		ok(j, xmlTextWriterEndElement(j->w));
	} else if (is_skipped(c) || is_error(c)) {
		ok(j, xmlTextWriterStartElement(j->w, X(is_error(c) ? "error" : "skipped")));
		attr(j, "message", c->message ? c->message : sweep_status_name(c->status));
		attr(j, "type", sweep_status_name(c->status));
		ok(j, xmlTextWriterEndElement(j->w));
	}
	ok(j, xmlTextWriterStartElement(j->w, X("system-out")));
	if (c->status == ST_FLAKY)
		text(j, c->retry_note ? c->retry_note : "failed, then passed on a retry");
	if (c->status == ST_FLAKY)
		text(j, "\n");
	cleanup_free char *where = xasprintf("status: %s\nrun folder: %s\n",
					     sweep_status_name(c->status),
					     c->run_dir ? c->run_dir : "(none)");
	text(j, where);
	ok(j, xmlTextWriterEndElement(j->w));
	ok(j, xmlTextWriterEndElement(j->w));
}

struct suite_counts {
	size_t tests, failures, errors, skipped;
	double time;
};

static struct suite_counts count(const struct report *r, const char *image)
{
	struct suite_counts n = { 0 };

	for (size_t i = 0; i < r->n; i++) {
		const struct report_case *c = &r->cases[i];

		if (c->status == ST_GONE || (image && strcmp(c->image, image)))
			continue;
		n.tests++;
		n.failures += is_failure(c);
		n.errors += is_error(c);
		n.skipped += !is_failure(c) && is_skipped(c);
		n.time += c->duration_s;
	}
	return n;
}

static void counts_attrs(struct jw *j, struct suite_counts n)
{
	attrf(j, "tests", "%.0f", (double)n.tests);
	attrf(j, "failures", "%.0f", (double)n.failures);
	attrf(j, "errors", "%.0f", (double)n.errors);
	attrf(j, "skipped", "%.0f", (double)n.skipped);
	attrf(j, "time", "%.3f", n.time);
}

static bool image_seen_before(const struct report *r, size_t i)
{
	for (size_t k = 0; k < i; k++)
		if (r->cases[k].status != ST_GONE && !strcmp(r->cases[k].image, r->cases[i].image))
			return true;
	return false;
}

int report_junit(const struct report *r, struct strbuf *out, struct error *err)
{
	cleanup_xmlbuf xmlBufferPtr buf = xmlBufferCreate();
	cleanup_writer xmlTextWriterPtr w = buf ? xmlNewTextWriterMemory(buf, 0) : NULL;
	struct jw j = { w, !w };
	cleanup_free char *name = xasprintf("hrr-docker-replay sweep %s", r->sweep_id);

	if (!w)
		return error_set(err, ERR_SYSTEM, 0, "junit.xml: cannot create an XML writer");
	xmlTextWriterSetIndent(w, 1);
	ok(&j, xmlTextWriterStartDocument(w, NULL, "UTF-8", NULL));
	ok(&j, xmlTextWriterStartElement(w, X("testsuites")));
	attr(&j, "name", name);
	counts_attrs(&j, count(r, NULL));
	for (size_t i = 0; i < r->n; i++) {
		if (r->cases[i].status == ST_GONE || image_seen_before(r, i))
			continue;
		ok(&j, xmlTextWriterStartElement(w, X("testsuite")));
		attr(&j, "name", r->cases[i].image);
		counts_attrs(&j, count(r, r->cases[i].image));
		for (size_t k = i; k < r->n; k++)
			if (r->cases[k].status != ST_GONE &&
			    !strcmp(r->cases[k].image, r->cases[i].image))
				testcase(&j, &r->cases[k]);
		ok(&j, xmlTextWriterEndElement(w));
	}
	ok(&j, xmlTextWriterEndDocument(w));
	xmlFreeTextWriter(w); /* flushes into buf */
	w = NULL;
	if (j.failed)
		return error_set(err, ERR_SYSTEM, 0, "junit.xml: the XML writer failed");
	strbuf_add(out, xmlBufferContent(buf), (size_t)xmlBufferLength(buf));
	return 0;
}

/* junit.xml as Jenkins' and GitLab's JUnit readers expect it, in Maven
 * Surefire's form: one <testsuite> per image with <properties>, one
 * <testcase> per case, reruns as rerunFailure / flakyFailure
 * (docs/sweep.md "Reports").
 * Written with libxml2's xmlTextWriter, which escapes <>&" but passes
 * control characters and invalid UTF-8 through: report_clean comes first. */
#include "orchestrator/report/report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libxml/xmlwriter.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "orchestrator/sweep/case_result.h"

static void cleanup_writer_fn(xmlTextWriterPtr *w)
{
	if (*w)
		xmlFreeTextWriter(*w);
}
#define cleanup_writer __attribute__((cleanup(cleanup_writer_fn)))

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

/* Infrastructure (an engine or pull error, no GPU free, the host's OOM
 * killer, a case missing from a cluster's results) is an <error>; the
 * replay's own non-PASS outcome a <failure> (docs/sweep.md "Reports"). */
static bool kind_infra(const char *kind)
{
	enum result_kind k;

	return case_result_kind_from_name(kind, &k) && k == RESULT_KIND_INFRA;
}

static bool is_infra(const struct report_case *c)
{
	return c->status == ST_ERROR || c->status == ST_MISSING ||
	       kind_infra(c->kind);
}

static bool is_failure(const struct report_case *c)
{
	return c->outcome && !finding_outcome_is(c->outcome, OUTCOME_PASS) && c->status != ST_FLAKY &&
	       !is_infra(c);
}

static bool is_skipped(const struct report_case *c)
{
	return c->status == ST_BLOCKED || c->status == ST_NEEDS_CONFIRM;
}

static bool is_error(const struct report_case *c)
{
	return is_infra(c) && c->status != ST_FLAKY && !finding_outcome_is(c->outcome, OUTCOME_PASS);
}

static char *verdict_text(const char *outcome, const char *fault_class, const char *kernel)
{
	return xasprintf("%s %s %s", outcome ? outcome : "no replay", fault_class ? fault_class : "-",
			 kernel ? kernel : "-");
}

/* Surefire's rerun elements: one per earlier attempt that did not PASS,
 * rerun* when the case still fails, flaky* when it passed in the end;
 * *Error for an infrastructure attempt, *Failure for a workload one. */
static void reruns(struct jw *j, const struct report_case *c, bool flaky)
{
	for (size_t i = 0; i < c->n_earlier; i++) {
		const struct report_attempt *a = &c->earlier[i];
		bool infra = kind_infra(a->kind);
		cleanup_free char *msg = verdict_text(a->outcome, a->fault_class, a->kernel);
		cleanup_free char *where = xasprintf("attempt %d on GPU %s (unique_id %s) of %s\n"
						     "run folder: %s\n%s%s",
						     a->attempt, a->gpus && *a->gpus ? a->gpus : "-",
						     a->gpu_uids ? a->gpu_uids : "-",
						     a->host ? a->host : "-",
						     a->run_dir ? a->run_dir : "(none)",
						     a->message ? a->message : "",
						     a->message ? "\n" : "");

		ok(j, xmlTextWriterStartElement(j->w, X(flaky ? (infra ? "flakyError" : "flakyFailure")
							 : (infra ? "rerunError" : "rerunFailure"))));
		attr(j, "message", infra && a->message ? a->message : msg);
		attr(j, "type", infra ? a->kind : a->outcome ? a->outcome : a->state);
		ok(j, xmlTextWriterStartElement(j->w, X("stackTrace")));
		text(j, msg);
		ok(j, xmlTextWriterEndElement(j->w));
		ok(j, xmlTextWriterStartElement(j->w, X("system-out")));
		text(j, where);
		ok(j, xmlTextWriterEndElement(j->w));
		ok(j, xmlTextWriterEndElement(j->w));
	}
}

/* The failure's message: the verdict, its signature, and the known issue
 * or "untriaged" (a known failure stays a failure). */
static char *failure_message(const struct report_case *c, const char *verdict)
{
	if (!c->sig_id)
		return xstrdup(verdict);
	if (c->known_id)
		return xasprintf("%s [signature %s; known issue %s %s, owner %s]", verdict, c->sig_id,
				 c->known_id, c->known_link ? c->known_link : "-",
				 c->known_owner ? c->known_owner : "-");
	return xasprintf("%s [signature %s; untriaged]", verdict, c->sig_id);
}

/* A case whose replay passed but whose GPU time is `slower`, with
 * perf-slower in --fail-on: a failure of its own type (docs/perf.md). */
static void perf_failure(struct jw *j, const struct report_case *c)
{
	cleanup_strbuf struct strbuf msg = STRBUF_INIT;

	strbuf_addstr(&msg, "GPU time ");
	report_perf_line(c->perf, &msg);
	ok(j, xmlTextWriterStartElement(j->w, X("failure")));
	attr(j, "message", msg.buf);
	attr(j, "type", "perf-regression");
	text(j, msg.buf);
	ok(j, xmlTextWriterEndElement(j->w));
}

/* Surefire's order inside a testcase: failure, rerunFailure, flakyFailure,
 * skipped, error, rerunError, flakyError, system-out. */
static void testcase(struct jw *j, const struct report *r, const struct report_case *c)
{
	bool flaky = c->status == ST_FLAKY;

	ok(j, xmlTextWriterStartElement(j->w, X("testcase")));
	attr(j, "classname", c->image);
	attr(j, "name", c->case_name);
	attrf(j, "time", "%.3f", c->duration_s);
	if (is_failure(c)) {
		cleanup_free char *verdict = verdict_text(c->outcome, c->fault_class, c->kernel);
		cleanup_free char *msg = failure_message(c, verdict);

		ok(j, xmlTextWriterStartElement(j->w, X("failure")));
		attr(j, "message", msg);
		attr(j, "type", sweep_status_name(c->status));
		text(j, c->finding_md ? c->finding_md : msg);
		ok(j, xmlTextWriterEndElement(j->w));
	} else if (report_perf_fails(r, c)) {
		perf_failure(j, c);
	}
	/* A case that passed in the end after failures is flaky in Surefire's
	 * terms whatever its status: flakyError when they were the GPU's. */
	if (flaky || is_failure(c) || (c->n_earlier && finding_outcome_is(c->outcome, OUTCOME_PASS)))
		reruns(j, c, !is_failure(c) && !report_perf_fails(r, c));
	if (is_skipped(c)) {
		ok(j, xmlTextWriterStartElement(j->w, X("skipped")));
		attr(j, "message", c->message ? c->message : sweep_status_name(c->status));
		attr(j, "type", sweep_status_name(c->status));
		ok(j, xmlTextWriterEndElement(j->w));
	} else if (is_error(c)) {
		ok(j, xmlTextWriterStartElement(j->w, X("error")));
		attr(j, "message", c->message ? c->message : sweep_status_name(c->status));
		attr(j, "type", sweep_status_name(c->status));
		text(j, c->outcome ? c->finding_md : NULL);
		ok(j, xmlTextWriterEndElement(j->w));
		reruns(j, c, false);
	}
	ok(j, xmlTextWriterStartElement(j->w, X("system-out")));
	if (flaky)
		text(j, c->retry_note ? c->retry_note : "failed, then passed on a retry");
	if (c->acquitted)
		text(j, "failed only on a quarantined or suspect GPU, then passed on another: the "
			"GPU's failure, not the case's");
	if (flaky || c->acquitted)
		text(j, "\n");
	cleanup_free char *where = xasprintf("status: %s\nkind: %s\nrun folder: %s\n",
					     sweep_status_name(c->status),
					     c->kind ? c->kind : "-",
					     c->run_dir ? c->run_dir : "(none)");
	text(j, where);
	if (c->perf) {
		cleanup_strbuf struct strbuf gpu = STRBUF_INIT;

		strbuf_addstr(&gpu, "GPU time: ");
		report_perf_line(c->perf, &gpu);
		strbuf_addch(&gpu, '\n');
		text(j, gpu.buf);
	}
	ok(j, xmlTextWriterEndElement(j->w));
	ok(j, xmlTextWriterEndElement(j->w));
}

static void property(struct jw *j, const char *case_name, const char *key, const char *value)
{
	cleanup_free char *name = case_name ? xasprintf("%s.%s", case_name, key) : xstrdup(key);

	if (!value || !*value)
		return;
	ok(j, xmlTextWriterStartElement(j->w, X("property")));
	attr(j, "name", name);
	attr(j, "value", value);
	ok(j, xmlTextWriterEndElement(j->w));
}

static void property_num(struct jw *j, const char *case_name, const char *key,
			 const char *fmt, double v)
{
	char buf[64];

	if (!isfinite(v))
		return;
	snprintf(buf, sizeof(buf), fmt, v);
	property(j, case_name, key, buf);
}

/* The GPU-time comparison's numbers (docs/perf.md "In the reports"). */
static void perf_properties(struct jw *j, const struct report_case *c)
{
	const struct report_perf *p = c->perf;
	char buf[96];

	if (!p)
		return;
	property(j, c->case_name, "perf_status", perf_status_name(p->status));
	{
		cleanup_strbuf struct strbuf base = STRBUF_INIT;

		report_perf_baseline_text(p, &base);
		property(j, c->case_name, "perf_baseline", base.buf);
	}
	property_num(j, c->case_name, "perf_median_ms", "%.1f", p->cmp.median_new);
	property_num(j, c->case_name, "perf_baseline_median_ms", "%.1f", p->cmp.median_base);
	property_num(j, c->case_name, "perf_ratio", "%.4f", p->cmp.ratio);
	if (isfinite(p->cmp.ratio) && isfinite(p->cmp.ci_lo) && isfinite(p->cmp.ci_hi)) {
		snprintf(buf, sizeof(buf), "%.4f %.4f", p->cmp.ci_lo, p->cmp.ci_hi);
		property(j, c->case_name, "perf_interval", buf);
	}
	property_num(j, c->case_name, "perf_p", "%.4g", p->cmp.p);
	property_num(j, c->case_name, "perf_p_adjusted", "%.4g", p->cmp.p_adj);
	snprintf(buf, sizeof(buf), "%zu/%zu", p->cmp.n_new, p->cmp.n_base);
	property(j, c->case_name, "perf_n", buf);
}

/* The schema has no per-test properties: the suite's carry each case's
 * as "<case>.<key>" beside the image's. */
static void properties(struct jw *j, const struct report *r, size_t first)
{
	ok(j, xmlTextWriterStartElement(j->w, X("properties")));
	property(j, NULL, "image", r->cases[first].image);
	property(j, NULL, "image_id", r->cases[first].image_id);
	property(j, NULL, "sweep", r->sweep_id);
	for (size_t k = first; k < r->n; k++) {
		const struct report_case *c = &r->cases[k];

		if (c->status == ST_GONE || strcmp(c->image, r->cases[first].image))
			continue;
		property(j, c->case_name, "kind", c->kind);
		property(j, c->case_name, "gpus", c->gpus);
		property(j, c->case_name, "gpu_unique_ids", c->gpu_uids);
		property(j, c->case_name, "host", c->host);
		property(j, c->case_name, "fault_class", c->fault_class);
		property(j, c->case_name, "kernel", c->kernel);
		property(j, c->case_name, "signature", c->sig_id);
		property(j, c->case_name, "kernel_family", c->sig_family);
		property(j, c->case_name, "evidence", c->sig_evidence);
		property(j, c->case_name, "known_issue", c->known_id);
		property(j, c->case_name, "known_issue_link", c->known_link);
		property(j, c->case_name, "known_issue_owner", c->known_owner);
		perf_properties(j, c);
	}
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
		n.failures += is_failure(c) || report_perf_fails(r, c);
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

int report_junit(const struct report *r, FILE *out, struct error *err)
{
	/* Straight into the file: the writer owns and closes buf. */
	xmlOutputBufferPtr buf = xmlOutputBufferCreateFile(out, NULL);
	cleanup_writer xmlTextWriterPtr w = buf ? xmlNewTextWriter(buf) : NULL;
	struct jw j = { w, !w };
	cleanup_free char *name = xasprintf("hrr-docker-replay sweep %s", r->sweep_id);

	if (!w) {
		xmlOutputBufferClose(buf);
		return error_set(err, ERR_SYSTEM, 0, "junit.xml: cannot create an XML writer");
	}
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
		properties(&j, r, i);
		for (size_t k = i; k < r->n; k++)
			if (r->cases[k].status != ST_GONE &&
			    !strcmp(r->cases[k].image, r->cases[i].image))
				testcase(&j, r, &r->cases[k]);
		ok(&j, xmlTextWriterEndElement(w));
	}
	ok(&j, xmlTextWriterEndDocument(w));
	ok(&j, xmlTextWriterFlush(w));
	if (j.failed)
		return error_set(err, ERR_SYSTEM, 0, "junit.xml: the XML writer failed");
	return 0;
}

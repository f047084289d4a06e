/* junit.xml in Surefire's form: workload failures as <failure>,
 * infrastructure as <error>, reruns as rerunFailure / flakyFailure, suite
 * properties; valid against the tests' XSD (tests/fixtures/junit). */
#include <criterion/criterion.h>
#include <string.h>
#include <libxml/parser.h>
#include <libxml/xmlschemas.h>
#include <libxml/xpath.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "orchestrator/report/report.h"
#include "tests/support/report_text.h"
#include "tests/support/scratch.h"

static int count(xmlDocPtr doc, const char *expr)
{
	xmlXPathContextPtr ctx = xmlXPathNewContext(doc);
	xmlXPathObjectPtr o = xmlXPathEvalExpression((const xmlChar *)expr, ctx);
	int n = o && o->nodesetval ? o->nodesetval->nodeNr : 0;

	xmlXPathFreeObject(o);
	xmlXPathFreeContext(ctx);
	return n;
}

static bool valid(xmlDocPtr doc)
{
	cleanup_free char *xsd = xasprintf("%s/tests/fixtures/junit/junit.xsd", test_source_root());
	xmlSchemaParserCtxtPtr pc = xmlSchemaNewParserCtxt(xsd);
	xmlSchemaPtr schema = xmlSchemaParse(pc);
	xmlSchemaValidCtxtPtr vc = schema ? xmlSchemaNewValidCtxt(schema) : NULL;
	int rc = vc ? xmlSchemaValidateDoc(vc, doc) : -1;

	xmlSchemaFreeValidCtxt(vc);
	xmlSchemaFree(schema);
	xmlSchemaFreeParserCtxt(pc);
	return rc == 0;
}

Test(report_junit, workload_infrastructure_and_flaky_in_surefire_form)
{
	struct report_case cases[4] = { 0 };
	struct report_attempt early[4] = { 0 };
	struct report r = { .sweep_id = "s1", .label = "l", .state = SWEEP_FINISHED, .cases = cases,
			    .n = 4 };
	cleanup_strbuf struct strbuf x = STRBUF_INIT;
	struct error err;
	xmlDocPtr doc;

	/* A MAF that failed twice; an OOM kill (infrastructure); an engine
	 * error; a case that failed on GPU 0 and passed on GPU 1. */
	cases[0] = (struct report_case){ .case_name = "a", .image = "img", .image_id = "sha256:1",
					 .outcome = "MAF", .fault_class = "illegal_memory_access",
					 .kernel = "k<T>", .status = ST_REGRESSED, .kind = "workload",
					 .gpus = "1", .gpu_uids = "22", .host = "n1", .n_earlier = 1 };
	cases[0].earlier = &early[0];
	early[0] = (struct report_attempt){ .attempt = 1, .state = "done",
					    .outcome = "MAF", .kind = "workload",
					    .gpus = "0", .gpu_uids = "21" };
	cases[1] = (struct report_case){ .case_name = "b", .image = "img", .outcome = "ABORT",
					 .fault_class = "replay_oom", .status = ST_NEW,
					 .kind = "infrastructure" };
	cases[2] = (struct report_case){ .case_name = "c", .image = "img", .status = ST_ERROR,
					 .message = "engine: connection refused",
					 .kind = "infrastructure" };
	cases[3] = (struct report_case){ .case_name = "d", .image = "img", .outcome = "PASS",
					 .status = ST_FLAKY, .kind = "workload", .n_earlier = 1 };
	cases[3].earlier = &early[3];
	early[3] = (struct report_attempt){ .attempt = 1, .state = "done",
					    .outcome = "MAF", .kind = "workload",
					    .gpus = "0", .gpu_uids = "21" };
	report_finish(&r);
	cr_assert_eq(report_text(report_junit, &r, &x, &err), 0, "%s", err.msg);
	doc = xmlReadMemory(x.buf, (int)x.len, "junit.xml", NULL, XML_PARSE_NONET);
	cr_assert_not_null(doc, "%s", x.buf);
	cr_expect(valid(doc), "valid against the XSD:\n%s", x.buf);
	cr_expect_eq(count(doc, "//testcase[@name='a']/failure"), 1);
	cr_expect_eq(count(doc, "//testcase[@name='a']/rerunFailure/stackTrace"), 1);
	cr_expect_eq(count(doc, "//testcase[@name='b']/error"), 1, "the OOM killer is the host's");
	cr_expect_eq(count(doc, "//testcase[@name='b']/failure"), 0);
	cr_expect_eq(count(doc, "//testcase[@name='c']/error"), 1);
	cr_expect_eq(count(doc, "//testcase[@name='d']/flakyFailure"), 1);
	cr_expect_eq(count(doc, "//testcase[@name='d']/failure"), 0, "flaky is not a failure");
	cr_expect_eq(count(doc, "/testsuites[@failures='1' and @errors='2']"), 1, "%s", x.buf);
	cr_expect_eq(count(doc, "//testsuite/properties/property[@name='a.gpu_unique_ids' and "
				"@value='22']"), 1);
	cr_expect_eq(count(doc, "//testsuite/properties/property[@name='a.host' and @value='n1']"), 1);
	cr_expect_eq(count(doc, "//testsuite/properties/property[@name='image_id']"), 1);
	xmlFreeDoc(doc);
}

Test(report_junit, a_case_that_failed_only_on_a_suspect_gpu_is_not_flaky)
{
	struct report_case cases[1] = { 0 };
	struct report_attempt early[1] = { 0 };
	struct sweep_gpu_note note = { .gpu = 0, .unique_id = 21, .quarantined = true };
	struct report r = { .sweep_id = "s1", .label = "l", .state = SWEEP_FINISHED, .cases = cases,
			    .n = 1, .gpu_notes = &note, .n_gpu_notes = 1 };
	cleanup_strbuf struct strbuf x = STRBUF_INIT;
	struct error err;
	xmlDocPtr doc;

	cases[0] = (struct report_case){ .case_name = "d", .image = "img", .outcome = "PASS",
					 .prev_outcome = "PASS", .status = ST_FLAKY,
					 .kind = "workload", .n_earlier = 1 };
	cases[0].earlier = &early[0];
	early[0] = (struct report_attempt){ .attempt = 1, .state = "done",
					    .outcome = "MAF", .kind = "workload",
					    .gpus = "0" };
	report_acquit_suspect_gpus(&r);
	report_finish(&r);
	cr_expect_eq(cases[0].status, ST_PASS, "PASS before, PASS now elsewhere");
	cr_expect_eq(r.counts[ST_FLAKY], 0);
	cr_assert_eq(report_text(report_junit, &r, &x, &err), 0, "%s", err.msg);
	doc = xmlReadMemory(x.buf, (int)x.len, "junit.xml", NULL, XML_PARSE_NONET);
	cr_assert_not_null(doc);
	cr_expect(valid(doc), "%s", x.buf);
	cr_expect_eq(count(doc, "//testcase[@name='d']/flakyError[@type='infrastructure']"), 1,
		     "%s", x.buf);
	cr_expect_eq(count(doc, "//testcase[@name='d']/flakyFailure"), 0);
	xmlFreeDoc(doc);

	/* The same failure on a GPU nobody suspects stays flaky. */
	cases[0].status = ST_FLAKY;
	cases[0].acquitted = false;
	cases[0].earlier[0].kind = "workload";
	cases[0].earlier[0].gpus = "3";
	report_acquit_suspect_gpus(&r);
	cr_expect_eq(cases[0].status, ST_FLAKY);
}

/* A passing case whose GPU time is slower: its numbers in the suite's
 * properties always, a failure of its own type only with perf-slower in
 * --fail-on (docs/perf.md "In the reports"). */
Test(report_junit, a_slower_gpu_time_fails_only_when_asked)
{
	struct report_perf perf = {
		.status = PERF_SLOWER, .baseline_image = "rocm:a", .gfx = "gfx942",
		.device_id = 29857,
		.cmp = { .status = PERF_SLOWER, .n_base = 5, .n_new = 5, .median_base = 40.0,
			 .median_new = 44.1, .ratio = 1.103, .ci_lo = 1.09, .ci_hi = 1.11,
			 .p = 2.0 / 252 },
	};
	struct report_case c = { .case_name = "hot", .image = "rocm:b", .outcome = "PASS",
				 .prev_outcome = "PASS", .status = ST_PASS, .kind = "workload",
				 .perf = &perf };
	struct report r = { .sweep_id = "s1", .label = "l", .state = SWEEP_FINISHED, .cases = &c,
			    .n = 1 };
	cleanup_strbuf struct strbuf x = STRBUF_INIT, y = STRBUF_INIT;
	struct error err;
	xmlDocPtr doc;

	report_finish(&r);
	cr_assert_eq(report_text(report_junit, &r, &x, &err), 0, "%s", err.msg);
	doc = xmlReadMemory(x.buf, (int)x.len, "junit.xml", NULL, XML_PARSE_NONET);
	cr_assert_not_null(doc, "%s", x.buf);
	cr_expect_eq(count(doc, "//failure"), 0, "not asked: no failure\n%s", x.buf);
	cr_expect_eq(count(doc, "//property[@name='hot.perf_status' and @value='slower']"), 1,
		     "%s", x.buf);
	cr_expect_eq(count(doc, "//property[@name='hot.perf_ratio' and @value='1.1030']"), 1);
	cr_expect_eq(count(doc, "//property[@name='hot.perf_p' and @value='0.007937']"), 1);
	cr_expect_eq(count(doc, "//property[@name='hot.perf_interval' and "
				"@value='1.0900 1.1100']"), 1);
	cr_expect_eq(count(doc, "//property[@name='hot.perf_n' and @value='5/5']"), 1);
	xmlFreeDoc(doc);

	r.perf_fail = true;
	cr_assert_eq(report_text(report_junit, &r, &y, &err), 0, "%s", err.msg);
	doc = xmlReadMemory(y.buf, (int)y.len, "junit.xml", NULL, XML_PARSE_NONET);
	cr_assert_not_null(doc, "%s", y.buf);
	cr_expect(valid(doc), "valid against the XSD:\n%s", y.buf);
	cr_expect_eq(count(doc, "//testcase[@name='hot']/failure[@type='perf-regression']"), 1,
		     "%s", y.buf);
	cr_expect_eq(count(doc, "/testsuites[@failures='1']"), 1, "%s", y.buf);
	cr_expect(strstr(y.buf, "GPU time slower +10.3%: median 44.1 ms against 40.0 ms"), "%s",
		  y.buf);
	xmlFreeDoc(doc);
}

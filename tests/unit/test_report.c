#include <criterion/criterion.h>
#include <string.h>
#include <cjson/cJSON.h>
#include <libxml/HTMLparser.h>
#include <libxml/parser.h>
#include <libxml/xpath.h>

#include "common/cleanup.h"
#include "orchestrator/report/report.h"
#include "tests/support/report_text.h"

/* ESC colour, a control character, a split UTF-8 sequence, <>&". */
#define NASTY "void k<float, 4>(T&) \x1b[31mred\x1b[0m \x01 \xe2\x82 \"q\""

static struct report_case cases[] = {
	{ .case_name = "lib/c.hrr/pid-1", .image = "rocm:nightly", .outcome = "PASS",
	  .status = ST_PASS, .attempts = 1, .duration_s = 1.5, .run_dir = "runs/001",
	  .trend = { 0, 0 }, .n_trend = 2 },
	{ .case_name = "lib/c.hrr/pid-1", .image = "rocm:release", .outcome = "MAF",
	  .fault_class = "page-fault", .kernel = NASTY, .prev_outcome = "PASS",
	  .status = ST_REGRESSED, .attempts = 1, .duration_s = 2, .run_dir = "runs/002",
	  .finding_md = "# MAF\n\nkernel `" NASTY "`\n", .gpus = "0,1",
	  .trend = { 0, 1 }, .n_trend = 2 },
	{ .case_name = "lib/c.hrr/pid-2", .image = "rocm:nightly", .status = ST_ERROR,
	  .message = "pull failed: <denied>", .attempts = 1 },
	{ .case_name = "lib/c.hrr/pid-2", .image = "rocm:release", .status = ST_BLOCKED,
	  .message = "arch mismatch", .attempts = 1 },
	{ .case_name = "lib/c.hrr/pid-3", .image = "rocm:nightly", .outcome = "PASS",
	  .status = ST_FLAKY, .attempts = 2, .retry_note = "attempt 1: HANG", .run_dir = "r/3" },
	{ .case_name = "lib/c.hrr/pid-3", .image = "rocm:release", .outcome = "PASS",
	  .status = ST_FIXED, .prev_outcome = "HANG", .attempts = 1, .run_dir = "r/4" },
	{ .case_name = "old", .image = "rocm:nightly", .status = ST_GONE, .prev_outcome = "PASS" },
};

static struct report sample(void)
{
	static const int q[] = { 3 };
	struct report r = { .sweep_id = "nightly-20261130T000000Z-abcdef", .label = "nightly",
			    .baseline = "nightly-20261129T000000Z-012345", .state = SWEEP_FINISHED,
			    .exit_code = 1, .tool_version = "1.0", .cases = cases,
			    .n = sizeof(cases) / sizeof(cases[0]), .quarantined = q,
			    .n_quarantined = 1, .trend_words = { "PASS", "MAF" },
			    .n_trend_words = 2 };

	report_finish(&r);
	return r;
}

static long xpath_count(xmlDocPtr doc, const char *expr)
{
	xmlXPathContextPtr ctx = xmlXPathNewContext(doc);
	xmlXPathObjectPtr o = xmlXPathEvalExpression((const xmlChar *)expr, ctx);
	long n = o && o->nodesetval ? o->nodesetval->nodeNr : -1;

	xmlXPathFreeObject(o);
	xmlXPathFreeContext(ctx);
	return n;
}

static char *xpath_string(xmlDocPtr doc, const char *expr)
{
	xmlXPathContextPtr ctx = xmlXPathNewContext(doc);
	xmlXPathObjectPtr o = xmlXPathEvalExpression((const xmlChar *)expr, ctx);
	char *s = strdup(o && o->stringval ? (const char *)o->stringval : "");

	xmlXPathFreeObject(o);
	xmlXPathFreeContext(ctx);
	return s;
}

Test(report, counts_and_ab_marks)
{
	struct report r = sample();

	cr_assert_eq(r.counts[ST_REGRESSED], 1);
	cr_assert_eq(r.counts[ST_GONE], 1);
	cr_assert(cases[0].ab_differs && cases[1].ab_differs, "PASS vs MAF differ");
	cr_assert(!cases[4].ab_differs, "PASS and PASS agree");
}

Test(report, junit_is_well_formed_with_one_suite_per_image)
{
	struct report r = sample();
	cleanup_strbuf struct strbuf x = STRBUF_INIT;
	struct error err;
	xmlDocPtr doc;
	cleanup_free char *msg = NULL, *name = NULL;

	cr_assert_eq(report_text(report_junit, &r, &x, &err), 0, "%s", err.msg);
	cr_assert_null(strchr(x.buf, '\x1b'), "no ESC reaches the file");
	cr_assert_null(strchr(x.buf, '\x01'));
	doc = xmlReadMemory(x.buf, (int)x.len, "junit.xml", NULL, XML_PARSE_NONET);
	cr_assert_not_null(doc, "%s", x.buf);
	cr_assert_eq(xpath_count(doc, "/testsuites/testsuite"), 2);
	cr_assert_eq(xpath_count(doc, "//testcase"), 6, "gone cases are not test cases");
	cr_assert_eq(xpath_count(doc, "//failure"), 1);
	cr_assert_eq(xpath_count(doc, "//failure[@type='regressed']"), 1);
	cr_assert_eq(xpath_count(doc, "//error[@type='error']"), 1);
	cr_assert_eq(xpath_count(doc, "//skipped[@type='blocked']"), 1);
	msg = xpath_string(doc, "string(//failure/@message)");
	cr_assert(strstr(msg, "MAF page-fault void k<float, 4>(T&) red "), "%s", msg);
	cr_assert(strstr(msg, "\"q\""), "%s", msg);
	name = xpath_string(doc, "string(//testsuite[@name='rocm:release']/testcase[1]/@name)");
	cr_assert_str_eq(name, "lib/c.hrr/pid-1");
	cr_assert_eq(xpath_count(doc, "//testcase[system-out[contains(., 'attempt 1: HANG')]]"), 1,
		     "flaky passes carry the failed attempt");
	cr_assert_eq(xpath_count(doc, "/testsuites[@tests='6' and @failures='1']"), 1);
	xmlFreeDoc(doc);
}

Test(report, summary_json_follows_the_schema)
{
	struct report r = sample();
	cleanup_strbuf struct strbuf s = STRBUF_INIT;
	cleanup_cjson cJSON *j = NULL;
	const cJSON *c1;

	cr_assert_eq(report_text(report_summary_json, &r, &s, ERROR_DISCARD), 0);
	j = cJSON_Parse(s.buf);
	cr_assert_not_null(j);
	cr_assert_str_eq(cJSON_GetObjectItem(j, "sweep")->valuestring, r.sweep_id);
	cr_assert_str_eq(cJSON_GetObjectItem(j, "state")->valuestring, "finished");
	cr_assert_eq(cJSON_GetObjectItem(j, "exit")->valueint, 1);
	cr_assert_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "counts"), "regressed")->valueint, 1);
	cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(j, "cases")), 7);
	c1 = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "cases"), 1);
	cr_assert_str_eq(cJSON_GetObjectItem(c1, "status")->valuestring, "regressed");
	cr_assert_str_eq(cJSON_GetObjectItem(c1, "previous_outcome")->valuestring, "PASS");
	cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(c1, "gpus")), 2);
	cr_assert(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "cases"), 2),
						   "outcome")));
	cr_assert_null(strstr(cJSON_GetObjectItem(c1, "kernel_name")->valuestring, "\x1b"));
}

Test(report, summary_md_lists_regressions_first_and_ends_with_the_verdict)
{
	struct report r = sample();
	cleanup_strbuf struct strbuf s = STRBUF_INIT;
	const char *reg, *fixed, *last;

	cr_assert_eq(report_text(report_summary_md, &r, &s, ERROR_DISCARD), 0);
	reg = strstr(s.buf, "## regressed");
	fixed = strstr(s.buf, "## fixed");
	cr_assert(reg && fixed && reg < fixed, "%s", s.buf);
	cr_assert(strstr(s.buf, "[finding](runs/002/finding.md)"), "%s", s.buf);
	cr_assert(strstr(s.buf, "k\\<float, 4\\>"), "%s", s.buf);
	cr_assert_null(strchr(s.buf, '\x1b'));
	last = strrchr(s.buf, '\n');
	while (last > s.buf && last[-1] != '\n')
		last--;
	cr_assert(strstr(last, "exit 1"), "%s", last);
}

Test(report, html_matrix_is_self_contained)
{
	struct report r = sample();
	cleanup_strbuf struct strbuf h = STRBUF_INIT;
	struct error err;
	htmlDocPtr doc;

	cr_assert_eq(report_text(report_html, &r, &h, &err), 0, "%s", err.msg);
	cr_assert(!strncmp(h.buf, "<!DOCTYPE html>", 15), "%.40s", h.buf);
	cr_assert_null(strchr(h.buf, '\x1b'));
	cr_assert_null(strstr(h.buf, "http://"));
	cr_assert_null(strstr(h.buf, "https://"));
	doc = htmlReadMemory(h.buf, (int)h.len, "report.html", "utf-8",
			     HTML_PARSE_NONET | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING);
	cr_assert_not_null(doc);
	/* 4 case names (gone included) x 2 images, the gone one's other cell empty */
	cr_assert_eq(xpath_count(doc, "//tr[@class='case']"), 4);
	cr_assert_eq(xpath_count(doc, "//td[contains(@class,'cell')]"), 7);
	cr_assert_eq(xpath_count(doc, "//td[contains(@class,'s-regressed')]"), 1);
	cr_assert_eq(xpath_count(doc, "//a[@href='runs/002/finding.md']"), 1);
	cr_assert_eq(xpath_count(doc, "//a[@href='runs/002/replay.log']"), 1);
	cr_assert_eq(xpath_count(doc, "//meta[@http-equiv='Content-Security-Policy']"), 1);
	cr_assert_eq(xpath_count(doc, "//script[@src]|//link|//img"), 0);
	cr_assert_eq(xpath_count(doc, "//select[@id='f-status']/option"), 8);
	cr_assert_eq(xpath_count(doc, "//td[contains(@class,'s-regressed')]//div[@class='trend']/span"), 2);
	xmlFreeDoc(doc);
}

/* A failing cell: its signature's short form and known/untriaged; a
 * known issue's link only when it is http(s). */
Test(report, html_failing_cells_show_signature_and_triage)
{
	struct report_case c[] = {
		{ .case_name = "a", .image = "i", .outcome = "MAF", .fault_class = "page-fault",
		  .status = ST_REGRESSED, .sig_id = "0a1b2c3d4e5f",
		  .sig_family = "Cijk_Ailk_Bljk", .known_id = "K-1",
		  .known_link = "https://bugs.example/1", .known_owner = "team" },
		{ .case_name = "b", .image = "i", .outcome = "HANG", .fault_class = "hang",
		  .status = ST_STILL_FAILING, .sig_id = "ffffffffffff" },
		{ .case_name = "c", .image = "i", .outcome = "MAF", .fault_class = "page-fault",
		  .status = ST_NEW, .sig_id = "0a1b2c3d4e5f",
		  .known_id = "K-2", .known_link = "javascript:alert(1)" },
		{ .case_name = "d", .image = "i", .outcome = "FAIL", .fault_class = "d2h-mismatch",
		  .status = ST_NEW },
		{ .case_name = "e", .image = "i", .outcome = "PASS", .status = ST_PASS,
		  .sig_id = "0a1b2c3d4e5f", .fault_class = "x" },
	};
	struct report r = { .sweep_id = "s", .label = "l", .state = SWEEP_FINISHED, .cases = c, .n = 5 };
	cleanup_strbuf struct strbuf h = STRBUF_INIT;
	cleanup_free char *first = NULL;
	struct error err;
	htmlDocPtr doc;

	report_finish(&r);
	cr_assert_eq(report_text(report_html, &r, &h, &err), 0, "%s", err.msg);
	doc = htmlReadMemory(h.buf, (int)h.len, "report.html", "utf-8",
			     HTML_PARSE_NONET | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING);
	cr_assert_not_null(doc);
	cr_assert_eq(xpath_count(doc, "//div[@class='sig']"), 4, "not the PASS cell");
	first = xpath_string(doc, "string(//tr[@class='case'][1]//div[@class='sig'])");
	cr_assert(!strncmp(first, "page-fault · Cijk_Ailk_Bljkknown K-1", 37), "%s", first);
	cr_assert_eq(xpath_count(doc, "//a[@class='tri tri-known'][@href='https://bugs.example/1']"), 1);
	cr_assert_eq(xpath_count(doc, "//span[@class='tri tri-known']"), 1, "javascript: is no link");
	cr_assert_eq(xpath_count(doc, "//*[contains(@href,'javascript')]"), 0);
	cr_assert_eq(xpath_count(doc, "//span[@class='tri tri-untriaged']"), 1);
	cr_assert_eq(xpath_count(doc, "//div[@class='sig'][not(*)][.='d2h-mismatch']"), 1,
		     "no signature: the fault class alone, no triage mark");
	xmlFreeDoc(doc);
}

/* report.html opens like summary.md (docs/sweep.md "Reports"): 20 cases x
 * 3 images, one fault on 12 cases of two images (known), a second on 3
 * cases, a third on one case: 1 known issue covering 24 results, 2
 * untriaged signatures, before the matrix; an owner filter over both. */
Test(report, html_opens_with_triage_by_signature_then_by_issue)
{
	static const char *const images[] = { "rocm:a", "rocm:b", "rocm:c" };
	struct report_case c[60];
	char names[20][16];
	struct report r = { .sweep_id = "s", .label = "l", .state = SWEEP_FINISHED, .cases = c, .n = 60 };
	const char *expired[] = { "k.yaml:9: rule OLD-1 expired on 2020-01-31: it marks nothing" };
	cleanup_strbuf struct strbuf h = STRBUF_INIT;
	cleanup_free char *covers = NULL, *line = NULL, *opts = NULL;
	struct error err;
	htmlDocPtr doc;

	for (size_t i = 0; i < 20; i++) {
		snprintf(names[i], sizeof(names[i]), "case-%02zu", i);
		for (size_t k = 0; k < 3; k++) {
			struct report_case *x = &c[i * 3 + k];

			*x = (struct report_case){ .case_name = names[i], .image = images[k],
						   .outcome = "PASS", .status = ST_PASS };
			if (i < 12 && k < 2)
				*x = (struct report_case){ .case_name = names[i], .image = images[k],
					.outcome = "MAF", .fault_class = "illegal_memory_access",
					.sig_id = "aaaaaaaaaaaa", .sig_family = "Cijk_Ailk_Bljk",
					.known_id = "BUG-1", .known_owner = "gemm-team",
					.known_link = "https://bugs.example/1",
					.status = ST_REGRESSED };
			else if (i >= 12 && i < 15 && k == 2)
				*x = (struct report_case){ .case_name = names[i], .image = images[k],
					.outcome = "HANG", .fault_class = "hang",
					.sig_id = "bbbbbbbbbbbb", .sig_family = "reduce",
					.status = ST_STILL_FAILING };
			else if (i == 19 && k == 0)
				*x = (struct report_case){ .case_name = names[i], .image = images[k],
					.outcome = "FAIL", .fault_class = "d2h-mismatch",
					.sig_id = "cccccccccccc", .sig_evidence = "mismatch at <addr>",
					.status = ST_NEW };
		}
	}
	r.expired_rules = expired;
	r.n_expired_rules = 1;
	report_finish(&r);
	cr_assert_eq(report_text(report_html, &r, &h, &err), 0, "%s", err.msg);
	doc = htmlReadMemory(h.buf, (int)h.len, "report.html", "utf-8",
			     HTML_PARSE_NONET | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING);
	cr_assert_not_null(doc);
	cr_assert_eq(xpath_count(doc, "//section[@id='triage'][following::table[@id='matrix']]"), 1,
		     "the triage comes before the matrix");
	line = xpath_string(doc, "string(//section[@id='triage']/p[1])");
	cr_assert_str_eq(line, "2 untriaged signatures, 1 known issue.");
	cr_assert_eq(xpath_count(doc, "//table[@id='untriaged']/tr[@class='group'][@data-owner='u']"), 2);
	cr_assert_eq(xpath_count(doc, "//table[@id='untriaged']/tr[2]/td[1]/code[.='bbbbbbbbbbbb']"), 1,
		     "in order of first appearance");
	cr_assert_eq(xpath_count(doc, "//table[@id='untriaged']//td[.='3 results (3 cases on 1 image)']"),
		     1);
	cr_assert_eq(xpath_count(doc, "//table[@id='untriaged']//td[.='mismatch at <addr>']"), 1);
	cr_assert_eq(xpath_count(doc, "//table[@id='known']/tr[@class='group']"), 1);
	covers = xpath_string(doc, "string(//table[@id='known']/tr[2]/td[4])");
	cr_assert_str_eq(covers, "24 results (12 cases on 2 images)");
	cr_assert_eq(xpath_count(doc, "//table[@id='known']/tr[2][@data-owner='k:gemm-team']"
				      "[td[1]='BUG-1'][td[2]='gemm-team'][td[5]='1']"
				      "/td[3]/a[@href='https://bugs.example/1']"), 1);
	cr_assert_eq(xpath_count(doc, "//ul[@class='expired']/li[contains(.,'OLD-1')]"), 1);
	/* The owner filter: everyone, the known issues' owners, untriaged. */
	opts = xpath_string(doc, "concat(//select[@id='f-owner']/option[2]/@value, '|',"
				 " //select[@id='f-owner']/option[3]/@value, '|',"
				 " //select[@id='f-owner']/option[3])");
	cr_assert_str_eq(opts, "k:gemm-team|u|untriaged");
	cr_assert_eq(xpath_count(doc, "//td[contains(@class,'cell')][@data-owner='k:gemm-team']"), 24);
	cr_assert_eq(xpath_count(doc, "//td[contains(@class,'cell')][@data-owner='u']"), 4);
	cr_assert_eq(xpath_count(doc, "//td[contains(@class,'o-PASS')][@data-owner]"), 0);
	xmlFreeDoc(doc);
}

/* Nothing failed with a signature: no triage section, no owner filter. */
Test(report, html_without_failures_has_no_triage)
{
	struct report r = sample();
	cleanup_strbuf struct strbuf h = STRBUF_INIT;
	struct error err;

	cr_assert_eq(report_text(report_html, &r, &h, &err), 0, "%s", err.msg);
	cr_assert_null(strstr(h.buf, "id=\"triage\""));
	cr_assert_null(strstr(h.buf, "id=\"f-owner\""));
}

/* The images section: each image's pin and the ID its cases replayed, and
 * the budget, in summary.json and summary.md. */
Test(report, summaries_list_the_images_and_their_pins)
{
	struct report r = sample();
	const struct report_image imgs[] = {
		{ "rocm:release", "sha256:1111", "sha256:1111", -1, .fate = IMAGE_FATE_USERS },
		{ "reg/x:nightly", "reg/x@sha256:2222", NULL, 3000000, .pulled = 1796164849,
		  .removed = 1796168449, .fate = IMAGE_FATE_REMOVED },
	};
	cleanup_strbuf struct strbuf s = STRBUF_INIT, md = STRBUF_INIT;
	cleanup_cjson cJSON *j = NULL;
	const cJSON *a;

	r.images = imgs;
	r.n_images = 2;
	r.image_budget = 40LL << 30;
	r.image_peak = 3LL << 20;
	cr_assert_eq(report_text(report_summary_json, &r, &s, ERROR_DISCARD), 0);
	j = cJSON_Parse(s.buf);
	cr_assert_not_null(j);
	a = cJSON_GetObjectItem(j, "images");
	cr_assert_eq(cJSON_GetArraySize(a), 2);
	cr_assert_str_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(a, 1), "pin")->valuestring,
			 "reg/x@sha256:2222");
	cr_assert(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetArrayItem(a, 1), "id")));
	cr_assert_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(a, 1), "manifest_size")->valuedouble,
		     3000000);
	cr_assert_eq(cJSON_GetObjectItem(j, "image_budget")->valuedouble, (double)(40LL << 30));
	cr_assert_eq(cJSON_GetObjectItem(j, "image_peak")->valuedouble, (double)(3LL << 20));
	cr_assert_str_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(a, 0), "kept")->valuestring,
			 "the user's");
	cr_assert_null(cJSON_GetObjectItem(cJSON_GetArrayItem(a, 0), "pulled"));
	cr_assert_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(a, 1), "pulled")->valuedouble,
		     1796164849);
	cr_assert_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(a, 1), "removed")->valuedouble,
		     1796168449);
	cr_assert_null(cJSON_GetObjectItem(cJSON_GetArrayItem(a, 1), "kept"));
	cr_assert_eq(report_text(report_summary_md, &r, &md, ERROR_DISCARD), 0);
	cr_assert(strstr(md.buf, "## Images"), "%s", md.buf);
	cr_assert(strstr(md.buf, "| reg/x:nightly | reg/x@sha256:2222 | - |"), "%s", md.buf);
	cr_assert(strstr(md.buf, "| 2026-12-01 22:40 UTC | removed 2026-12-01 23:40 UTC |"),
		  "%s", md.buf);
	cr_assert(strstr(md.buf, "| - | kept: the user's |"), "%s", md.buf);
	cr_assert(strstr(md.buf, "Peak: 3.0 MiB"), "%s", md.buf);
	cr_assert(strstr(md.buf, "Budget: 40960.0 MiB"), "%s", md.buf);
}

/* A cluster sweep's images per node: each image's nodes that set it up,
 * each node's peak, in summary.json and summary.md; none on one host. */
Test(report, summaries_list_a_cluster_sweeps_images_per_node)
{
	struct report r = sample();
	const struct report_image imgs[] = {
		{ "reg/x:a", "reg/x@sha256:1111", NULL, 3000000, .pulled = 1796164849,
		  .fate = IMAGE_FATE_FITS },
		{ "reg/x:b", "reg/x@sha256:2222", NULL, 3000000, .fate = IMAGE_FATE_UNKNOWN },
	};
	struct sweep_image_fates per[2];
	struct sweep_image_nodes nodes = { .v = per, .n = 2, .tasks = 3 };
	cleanup_strbuf struct strbuf s = STRBUF_INIT, md = STRBUF_INIT;
	cleanup_cjson cJSON *j = NULL;
	const cJSON *n;

	for (int k = 0; k < 2; k++) {
		sweep_image_fates_init(&per[k], 2);
		snprintf(per[k].host, sizeof(per[k].host), "node%d", k + 1);
		per[k].peak = (k + 1) * 1048576LL;
	}
	per[0].v[0] = (struct sweep_image_fate){ .pulled = 1796164849, .removed = 1796168449,
						 .fate = IMAGE_FATE_REMOVED };
	per[1].v[0] = (struct sweep_image_fate){ .pulled = 1796165000, .fate = IMAGE_FATE_FITS };
	r.images = imgs;
	r.n_images = 2;
	r.image_nodes = &nodes;
	cr_assert_eq(report_text(report_summary_json, &r, &s, ERROR_DISCARD), 0);
	j = cJSON_Parse(s.buf);
	cr_assert_not_null(j);
	n = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "images"), 0), "nodes");
	cr_assert_eq(cJSON_GetArraySize(n), 2);
	cr_expect_str_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(n, 0), "host")->valuestring, "node1");
	cr_expect_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(n, 0), "removed")->valuedouble,
		     1796168449);
	cr_expect_str_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(n, 1), "kept")->valuestring,
			 "fits the budget");
	n = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "images"), 1), "nodes");
	cr_expect_eq(cJSON_GetArraySize(n), 0, "no node set image 2 up");
	n = cJSON_GetObjectItem(j, "image_nodes");
	cr_assert_eq(cJSON_GetArraySize(n), 2);
	cr_expect_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(n, 1), "peak")->valuedouble, 2097152);
	cr_assert_eq(report_text(report_summary_md, &r, &md, ERROR_DISCARD), 0);
	cr_expect(strstr(md.buf, "| node1 | 1.0 MiB | reg/x:a | 2026-12-01 22:40 UTC | removed "
				 "2026-12-01 23:40 UTC |"), "%s", md.buf);
	cr_expect(strstr(md.buf, "| node2 | 2.0 MiB | reg/x:a |"), "%s", md.buf);
	cr_expect_null(strstr(md.buf, "| reg/x:b | 2026"), "%s", md.buf);
	for (int k = 0; k < 2; k++)
		sweep_image_fates_release(&per[k]);
	r.image_nodes = NULL;
	strbuf_reset(&s);
	cr_assert_eq(report_text(report_summary_json, &r, &s, ERROR_DISCARD), 0);
	cr_expect_null(strstr(s.buf, "image_nodes"), "one host: no nodes");
	cr_expect_null(strstr(s.buf, "\"nodes\""), "one host: no nodes");
}

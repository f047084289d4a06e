/* What a sweep's reports do with hostile records:
 * noncharacters never reach junit.xml, run_dir is a link only when it
 * is a plain path inside the sweep folder, markdown is escaped the same
 * way in summaries and `history`, and report.html runs only its own
 * script. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <libxml/parser.h>

#include "common/cleanup.h"
#include "common/relpath.h"
#include "common/text.h"
#include "orchestrator/report/report.h"
#include "tests/support/report_text.h"

/* U+FFFE, U+FFFF, U+FDD0 and U+10FFFF in a kernel name. */
#define NONCHARS "k\xef\xbf\xbe_\xef\xbf\xbf_\xef\xb7\x90_\xf4\x8f\xbf\xbf<int>"

static struct report_case hostile[] = {
	{ .case_name = "a", .image = "i", .outcome = "MAF", .kernel = NONCHARS,
	  .status = ST_REGRESSED, .prev_outcome = "PASS", .attempts = 1,
	  .run_dir = "javascript:alert(document.domain)//" },
	{ .case_name = "[x](javascript:alert(1)) ![](http://evil/p.png)", .image = "i",
	  .outcome = "MAF", .status = ST_NEW, .attempts = 1, .run_dir = "runs/../../etc" },
	{ .case_name = "c", .image = "i", .outcome = "MAF", .status = ST_CHANGED,
	  .prev_outcome = "HANG", .attempts = 1, .run_dir = "runs/pid-1-20261130T000000Z-abcdef" },
};

static struct report sample(void)
{
	struct report r = { .sweep_id = "s", .label = "l", .state = SWEEP_FINISHED, .cases = hostile,
			    .n = sizeof(hostile) / sizeof(hostile[0]) };

	report_finish(&r);
	return r;
}

Test(report_safety, junit_replaces_noncharacters_and_stays_well_formed)
{
	struct report r = sample();
	cleanup_strbuf struct strbuf x = STRBUF_INIT;
	struct error err;
	xmlDocPtr doc;

	cr_assert_eq(report_text(report_junit, &r, &x, &err), 0, "%s", err.msg);
	cr_assert_null(strstr(x.buf, "\xef\xbf\xbe"), "no U+FFFE");
	cr_assert_null(strstr(x.buf, "\xef\xbf\xbf"), "no U+FFFF");
	cr_assert_null(strstr(x.buf, "\xef\xb7\x90"), "no U+FDD0");
	cr_assert_null(strstr(x.buf, "\xf4\x8f\xbf\xbf"), "no U+10FFFF");
	doc = xmlReadMemory(x.buf, (int)x.len, "junit.xml", NULL, XML_PARSE_NONET);
	cr_assert_not_null(doc, "an XML parser reads it: %s", x.buf);
	xmlFreeDoc(doc);
}

Test(report_safety, noncharacters_only_go_when_asked)
{
	cleanup_free char *kept = text_sanitized("\xef\xbf\xbe", 0);
	cleanup_free char *gone = text_sanitized("a\xef\xbf\xbe" "b\xef\xb7\xaf" "c",
						 TEXT_NO_NONCHARACTERS);
	cleanup_free char *fine = text_sanitized("\xef\xb7\xb0\xef\xbf\xbd", TEXT_NO_NONCHARACTERS);

	cr_assert_str_eq(kept, "\xef\xbf\xbe");
	cr_assert_str_eq(gone, "a\xef\xbf\xbd" "b\xef\xbf\xbd" "c");
	cr_assert_str_eq(fine, "\xef\xb7\xb0\xef\xbf\xbd", "U+FDF0 and U+FFFD are characters");
}

Test(report_safety, run_dir_links_only_inside_the_sweep_folder)
{
	struct report r = sample();
	cleanup_strbuf struct strbuf md = STRBUF_INIT, html = STRBUF_INIT;
	struct error err;

	cr_assert_eq(report_text(report_summary_md, &r, &md, ERROR_DISCARD), 0);
	cr_assert_eq(report_text(report_html, &r, &html, &err), 0, "%s", err.msg);
	cr_assert_null(strstr(md.buf, "](javascript:"), "%s", md.buf);
	cr_assert_null(strstr(md.buf, "](runs/../"), "%s", md.buf);
	cr_assert_null(strstr(html.buf, "href=\"javascript:"), "%s", html.buf);
	cr_assert_null(strstr(html.buf, "href=\"runs/../"), "%s", html.buf);
	cr_assert(strstr(md.buf, "[finding](runs/pid-1-20261130T000000Z-abcdef/finding.md)"), "%s",
		  md.buf);
	cr_assert(strstr(html.buf, "href=\"runs/pid-1-20261130T000000Z-abcdef/replay.log\""));
	cr_assert(!relpath_plain_below("/etc") && !relpath_plain_below("a/../b") &&
		  !relpath_plain_below("a//b") && !relpath_plain_below("a:b") &&
		  !relpath_plain_below("") && !relpath_plain_below("a/") &&
		  relpath_plain_below("runs/x.y-1"));
}

Test(report_safety, markdown_is_escaped_the_same_everywhere)
{
	struct report r = sample();
	cleanup_strbuf struct strbuf md = STRBUF_INIT, cell = STRBUF_INIT;

	cr_assert_eq(report_text(report_summary_md, &r, &md, ERROR_DISCARD), 0);
	cr_assert(strstr(md.buf, "\\[x\\]\\(javascript:alert\\(1\\)\\) \\!\\[\\]\\(http://evil/p.png\\)"),
		  "%s", md.buf);
	text_markdown_cell(&cell, "<script>alert(1)</script><img src=x onerror=alert(1)>");
	cr_assert_str_eq(cell.buf, "\\<script\\>alert\\(1\\)\\</script\\>\\<img src=x onerror=alert\\(1\\)\\>");
}

/* The CSP names the page's own script by hash, and no 'unsafe-inline'
 * for scripts: the hash is recomputed from what the page holds. */
Test(report_safety, the_html_script_runs_by_hash_not_unsafe_inline)
{
	struct report r = sample();
	cleanup_strbuf struct strbuf html = STRBUF_INIT;
	struct error err;
	const char *open_tag, *body, *end, *csp;
	char cmd[256], hash[128] = "";
	FILE *p;

	cr_assert_eq(report_text(report_html, &r, &html, &err), 0, "%s", err.msg);
	csp = strstr(html.buf, "script-src ");
	cr_assert_not_null(csp);
	cr_assert(strncmp(csp, "script-src 'unsafe-inline'", 26), "%.60s", csp);
	open_tag = strstr(html.buf, "<script>");
	cr_assert_not_null(open_tag);
	body = open_tag + strlen("<script>");
	end = strstr(body, "</script>");
	cr_assert_not_null(end);
	{
		char tmpl[] = "/tmp/hrr-csp-XXXXXX";
		int fd = mkstemp(tmpl);
		FILE *f = fdopen(fd, "w");

		fwrite(body, 1, (size_t)(end - body), f);
		fclose(f);
		snprintf(cmd, sizeof(cmd), "openssl dgst -sha256 -binary < %s | base64 -w0", tmpl);
		p = popen(cmd, "r");
		cr_assert_not_null(p);
		cr_assert_not_null(fgets(hash, sizeof(hash), p));
		pclose(p);
		unlink(tmpl);
	}
	{
		cleanup_free char *want = NULL;
		char buf[160];

		snprintf(buf, sizeof(buf), "script-src 'sha256-%s'", hash);
		want = strdup(buf);
		cr_assert(strstr(html.buf, want), "the CSP has %s: %.80s", want, csp);
	}
}

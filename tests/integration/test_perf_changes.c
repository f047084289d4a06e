/* GPU-time change points through the command line and in a browser
 * (docs/perf.md "Change points"): 24 nights of a nightly tag imported into
 * a history database as a sweep's end imports them (no engine: the
 * nights' results lines are written, not replayed), a 10% step from
 * night 22; `history perf --changes` lists it, the site marks it on the
 * case's chart and lists it on the index, both open in headless Chromium
 * with no console message; `history perf --accept` takes it off the
 * index. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "orchestrator/history/history_db.h"
#include "orchestrator/site/site_pages.h"
#include "tests/support/perf_lines.h"
#include "tests/support/run_support.h"

static const char hot[] = "lib/hot<b>&amp;/capture.hrr/pid-4242";

TestSuite(perf_changes, .init = tenv_init, .fini = tenv_fini, .timeout = 600);

static char *db_path(void)
{
	return xasprintf("%s/history.sqlite", tenv.root);
}

static void nights(void)
{
	static const double wobble[] = { 0, 0.3, -0.2, 0.1, -0.3, 0.2 };
	cleanup_free char *path = db_path();
	struct history_db *db;
	struct error err;

	cr_assert_eq(history_db_open(&db, path, &err), 0, "%s", err.msg);
	for (int n = 1; n <= 24; n++) {
		char id[32], image_id[40];
		struct sweep_results rs = { 0 };
		struct history_sweep s = { .id = id, .label = "nightly", .state = "finished",
					   .started = 1764547200 + n * 86400LL, .host = "node1" };
		bool rebuilt;

		snprintf(id, sizeof(id), "nightly-%02d", n);
		snprintf(image_id, sizeof(image_id), "sha256:%02d00000000000000", n);
		perf_line(&rs, hot, "rocm:nightly", image_id, 1, 0,
			  (n >= 22 ? 44 : 40) + wobble[n % 6]);
		perf_line(&rs, "lib/cold", "rocm:nightly", image_id, 1, 0, 20 + wobble[n % 6]);
		cr_assert_eq(history_db_import(db, &s, NULL, 0, &rs, &rebuilt, &err), 0, "%s",
			     err.msg);
		sweep_results_release(&rs);
	}
	history_db_close(db);
}

/* The tool with argv after "--db PATH"; its stdout into out (may be NULL). */
static void tool(const char *const *args, struct strbuf *out)
{
	cleanup_free char *path = db_path();
	const char *argv[16] = { "history" };
	struct tool_run r;
	size_t n = 1;

	for (size_t i = 0; args[i]; i++)
		argv[n++] = args[i];
	argv[n++] = "--db";
	argv[n++] = path;
	argv[n] = NULL;
	tool_run(&r, argv, NULL);
	cr_assert_eq(r.status, 0, "%s\n%s", r.out.buf, r.err.buf);
	if (out)
		strbuf_addstr(out, r.out.buf);
	tool_run_release(&r);
}

/* A page of the site in headless Chromium: its DOM, no console message. */
static void browse(const char *site, const char *page, int k, struct strbuf *dom)
{
	cleanup_free char *path = xasprintf("%s/%s", site, page);
	cleanup_free char *out = xasprintf("%s/dom-%d.html", tenv.root, k);
	cleanup_free char *log = xasprintf("%s/chromium-%d.log", tenv.root, k);
	cleanup_strbuf struct strbuf logtext = STRBUF_INIT;

	chromium_open(path, out, NULL, log);
	cr_assert(read_text(out, dom), "%s", out);
	cr_assert(read_text(log, &logtext), "%s", log);
	cr_expect_null(strstr(logtext.buf, ":CONSOLE"), "no console message: %s", logtext.buf);
}

Test(perf_changes, listed_marked_on_the_chart_on_the_index_and_accepted)
{
	cleanup_free char *site = xasprintf("%s/site", tenv.root);
	cleanup_strbuf struct strbuf list = STRBUF_INIT, name = STRBUF_INIT, page = STRBUF_INIT,
				     index = STRBUF_INIT, after = STRBUF_INIT, accepted = STRBUF_INIT;

	nights();
	tool((const char *[]){ "perf", "--changes", "--label", "nightly", NULL }, &list);
	cr_expect(strstr(list.buf, "| nightly-22 | lib/hot\\<b\\>\\&amp;/capture.hrr/pid-4242 |"
				   " rocm:nightly | gfx942 29857 | +9.7% | 40.1 → 44.0 |"
				   " 210000000000 → 220000000000 | 0.005 |  |"),
		  "markdown-escaped: %s", list.buf);
	cr_expect_null(strstr(list.buf, "lib/cold"), "%s", list.buf);

	tool((const char *[]){ "site", site, NULL }, NULL);
	site_case_page_name("nightly", hot, &name);
	browse(site, name.buf, 0, &page);
	cr_expect(strstr(page.buf, "class=\"cp\""), "%s", page.buf);
	cr_expect(strstr(page.buf, "Change points: nightly-22"), "%s", page.buf);
	browse(site, "index.html", 1, &index);
	cr_expect(strstr(index.buf, "id=\"perf-cps\""), "%s", index.buf);
	cr_expect(strstr(index.buf, "hot&lt;b&gt;&amp;amp;"), "escaped: %s", index.buf);
	cr_expect_null(strstr(index.buf, "<b>&amp;"), "%s", index.buf);

	tool((const char *[]){ "perf", "--accept", hot, "--night", "nightly-22", NULL }, &accepted);
	cr_expect(strstr(accepted.buf, "accepted: the GPU-time change of"), "%s", accepted.buf);
	tool((const char *[]){ "site", site, NULL }, NULL);
	browse(site, "index.html", 2, &after);
	cr_expect_null(strstr(after.buf, "id=\"perf-cps\""), "the alarm stops: %s", after.buf);
}

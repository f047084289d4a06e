/* The history site's pure parts: the CSP hash, names and links, kernel
 * families, grid statuses, the SVG renderer, the pages' escaping and CSP,
 * and the site folder's refusals and manifest. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/fsutil.h"
#include "orchestrator/history/history_query.h"
#include "common/text.h"
#include "common/xalloc.h"
#include "orchestrator/history/history_reuse.h"
#include "orchestrator/site/site_dir.h"
#include "orchestrator/site/site_pages.h"
#include "orchestrator/site/site_query.h"
#include "orchestrator/site/site_runs.h"
#include "orchestrator/site/site_svg.h"
#include "orchestrator/site/site_text.h"
#include "tests/support/history_backend.h"
#include "tests/support/scratch.h"

#define X(s) ((const xmlChar *)(s))
#define NASTY "k<\"a&b\">(T) \x1b[31mred\x1b[0m \x01 \xe2\x82 <script>x</script>"

static void hash_of(const char *s, struct strbuf *out)
{
	strbuf_reset(out);
	site_csp_hash(s, strlen(s), out);
}

Test(history_site, csp_hash_is_sha256_base64)
{
	cleanup_strbuf struct strbuf h = STRBUF_INIT;

	hash_of("", &h);
	cr_assert_str_eq(h.buf, "sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=");
	hash_of("abc", &h);
	cr_assert_str_eq(h.buf, "sha256-ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=");
	/* 56 and 64 bytes: the padding spills into a second block. */
	hash_of("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", &h);
	cr_assert_str_eq(h.buf, "sha256-JI1qYdIGOLjlwCaTDD5gOaM85Flk/yFn9uzt1BnbBsE=");
}

/* Both stylesheets are allowed by their hashes, as sha256sum sees them. */
Test(history_site, the_stylesheet_hash_matches_sha256sum)
{
	cleanup_free char *tmp = scratch_dir("site-css");
	cleanup_free char *path = xasprintf("%s/css", tmp);
	cleanup_free char *cmd = xasprintf("openssl dgst -sha256 -binary '%s' | base64", path);
	const char *sheets[] = { site_css(), site_css_plain() };

	for (size_t i = 0; i < 2; i++) {
		cleanup_strbuf struct strbuf want = STRBUF_INIT;
		char line[128] = "";
		struct error err;
		FILE *p;

		cr_assert_eq(fs_write_atomic(path, sheets[i], strlen(sheets[i]), 0644, &err), 0);
		p = popen(cmd, "r");
		cr_assert_not_null(p);
		cr_assert_not_null(fgets(line, sizeof(line), p));
		pclose(p);
		line[strcspn(line, "\n")] = '\0';
		strbuf_addf(&want, "'sha256-%s'", line);
		cr_assert(strstr(site_csp(), want.buf), "%s vs %s", site_csp(), want.buf);
		cr_assert_null(strchr(sheets[i], '<'), "the stylesheet stays raw text");
	}
	cr_assert(strstr(site_csp(), "style-src 'sha256-"), "%s", site_csp());
	cr_assert_lt(strlen(site_css_plain()), strlen(site_css()), "no filter rules");
}

Test(history_site, page_names_hide_the_text)
{
	cleanup_strbuf struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;

	site_case_page_name("nightly", "../../etc/passwd", &a);
	site_case_page_name("nightly", "../../etc/passwd", &b);
	cr_assert_str_eq(a.buf, b.buf);
	cr_assert_eq(strlen(a.buf), strlen("case-0123456789abcdef.html"));
	cr_assert_null(strchr(a.buf, '/'));
	strbuf_reset(&b);
	site_case_page_name("weekly", "../../etc/passwd", &b);
	cr_assert_str_neq(a.buf, b.buf, "per label");
}

static void href(const char *from, const char *to, const char *want)
{
	cleanup_strbuf struct strbuf out = STRBUF_INIT;

	site_relative_href(from, to, &out);
	cr_assert_str_eq(out.buf, want, "%s -> %s", from, to);
}

Test(history_site, links_are_relative_and_never_a_scheme)
{
	href("/srv/site", "/srv/wd/sweeps/s1/report.html", "../wd/sweeps/s1/report.html");
	href("/srv/site", "/srv/site/x.html", "x.html");
	href("/srv/site", "/srv/sitex/a", "../sitex/a");
	href("/a/b/c", "/x", "../../../x");
	href("/srv/site", "/srv/site/javascript:alert(1)", "./javascript:alert(1)");
	href("/", "/srv/a", "srv/a");
}

/* The manifest's hash tells any one changed byte, wherever it is. */
Test(history_site, content_hash_sees_every_byte)
{
	char a[100], b[100];

	for (size_t i = 0; i < sizeof(a); i++)
		a[i] = (char)('a' + i % 26);
	for (size_t len = 0; len <= sizeof(a); len++)
		for (size_t i = 0; i < len; i++) {
			memcpy(b, a, len);
			b[i] ^= 1;
			cr_assert_neq(site_content_hash(a, len), site_content_hash(b, len),
				      "byte %zu of %zu", i, len);
		}
	cr_assert_eq(site_content_hash(a, 50), site_content_hash(a, 50));
	cr_assert_neq(site_content_hash(a, 49), site_content_hash(a, 50));
	cr_assert_neq(site_content_hash("", 0), site_content_hash("\0", 1));
}

Test(history_site, run_dirs_stay_inside_their_sweep)
{
	cr_assert(site_run_dir_ok("runs/0001"));
	cr_assert_not(site_run_dir_ok("../other"));
	cr_assert_not(site_run_dir_ok("runs/../../x"));
	cr_assert_not(site_run_dir_ok("/etc"));
	cr_assert_not(site_run_dir_ok("runs//x"));
	cr_assert_not(site_run_dir_ok("runs/\n"));
	cr_assert_not(site_run_dir_ok(""));
	cr_assert_not(site_run_dir_ok(NULL));
}

/* A sweep's run folders are listed once: a result's link is a lookup. Only
 * folders count (not a symlink, not a file); a runs/ others may write is
 * not trusted as a whole, nor a run_dir of another shape. */
Test(history_site, run_folders_are_listed_once_per_sweep)
{
	cleanup_free char *tmp = scratch_dir("site-runs");
	cleanup_free char *sweep = xasprintf("%s/wd/sweeps/s1", tmp);
	cleanup_free char *site = xasprintf("%s/site", tmp);
	cleanup_free char *runs = xasprintf("%s/runs", sweep);
	cleanup_free char *a = xasprintf("%s/a-1", runs), *b = xasprintf("%s/b-2", runs);
	cleanup_free char *c = xasprintf("%s/c-3", runs);
	cleanup_strbuf struct strbuf out = STRBUF_INIT;
	struct site_runs r;
	struct error err;

	site_runs_list(&r, sweep, site);
	cr_assert(r.listed, "no runs/: listed, empty");
	cr_assert_eq(site_runs_href(&r, "runs/a-1", &out), 0);
	site_runs_release(&r);

	cr_assert_eq(fs_mkdir_p(a, 0755, &err), 0, "%s", err.msg);
	cr_assert_eq(chmod(runs, 0755), 0);
	cr_assert_eq(symlink(a, b), 0);
	cr_assert_eq(fs_write_atomic(c, "x", 1, 0644, &err), 0);
	site_runs_list(&r, sweep, site);
	cr_assert(r.listed);
	cr_assert_eq(site_runs_href(&r, "runs/a-1", &out), 1);
	cr_assert_str_eq(out.buf, "../wd/sweeps/s1/runs/a-1");
	cr_assert_eq(site_runs_href(&r, "runs/b-2", &out), 0, "a symlink is not a run folder");
	cr_assert_eq(site_runs_href(&r, "runs/c-3", &out), 0, "nor a file");
	cr_assert_eq(site_runs_href(&r, "runs/zz", &out), 0, "nor a folder that is gone");
	cr_assert_eq(site_runs_href(&r, "old/a-1", &out), -1, "another shape: resolved alone");
	cr_assert_eq(site_runs_href(&r, "runs/a-1/x", &out), -1);
	site_runs_release(&r);

	cr_assert_eq(chmod(runs, 0777), 0);
	site_runs_list(&r, sweep, site);
	cr_assert_not(r.listed, "a runs/ others may write: each link resolved alone");
	cr_assert_eq(site_runs_href(&r, "runs/a-1", &out), -1);
	site_runs_release(&r);
}

static void family(const char *kernel, const char *want)
{
	cleanup_strbuf struct strbuf out = STRBUF_INIT;

	site_kernel_family(kernel, &out);
	cr_assert_str_eq(out.buf, want, "%s", kernel ? kernel : "(null)");
}

Test(history_site, kernel_families)
{
	family("void at::native::vectorized_elementwise_kernel<4, at::native::Add<float>>(int)",
	       "at::native::vectorized_elementwise_kernel");
	family("miopen::conv_fwd(float const*, float*)", "miopen::conv_fwd");
	family("plain_kernel", "plain_kernel");
	family("", "-");
	family(NULL, "-");
}

Test(history_site, row_statuses_mark_regressions_and_first_failures)
{
	enum site_outcome o[] = { SO_PASS, SO_MAF, SO_MAF, SO_MISSING, SO_PASS, SO_PASS, SO_HANG,
				  SO_NONE };
	bool flaky[8] = { [5] = true };
	enum site_status s[8];
	bool first[8];

	site_row_statuses(o, flaky, 8, s, first);
	cr_assert_eq(s[0], SS_PASS);
	cr_assert_eq(s[1], SS_REGRESSED);
	cr_assert(first[1]);
	cr_assert_eq(s[2], SS_FAIL);
	cr_assert_not(first[2]);
	cr_assert_eq(s[3], SS_MISSING);
	cr_assert_eq(s[4], SS_FIXED, "a gap does not hide the failure before it");
	cr_assert_eq(s[5], SS_FLAKY);
	cr_assert_eq(s[6], SS_REGRESSED);
	cr_assert_not(first[6], "only the first failure is the first");
	cr_assert_eq(s[7], SS_NONE);
}

Test(history_site, svg_draws_a_point_per_value)
{
	struct site_point a[] = { { 100, 1.5, "one", false }, { 200, 2.5, NASTY, true } };
	struct site_point b[] = { { 150, 1.0, NULL, false } };
	struct site_series s[] = { { "img-a", a, 2 }, { NASTY, b, 1 } };
	struct site_chart c = { .title = "t", .x_first = "d0", .x_last = "d1", .y_unit = " s",
				.width = 400, .height = 100 };
	xmlDocPtr doc = xmlNewDoc(X("1.0"));
	xmlNodePtr root = xmlNewNode(NULL, X("div"));
	xmlBufferPtr buf = xmlBufferCreate();
	const char *text;

	xmlDocSetRootElement(doc, root);
	site_svg_line(root, &c, s, 2);
	xmlNodeDump(buf, doc, root, 0, 0);
	text = (const char *)xmlBufferContent(buf);
	cr_assert_eq(strstr(text, "<polyline") != NULL, true);
	{
		size_t n = 0;

		for (const char *p = text; (p = strstr(p, "<circle class=\"pt")); p++)
			n++;
		cr_assert_eq(n, 3, "%s", text);
	}
	cr_assert(strstr(text, "points=\"52,36 388,12\""), "%s", text);
	cr_assert(strstr(text, "<circle class=\"pt alert\""), "the failed point is marked");
	cr_assert(strstr(site_css(), "circle.alert{r:3.5px;fill:#c00}"), "and drawn red");
	cr_assert_null(strstr(text, "<script"), "%s", text);
	cr_assert_null(strstr(text, "\x1b"), "%s", text);
	xmlBufferFree(buf);
	xmlFreeDoc(doc);
}

Test(history_site, timeline_escapes_archive_text_and_keeps_the_bisect_hook)
{
	struct site_timeline_entry e[] = {
		{ .sweep_id = "s1", .image = "rocm:a", .started = 86400, .outcome = SO_PASS,
		  .status = SS_PASS, .attempts = 1, .duration_s = 1.0, .run_href = "../wd/r1" },
		{ .sweep_id = "s2", .image = "rocm:a", .image_id = "sha256:ab", .kernel = NASTY,
		  .fault_class = "page-fault", .started = 2 * 86400, .outcome = SO_MAF,
		  .status = SS_REGRESSED, .first = true, .attempts = 1, .duration_s = 2.0 },
	};
	struct site_timeline t = { .label = "nightly", .case_name = NASTY, .grid_page = "g.html",
				   .v = e, .n = 2, .bisect = "first bad: rocm:a@sha256:ab",
				   .flaky = 0, .results = 2 };
	cleanup_strbuf struct strbuf out = STRBUF_INIT;
	struct error err;

	cr_assert_eq(site_timeline_html(&t, &out, &err), 0);
	cr_assert_null(strstr(out.buf, "<script"), "%s", out.buf);
	cr_assert_null(strstr(out.buf, "\x1b"));
	cr_assert(strstr(out.buf, "&lt;script&gt;"), "escaped, not dropped");
	cr_assert(strstr(out.buf, "Bisect: first bad: rocm:a@sha256:ab"));
	cr_assert(strstr(out.buf, "id=\"first-failure\""));
	cr_assert(strstr(out.buf, "href=\"../wd/r1\""));
	cr_assert(strstr(out.buf, site_csp()), "the CSP is on the page");
	cr_assert(text_is_utf8(out.buf, out.len));
}

Test(history_site, grid_marks_and_filters_without_script)
{
	struct site_grid_cell c[2][2] = {
		{ { .outcome = SO_PASS, .status = SS_PASS, .attempts = 1 },
		  { .outcome = SO_MAF, .status = SS_REGRESSED, .first = true, .attempts = 1,
		    .fault_class = "page-fault", .kernel_family = NASTY } },
		{ { .outcome = SO_PASS, .status = SS_PASS, .attempts = 1 },
		  { .outcome = SO_PASS, .status = SS_FLAKY, .attempts = 2 } },
	};
	struct site_grid_row rows[] = { { "a", "img", "case-a.html", c[0] },
					{ "b", "img", "case-b.html", c[1] } };
	struct site_sweep_col cols[] = { { "s1", "../wd/s1/report.html", 86400 },
					 { "s2", NULL, 2 * 86400 } };
	struct site_grid g = { .label = "nightly", .sweeps = cols, .n_sweeps = 2, .n_cols = 2,
			       .rows = rows, .n_rows = 2, .n_sweep_pages = 1, .n_case_pages = 3,
			       .case_page = 1, .first_case = 2, .n_cases = 2, .n_cases_total = 6 };
	cleanup_strbuf struct strbuf out = STRBUF_INIT;
	struct error err;

	cr_assert_eq(site_grid_html(&g, &out, &err), 0);
	cr_assert_null(strstr(out.buf, "<script"));
	cr_assert(strstr(out.buf, "<tr class=\"r hs-pass hs-regressed hf0 hk0\">"), "%s", out.buf);
	cr_assert(strstr(out.buf, "class=\"c o-MAF s-regressed first\""));
	cr_assert(strstr(out.buf, "id=\"ff-0\""), "a fault-class filter");
	cr_assert(strstr(out.buf, "id=\"fs-regressed\""), "a status filter");
	cr_assert(strstr(site_css(), "#fs-regressed:checked~table.grid tr.r:not(.hs-regressed)"));
	cr_assert(strstr(out.buf, "href=\"../wd/s1/report.html\""));
	cr_assert(strstr(out.buf, "cases 3-4 of 6"), "%s", out.buf);
	cr_assert(strstr(out.buf, "&lt;script&gt;"), "the kernel family is escaped");
}

Test(history_site, dir_refusals)
{
	cr_assert_null(site_dir_refusal(1000, 040755, 1000));
	cr_assert_str_eq(site_dir_refusal(1001, 040755, 1000), "belongs to another user");
	cr_assert_str_eq(site_dir_refusal(1000, 040777, 1000), "is writable by group or others");
	cr_assert_str_eq(site_dir_refusal(1000, 040775, 1000), "is writable by group or others");
}

Test(history_site, dir_replaces_and_removes_only_its_own_files)
{
	cleanup_free char *tmp = scratch_dir("site-dir");
	cleanup_free char *dir = xasprintf("%s/site", tmp);
	cleanup_free char *link = xasprintf("%s/link", tmp);
	cleanup_free char *mine = NULL, *path = NULL;
	struct site_dir d;
	struct error err;

	cr_assert_eq(site_dir_open(&d, dir, &err), 0, "%s", err.msg);
	cr_assert_eq(site_dir_write(&d, "a.html", "A", 1, &err), 0, "%s", err.msg);
	cr_assert_eq(site_dir_write(&d, "b.html", "B", 1, &err), 0, "%s", err.msg);
	cr_assert_eq(site_dir_finish(&d, &err), 0, "%s", err.msg);
	site_dir_release(&d);

	mine = xasprintf("%s/mine.html", dir);
	cr_assert_eq(fs_write_atomic(mine, "x", 1, 0644, &err), 0);
	cr_assert_eq(site_dir_open(&d, dir, &err), 0, "%s", err.msg);
	cr_assert_eq(site_dir_write(&d, "a.html", "A", 1, &err), 0, "%s", err.msg);
	cr_assert_eq(d.kept, 1, "same content: not rewritten");
	cr_assert_eq(site_dir_write(&d, "mine.html", "y", 1, &err), -1, "not ours");
	cr_assert(strstr(err.msg, "was not written by hrr-docker-replay"), "%s", err.msg);
	cr_assert_eq(site_dir_finish(&d, &err), 0, "%s", err.msg);
	cr_assert_eq(d.removed, 1, "b.html is gone from the site");
	site_dir_release(&d);
	/* A changed page replaces the old one whole, and leaves nothing
	 * behind (an exchange, then the old copy unlinked). */
	cr_assert_eq(site_dir_open(&d, dir, &err), 0, "%s", err.msg);
	cr_assert_eq(site_dir_write(&d, "a.html", "A2", 2, &err), 0, "%s", err.msg);
	cr_assert_eq(d.written, 1, "new content: rewritten");
	cr_assert_eq(site_dir_finish(&d, &err), 0, "%s", err.msg);
	site_dir_release(&d);
	{
		cleanup_free char *a = xasprintf("%s/a.html", dir);
		cleanup_strbuf struct strbuf text = STRBUF_INIT;
		cleanup_free char *ls = xasprintf("ls -A %s | grep -c tmp", dir);
		FILE *f = popen(ls, "r");
		int left = -1;

		cr_assert_eq(fs_read_small_file(a, 64, &text, &err), 0, "%s", err.msg);
		cr_assert_str_eq(text.buf, "A2");
		cr_assert_eq(fscanf(f, "%d", &left), 1);
		pclose(f);
		cr_assert_eq(left, 0, "no temporary file left");
	}
	path = xasprintf("%s/b.html", dir);
	cr_assert_neq(access(path, F_OK), 0);
	cr_assert_eq(access(mine, F_OK), 0, "the user's file stays");

	cr_assert_eq(symlink(dir, link), 0);
	cr_assert_eq(site_dir_open(&d, link, &err), -1);
	cr_assert(strstr(err.msg, "symlink"), "%s", err.msg);
	site_dir_release(&d);
	cr_assert_eq(chmod(dir, 0777), 0);
	cr_assert_eq(site_dir_open(&d, dir, &err), -1);
	cr_assert(strstr(err.msg, "writable by group or others"), "%s", err.msg);
	site_dir_release(&d);
}

/* A case's timeline names the newest bisection that found its first bad
 * image; a bisection that found nothing, or one of other cases, is not
 * named. */
Test(history_site, the_timeline_names_the_bisection_that_found_the_case)
{
	cleanup_free char *dir = scratch_dir("site-bisect");
	cleanup_free char *file = xasprintf("%s/history.sqlite", dir);
	cleanup_free char *path = history_backend_db(file);
	struct history_db *db = NULL;
	struct error err;
	struct site_bisects b;
	const char *answer =
		"{\"verdict\":\"found\",\"first_bad\":{\"image\":\"r/x:t11\",\"cases\":"
		"[{\"case\":\"lib/a\",\"outcome\":\"MAF\"},{\"case\":7},\"lib/c\"]}}";
	struct history_bisect none = { .id = "b1", .good = "r/x:t1", .bad = "r/x:t16",
				       .verdict = "no-transition", .answer = answer, .finished = 1 };
	struct history_bisect found = { .id = "b2", .good = "r/x:t1", .bad = "r/x:t16",
					.last_good = "r/x:t10", .first_bad = "r/x:t11",
					.verdict = "found", .answer = answer, .finished = 2 };
	struct history_bisect older = { .id = "b0", .good = "r/x:t1", .bad = "r/x:t16",
					.last_good = "r/x:t3", .first_bad = "r/x:t4",
					.verdict = "found", .answer = answer, .finished = 0 };

	cr_assert_eq(history_db_open(&db, path, &err), 0, "%s", err.msg);
	cr_assert_eq(site_query_bisects(db, &b, &err), 0, "%s", err.msg);
	cr_assert_null(site_bisects_find(&b, "lib/a"), "no bisection yet");
	site_bisects_release(&b);
	cr_assert_eq(history_db_record_bisect(db, &none, &err), 0, "%s", err.msg);
	cr_assert_eq(site_query_bisects(db, &b, &err), 0, "%s", err.msg);
	cr_assert_null(site_bisects_find(&b, "lib/a"), "a bisection that found nothing names no image");
	site_bisects_release(&b);
	cr_assert_eq(history_db_record_bisect(db, &older, &err), 0, "%s", err.msg);
	cr_assert_eq(history_db_record_bisect(db, &found, &err), 0, "%s", err.msg);
	cr_assert_eq(site_query_bisects(db, &b, &err), 0, "%s", err.msg);
	cr_assert_null(site_bisects_find(&b, "lib/b"), "another case's bisection");
	cr_assert_null(site_bisects_find(&b, "lib/c"), "a case that is not an object");
	cr_assert_eq(b.n, 1, "one case, named by two bisections: its newest kept");
	cr_assert_str_eq(site_bisects_find(&b, "lib/a"), "first bad image r/x:t11 (last good r/x:t10)");
	site_bisects_release(&b);
	history_db_close(db);
	scratch_remove(dir);
}

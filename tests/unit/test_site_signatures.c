/* The history site's signature pages, their list and the index's
 * "untriaged, first seen today" (orchestrator/site/site_signatures.c),
 * from a real history database. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/fsutil.h"
#include "common/xalloc.h"
#include "orchestrator/finding/signature.h"
#include "orchestrator/history/history_db.h"
#include "orchestrator/site/site.h"
#include "orchestrator/site/site_sig.h"
#include "orchestrator/site/site_text.h"
#include "tests/support/scratch.h"

static char *root, *dbpath, *site;

static void setup(void)
{
	root = scratch_dir("site-sig");
	dbpath = xasprintf("%s/history.sqlite", root);
	site = xasprintf("%s/site", root);
}

static void teardown(void)
{
	scratch_remove(root);
	free(root);
	free(dbpath);
	free(site);
}

TestSuite(site_signatures, .init = setup, .fini = teardown);

static void result(struct sweep_results *rs, const char *c, const char *outcome,
		   const char *kernel, const char *known, const char *owner)
{
	struct case_result *r;

	rs->v = xrealloc(rs->v, (rs->n + 1) * sizeof(*rs->v));
	r = &rs->v[rs->n++];
	memset(r, 0, sizeof(*r));
	signature_init(&r->signature);
	r->case_name = xstrdup(c);
	r->image = xstrdup("rocm:nightly");
	r->image_id = xstrdup("sha256:aaaa");
	r->attempt = 1;
	r->state = RESULT_DONE;
	case_result_set_verdict(r, outcome, NULL);
	r->gpu_uids = xstrdup("1111");
	r->classifier_version = 4;
	if (!strcmp(outcome, "PASS"))
		return;
	case_result_set_verdict(r, outcome, "illegal_memory_access");
	r->kernel = xstrdup(kernel);
	signature_make(&r->signature, outcome, "illegal_memory_access", kernel, NULL, NULL, false);
	if (known) {
		r->known_id = xstrdup(known);
		r->known_link = xstrdup("https://bugs.example/1");
		r->known_owner = xstrdup(owner);
	}
}

static void import(struct history_db *db, const char *id, long long started,
		   struct sweep_results *rs)
{
	struct history_planned p[8];
	struct history_sweep s = { .id = id, .label = "nightly", .state = "finished",
				   .started = started, .host = "node1" };
	struct error err;
	bool rebuilt;

	for (size_t i = 0; i < rs->n; i++)
		p[i] = (struct history_planned){ .case_name = rs->v[i].case_name,
						 .image = "rocm:nightly" };
	cr_assert_eq(history_db_import(db, &s, p, rs->n, rs, &rebuilt, &err), 0, "%s", err.msg);
	sweep_results_release(rs);
}

static char *sig_id(const char *outcome, const char *kernel)
{
	struct signature s;
	char *id;

	signature_init(&s);
	signature_make(&s, outcome, "illegal_memory_access", kernel, NULL, NULL, false);
	id = xstrdup(s.id);
	signature_release(&s);
	return id;
}

static char *page_of(const char *id)
{
	const char *parts[] = { id };
	cleanup_strbuf struct strbuf name = STRBUF_INIT;

	site_page_name("sig", parts, 1, &name);
	return xstrdup(name.buf);
}

static void read_page(const char *name, struct strbuf *out)
{
	cleanup_free char *p = xasprintf("%s/%s", site, name);
	struct error err;

	strbuf_reset(out);
	cr_assert_eq(fs_read_small_file(p, 4 << 20, out, &err), 0, "%s", err.msg);
}

/* Two nights: a known fault (c1) and an untriaged one (c2) both nights; on
 * the second a new untriaged fault (c3) and a new known one (c4). Only c3's
 * is "untriaged, first seen today"; c1's page says where it was first and
 * last seen, its known issue, its case, image and GPU. */
Test(site_signatures, a_page_per_signature_and_the_untriaged_first_seen_today)
{
	struct history_db *db;
	struct sweep_results n1 = { 0 }, n2 = { 0 };
	struct site_options o = { .label = NULL, .last = 10 };
	struct site_stats stats;
	struct error err;
	cleanup_free char *known = sig_id("MAF", "void gemm<1>(float*)");
	cleanup_free char *old = sig_id("MAF", "void reduce<2>(int*)");
	cleanup_free char *fresh = sig_id("HANG", "void scan<3>()");
	cleanup_free char *claimed = sig_id("MAF", "void claimed()");
	cleanup_free char *known_page = page_of(known), *fresh_page = page_of(fresh);
	cleanup_free char *old_page = page_of(old), *claimed_page = page_of(claimed);
	cleanup_strbuf struct strbuf text = STRBUF_INIT;
	char *idx;

	cr_assert_eq(history_db_open(&db, dbpath, &err), 0, "%s", err.msg);
	result(&n1, "lib/c1", "MAF", "void gemm<1>(float*)", "BUG-1", "gemm-team");
	result(&n1, "lib/c2", "MAF", "void reduce<2>(int*)", NULL, NULL);
	result(&n1, "lib/c3", "PASS", NULL, NULL, NULL);
	result(&n1, "lib/c4", "PASS", NULL, NULL, NULL);
	import(db, "nightly-1", 1764633600, &n1);  /* 2025-12-02 00:00 */
	result(&n2, "lib/c1", "MAF", "void gemm<8>(float*)", "BUG-1", "gemm-team");
	result(&n2, "lib/c2", "MAF", "void reduce<2>(int*)", NULL, NULL);
	result(&n2, "lib/c3", "HANG", "void scan<3>()", NULL, NULL);
	result(&n2, "lib/c4", "MAF", "void claimed()", "BUG-2", "rt-team");
	import(db, "nightly-2", 1764720000, &n2);
	cr_assert_eq(history_site_generate(db, site, &o, &stats, &err), 0, "%s", err.msg);
	history_db_close(db);

	read_page("index.html", &text);
	idx = strstr(text.buf, "Untriaged, first seen today");
	cr_assert_not_null(idx, "%s", text.buf);
	cr_assert(idx < strstr(text.buf, "id=\"labels\""), "at the top of the index");
	cr_assert(strstr(text.buf, fresh_page), "the new untriaged one: %s", text.buf);
	cr_assert(strstr(text.buf, "HANG illegal_memory_access · scan, 1 case"), "%s", text.buf);
	cr_assert_null(strstr(text.buf, old_page), "seen the night before");
	cr_assert_null(strstr(text.buf, claimed_page), "new, but a known issue");
	cr_assert(strstr(text.buf, "href=\"" SITE_SIGNATURES_PAGE "\""), "%s", text.buf);

	read_page(SITE_SIGNATURES_PAGE, &text);
	cr_assert(strstr(text.buf, known_page) && strstr(text.buf, old_page) &&
		  strstr(text.buf, fresh_page) && strstr(text.buf, claimed_page), "%s", text.buf);
	cr_assert(strstr(text.buf, "<td>BUG-1 (gemm-team)</td>"), "%s", text.buf);
	cr_assert(strstr(text.buf, "<td>untriaged</td>"), "%s", text.buf);

	read_page(known_page, &text);
	cr_assert(strstr(text.buf, "<th>kernel family</th><td>gemm</td>"), "%s", text.buf);
	cr_assert(strstr(text.buf, "2025-12-02 00:00 UTC (nightly-1)"), "first seen: %s", text.buf);
	cr_assert(strstr(text.buf, "2025-12-03 00:00 UTC (nightly-2)"), "last seen: %s", text.buf);
	cr_assert(strstr(text.buf, "2 results in 2 sweeps"), "%s", text.buf);
	cr_assert(strstr(text.buf, "<td>BUG-1</td><td>gemm-team</td>"), "%s", text.buf);
	cr_assert(strstr(text.buf, "<a href=\"https://bugs.example/1\">"), "%s", text.buf);
	cr_assert(strstr(text.buf, ">lib/c1</a>"), "its case, linked: %s", text.buf);
	cr_assert(strstr(text.buf, ">rocm:nightly</a>"), "its image: %s", text.buf);
	cr_assert(strstr(text.buf, ">node1 1111</a>"), "its GPU: %s", text.buf);
	/* The image's and the GPU's links lead to their pages. */
	for (int i = 0; i < 2; i++) {
		const char *parts[] = { i ? "node1 1111" : "sha256:aaaa" };
		cleanup_strbuf struct strbuf name = STRBUF_INIT;
		cleanup_free char *path = NULL, *href = NULL;

		site_page_name(i ? "gpu" : "image", parts, 1, &name);
		path = xasprintf("%s/%s", site, name.buf);
		href = xasprintf("href=\"%s\"", name.buf);
		cr_assert(strstr(text.buf, href), "%s: %s", href, text.buf);
		cr_assert_eq(access(path, F_OK), 0, "%s", path);
	}
	cr_assert_null(strstr(text.buf, "<script"));
	cr_assert(strstr(text.buf, "script-src 'none'"), "the site's CSP");

	read_page(fresh_page, &text);
	cr_assert(strstr(text.buf, "Untriaged"), "%s", text.buf);
	cr_assert(strstr(text.buf, "\n    match:\n") && strstr(text.buf, "kernel_family: 'scan'"),
		  "a rule to paste, its lines kept: %s", text.buf);
}

/* No failure anywhere: no signature pages, the index as before. */
Test(site_signatures, no_failures_no_signature_pages)
{
	struct history_db *db;
	struct sweep_results n1 = { 0 };
	struct site_options o = { .label = NULL, .last = 10 };
	struct site_stats stats;
	struct error err;
	cleanup_strbuf struct strbuf text = STRBUF_INIT;

	cr_assert_eq(history_db_open(&db, dbpath, &err), 0, "%s", err.msg);
	result(&n1, "lib/c1", "PASS", NULL, NULL, NULL);
	import(db, "nightly-1", 1764633600, &n1);
	cr_assert_eq(history_site_generate(db, site, &o, &stats, &err), 0, "%s", err.msg);
	history_db_close(db);
	read_page("index.html", &text);
	cr_assert_null(strstr(text.buf, "first seen today"), "%s", text.buf);
	read_page(SITE_SIGNATURES_PAGE, &text);
	cr_assert(strstr(text.buf, "0 signatures"), "%s", text.buf);
}

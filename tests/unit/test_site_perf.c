/* The history site's GPU time (orchestrator/site/site_perf.h): the
 * median's interval, the series and their comparisons, the changes'
 * order (pure); the case page's chart, the index of changes and the index
 * page's line, from a real history database. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/fsutil.h"
#include "common/xalloc.h"
#include "orchestrator/history/history_db.h"
#include "orchestrator/site/site.h"
#include "orchestrator/site/site_pages.h"
#include "orchestrator/site/site_perf.h"
#include "tests/support/perf_lines.h"
#include "tests/support/scratch.h"

static char *root, *dbpath, *site;

static void setup(void)
{
	root = scratch_dir("site-perf");
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

TestSuite(site_perf, .init = setup, .fini = teardown);

static const double wobble[] = { 0, 0.2, -0.2, 0.1, -0.1 };

/* A night of five samples about base; its samples are base + wobble
 * (load_wobble), which the attempt's number recalls. */
static void add5(struct site_perf_case *c, const char *image, const char *image_id, size_t col,
		 int attempt, double base)
{
	struct site_perf_row r = { .image = image, .gfx = "gfx942", .image_id = image_id,
				   .digest = "d", .device_id = 29857, .col = col,
				   .started = 1000 + (long long)col * 86400, .attempt = attempt };
	double x[5];
	char sweep[16];

	snprintf(sweep, sizeof(sweep), "s%zu", col);
	r.sweep_id = sweep;
	for (int i = 0; i < 5; i++)
		x[i] = base + wobble[i];
	perf_summarize(x, 5, &r.sum);
	site_perf_case_add(c, &r);
}

/* The nights' bases, by sweep column and attempt, as add5 was given them;
 * each load counted. */
struct bases {
	double base[8][3];
	int loads;
};

static int load_wobble(void *ctx, const struct site_perf_series *s, struct site_perf_night *n,
		       struct error *err)
{
	struct bases *b = ctx;
	double base = b->base[n->col][n->attempt];

	(void)s;
	(void)err;
	b->loads++;
	n->ms = xmalloc(5 * sizeof(double));
	n->n_ms = 5;
	for (int i = 0; i < 5; i++)
		n->ms[4 - i] = base + wobble[i];
	return 0;
}

static const struct perf_rule rule = { PERF_THRESHOLD_DEFAULT, PERF_ALPHA_DEFAULT,
				       PERF_MAX_CV_DEFAULT };

Test(site_perf, a_series_per_image_each_night_against_the_sweep_before)
{
	struct site_perf_case c = { .last_col = 4 };
	struct error err;

	add5(&c, "img:a", "id1", 0, 1, 40);
	add5(&c, "img:b", "id9", 0, 1, 80);
	add5(&c, "img:a", "id1", 1, 1, 40);
	add5(&c, "img:a", "id1", 2, 1, 44);     /* same image ID: same-build */
	add5(&c, "img:a", "id2", 2, 2, 44.2);   /* a later attempt replaces it */
	add5(&c, "img:a", "id3", 3, 1, 48.62);  /* new image: slower */
	add5(&c, "img:a", "id3", 3, 0, 10);     /* an earlier attempt: ignored */
	add5(&c, "img:a", "id4", 4, 1, 44.2);   /* faster, the last sweep */
	add5(&c, "img:b", "id9", 2, 1, 80);     /* col 1 missing: not compared */
	add5(&c, "img:b", "id9", 4, 1, 80);
	struct bases b = { .base = { [0][1] = 40, [1][1] = 40, [2][1] = 44, [2][2] = 44.2,
				     [3][1] = 48.62, [3][0] = 10, [4][1] = 44.2 } };

	cr_assert_eq(site_perf_case_finish(&c, &rule, load_wobble, &b, &err), 0, "%s", err.msg);
	/* only the nights of a change's U test: 1 and 2, 2 and 3, 3 and 4 */
	cr_expect_eq(b.loads, 4);
	cr_assert_eq(c.n, 2);
	cr_assert_str_eq(c.v[0].image, "img:a");
	cr_assert_eq(c.v[0].n, 5);
	cr_expect_eq(c.v[0].v[0].cmp.status, PERF_NONE);
	cr_expect_eq(c.v[0].v[1].cmp.status, PERF_UNCHANGED);
	cr_expect_eq(c.v[0].v[2].attempt, 2);
	cr_expect_str_eq(c.v[0].v[2].image_id, "id2");
	cr_expect_eq(c.v[0].v[2].cmp.status, PERF_SLOWER);
	cr_expect(fabs(c.v[0].v[2].sum.median - 44.2) < 1e-9);
	cr_expect(c.v[0].v[2].sum.lo < 44.2 && c.v[0].v[2].sum.hi > 44.2);
	cr_expect_eq(c.v[0].v[3].cmp.status, PERF_SLOWER);
	cr_expect(fabs(c.v[0].v[3].cmp.ratio - 1.1) < 1e-9);
	/* before the last sweep: the status only, no interval */
	cr_expect(isnan(c.v[0].v[3].cmp.ci_lo));
	cr_expect_eq(c.v[0].v[4].cmp.status, PERF_FASTER);
	cr_expect(c.v[0].v[4].cmp.ci_lo < c.v[0].v[4].cmp.ratio &&
		  c.v[0].v[4].cmp.ratio < c.v[0].v[4].cmp.ci_hi);
	cr_expect(fabs(c.v[0].v[4].cmp.p - 2.0 / 252) < 1e-9);
	cr_assert_eq(c.v[1].n, 3);
	cr_expect_eq(c.v[1].v[1].cmp.status, PERF_NONE);
	cr_expect_eq(c.v[1].v[2].cmp.status, PERF_NONE);

	struct site_perf_changes x = { .keep = STRVEC_INIT };

	site_perf_changes_add(&x, "nightly", "hot", "case-1.html", &c);
	cr_assert_eq(x.n, 1);
	cr_expect_str_eq(x.v[0].baseline_sweep, "s3");
	cr_expect_str_eq(x.v[0].image_id, "id4");
	cr_expect_str_eq(x.v[0].baseline_image_id, "id3");
	site_perf_changes_release(&x);
	site_perf_case_release(&c);
}

static void change(struct site_perf_changes *x, const char *case_name, enum perf_status s,
		   double ratio)
{
	x->v = xrealloc(x->v, (x->n + 1) * sizeof(*x->v));
	x->v[x->n++] = (struct site_perf_change){ .label = "l", .case_name = case_name,
						  .image = "i", .cmp = { .status = s,
									 .ratio = ratio } };
}

Test(site_perf, changes_by_size_slower_first_on_ties)
{
	struct site_perf_changes x = { .keep = STRVEC_INIT };

	change(&x, "a", PERF_FASTER, 0.95);
	change(&x, "b", PERF_SLOWER, 1.04);
	change(&x, "c", PERF_SLOWER, 1.05);
	change(&x, "d", PERF_FASTER, 0.7);
	change(&x, "e", PERF_SLOWER, 1.2);
	site_perf_changes_sort(&x);
	const char *want[] = { "d", "e", "c", "a", "b" };

	for (size_t i = 0; i < 5; i++)
		cr_expect_str_eq(x.v[i].case_name, want[i], "%zu", i);
	cr_expect_eq(x.n_slower, 3);
	cr_expect_eq(x.n_faster, 2);
	site_perf_changes_release(&x);
}

static void import(struct history_db *db, const char *id, long long started,
		   struct sweep_results *rs)
{
	struct history_sweep s = { .id = id, .label = "nightly", .state = "finished",
				   .started = started, .host = "node1" };
	struct history_planned p[3] = { { "hot", "rocm:nightly" }, { "cold", "rocm:nightly" },
					{ "plain", "rocm:nightly" } };
	struct error err;
	bool rebuilt;

	cr_assert_eq(history_db_import(db, &s, p, 3, rs, &rebuilt, &err), 0, "%s", err.msg);
	sweep_results_release(rs);
}

static char *page(const char *name)
{
	cleanup_free char *path = xasprintf("%s/%s", site, name);
	struct strbuf text = STRBUF_INIT;
	struct error err;

	cr_assert_eq(fs_read_small_file(path, 4 << 20, &text, &err), 0, "%s", err.msg);
	return strbuf_detach(&text, NULL);
}

static char *case_page(const char *case_name)
{
	cleanup_strbuf struct strbuf name = STRBUF_INIT;

	site_case_page_name("nightly", case_name, &name);
	return page(name.buf);
}

static struct history_db *open_db(void)
{
	struct history_db *db;
	struct error err;

	cr_assert_eq(history_db_open(&db, dbpath, &err), 0, "%s", err.msg);
	return db;
}

/* The site of the last 60 sweeps, and the database closed. */
static void generate(struct history_db *db)
{
	struct site_options o = { .last = 60 };
	struct site_stats st;
	struct error err;

	cr_assert_eq(history_site_generate(db, site, &o, &st, &err), 0, "%s", err.msg);
	history_db_close(db);
}

/* Three nights: "hot" 10% slower on the third with a new image, "cold"
 * steady, "plain" without samples. */
static void three_nights(double hot_last)
{
	struct history_db *db = open_db();
	struct sweep_results rs = { 0 };

	for (int n = 0; n < 3; n++) {
		char id[32];
		const char *image_id = n == 2 ? "sha256:bbbb" : "sha256:aaaa";

		snprintf(id, sizeof(id), "nightly-%d", n);
		perf_line(&rs, "hot", "rocm:nightly", image_id, 1, 0, n == 2 ? hot_last : 40);
		perf_line(&rs, "cold", "rocm:nightly", image_id, 1, 0, 20);
		perf_line(&rs, "plain", "rocm:nightly", image_id, 1, 0, 0);
		import(db, id, 1764547200 + n * 86400LL, &rs);
	}
	generate(db);
}

Test(site_perf, the_case_chart_and_the_index_of_changes)
{
	three_nights(44);
	cleanup_free char *hot = case_page("hot"), *cold = case_page("cold"),
			  *plain = case_page("plain"), *changes = page(SITE_PERF_PAGE),
			  *index = page("index.html");

	cr_expect(strstr(hot, "<h2>GPU time</h2>"));
	cr_expect(strstr(hot, "class=\"chart perf\""));
	cr_expect(strstr(hot, "class=\"band\""));
	cr_expect(strstr(hot, "class=\"baseline\""));
	cr_expect(strstr(hot, "class=\"pt slower\""));
	cr_expect(strstr(hot, "median 44.0 ms"), "%s", hot);
	cr_expect(strstr(hot, "slower x1.100 ["));
	cr_expect(strstr(hot, "against sweep nightly-1"));
	cr_expect(strstr(cold, "class=\"chart perf\""));
	cr_expect_null(strstr(cold, "pt slower"));
	cr_expect(strstr(cold, "unchanged x1.000"));
	cr_expect_null(strstr(plain, "GPU time"), "a case without samples has no chart");

	cr_expect(strstr(changes, "id=\"perf-changes\""));
	cr_expect(strstr(changes, ">hot</a>"));
	cr_expect_null(strstr(changes, ">cold</a>"));
	cr_expect(strstr(changes, "<td>slower</td><td>1.100</td><td>+10.0 %</td>"), "%s",
		  changes);
	cr_expect(strstr(changes, "<td>0.0079</td><td>44.0 / 40.0</td><td>5 / 5</td>"));
	cr_expect(strstr(changes, "nightly-2 (sha256:bbbb)"));
	cr_expect(strstr(changes, "nightly-1 (sha256:aaaa)"));
	cr_expect(strstr(index, "GPU time in the last sweep: 1 slower, 0 faster."));
	cr_expect(strstr(index, "href=\"" SITE_PERF_PAGE "\""));
}

Test(site_perf, no_change_is_one_line)
{
	three_nights(40);
	cleanup_free char *changes = page(SITE_PERF_PAGE), *index = page("index.html");

	cr_expect(strstr(changes, "No GPU-time change in the last sweep."));
	cr_expect_null(strstr(changes, "<table"));
	cr_expect(strstr(index, "No GPU-time change in the last sweep."));
}

/* 24 nights of a case whose name needs escaping: 40 ms, then 44 ms from
 * night 22 on (its image IDs change every night): the change point
 * the last night's import found is marked on its chart and listed, new, on
 * the index; a steady case has none. */
Test(site_perf, change_points_on_the_chart_and_new_ones_on_the_index)
{
	static const char hot[] = "hot<b>&amp";
	static const double wobble[] = { 0, 0.3, -0.2, 0.1, -0.3, 0.2 };
	struct history_db *db = open_db();
	struct sweep_results rs = { 0 };

	for (int n = 1; n <= 24; n++) {
		char id[32], image_id[40];

		snprintf(id, sizeof(id), "nightly-%02d", n);
		snprintf(image_id, sizeof(image_id), "sha256:%02d00000000000000", n);
		perf_line(&rs, hot, "rocm:nightly", image_id, 1, 0,
			  (n >= 22 ? 44 : 40) + wobble[n % 6]);
		perf_line(&rs, "cold", "rocm:nightly", image_id, 1, 0, 20 + wobble[n % 6]);
		import(db, id, 1764547200 + n * 86400LL, &rs);
	}
	generate(db);

	cleanup_free char *page_hot = case_page(hot), *cold = case_page("cold"),
			  *index = page("index.html");

	cr_expect(strstr(page_hot, "class=\"cp\""), "%s", page_hot);
	cr_expect(strstr(page_hot, "change point at sweep nightly-22: +9.7%, median 40.1 -&gt; "
				   "44.0 ms, p 0.005"), "%s", page_hot);
	cr_expect(strstr(page_hot, "image sha256:210000000000 -&gt; sha256:220000000000"), "%s",
		  page_hot);
	cr_expect(strstr(page_hot, "Change points: nightly-22 ("), "%s", page_hot);
	cr_expect_null(strstr(cold, "class=\"cp\""));
	cr_expect(strstr(index, "New GPU-time change points (1)"), "%s", index);
	cr_expect(strstr(index, "id=\"perf-cps\""));
	cr_expect(strstr(index, "&gt;hot&lt;b&gt;&amp;amp</a>") ||
		  strstr(index, ">hot&lt;b&gt;&amp;amp</a>"), "%s", index);
	cr_expect_null(strstr(index, "hot<b>"), "escaped");
	cr_expect(strstr(index, "<td>nightly-22</td>"), "%s", index);
	cr_expect(strstr(index, "<td>+9.7 %</td><td>40.1 -&gt; 44.0</td>"), "%s", index);
}

/* The change points of each case's GPU-time series in the history (schema
 * 9, docs/perf.md "Change points"): found at import, kept with the sweep
 * that first found them, listed, accepted (the series restarts there),
 * pruned with their night. */
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "orchestrator/history/history_changes.h"
#include "orchestrator/history/history_sql.h"
#include "tests/support/history_backend.h"
#include "tests/support/perf_lines.h"
#include "tests/support/scratch.h"

static char *root, *dbpath;
static struct history_db *db;

static void setup(void)
{
	struct error err;

	root = scratch_dir("history-changes");
	cleanup_free char *file = xasprintf("%s/data/history.sqlite", root);

	dbpath = history_backend_db(file);
	cr_assert_eq(history_db_open(&db, dbpath, &err), 0, "%s", err.msg);
}

static void teardown(void)
{
	history_db_close(db);
	scratch_remove(root);
	free(root);
	free(dbpath);
}

TestSuite(history_changes, .init = setup, .fini = teardown);

/* Night i (n01, n02, ...): "hot" around ms (its nightly image ID n<i>),
 * "cold" at 20 ms every night. */
static void night(int i, double ms)
{
	char id[16], image_id[40];
	struct sweep_results rs = { 0 };
	struct history_sweep s = { .id = id, .label = "nightly", .state = "finished",
				   .started = 100 * i, .folder = id };
	struct history_planned p[2] = { { "hot", "img" }, { "cold", "img" } };
	struct error err;
	bool rebuilt;

	snprintf(id, sizeof(id), "n%02d", i);
	snprintf(image_id, sizeof(image_id), "sha256:%02d0000000000000", i);
	perf_line(&rs, "hot", "img", image_id, 1, 0, ms);
	perf_line(&rs, "cold", "img", image_id, 1, 0, 20);
	cr_assert_eq(history_db_import(db, &s, p, 2, &rs, &rebuilt, &err), 0, "%s", err.msg);
	sweep_results_release(&rs);
}

/* The nightly medians move about 1%: 40 ms with a fixed wobble. */
static double level(int i, double base)
{
	static const double wobble[] = { 0, 0.4, -0.3, 0.2, -0.4, 0.3, -0.2, 0.1 };

	return base + wobble[i % 8];
}

/* The rows' numbers, and copies of their text: a row's strings are the
 * statement's, valid only during the callback. */
struct rows {
	struct history_change_row v[8];
	char night[8][16], found[8][16], before[8][40], after[8][40], name[8][16], gfx[8][16];
	size_t n;
};

static int keep(void *ctx, const struct history_change_row *r)
{
	struct rows *rows = ctx;

	cr_assert_lt(rows->n, 8);
	rows->v[rows->n] = *r;
	snprintf(rows->night[rows->n], 16, "%s", r->sweep);
	snprintf(rows->found[rows->n], 16, "%s", r->found_sweep);
	snprintf(rows->before[rows->n], 40, "%s", r->image_id_before);
	snprintf(rows->after[rows->n], 40, "%s", r->image_id_after);
	snprintf(rows->name[rows->n], 16, "%s", r->case_name);
	snprintf(rows->gfx[rows->n], 16, "%s", r->gfx);
	rows->n++;
	return 0;
}

static struct rows list(const char *found, bool skip_accepted)
{
	struct history_change_query q = { .label = "nightly", .found = found,
					  .skip_accepted = skip_accepted };
	struct rows rows = { 0 };
	struct error err;

	cr_assert_eq(history_changes_each(db, &q, keep, &rows, &err), 0, "%s", err.msg);
	return rows;
}

/* Ten nights at 40 ms, then 44 ms from n11: found at n13's import (the
 * third night of the new level), on n11, with the images either side. */
static void step_at_eleven(int nights)
{
	for (int i = 1; i <= nights; i++)
		night(i, level(i, i >= 11 ? 44 : 40));
}

Test(history_changes, a_step_is_found_on_its_night_once_three_nights_show_it)
{
	struct rows r;

	step_at_eleven(12);
	cr_expect_eq(list(NULL, false).n, 0, "two nights of the new level are not enough");
	night(13, level(13, 44));
	r = list(NULL, false);
	cr_assert_eq(r.n, 1);
	cr_expect_str_eq(r.night[0], "n11");
	cr_expect_str_eq(r.found[0], "n13");
	cr_expect_str_eq(r.name[0], "hot");
	cr_expect_str_eq(r.gfx[0], "gfx942");
	cr_expect_eq(r.v[0].device_id, 29857);
	cr_expect_str_eq(r.before[0], "sha256:100000000000000");
	cr_expect_str_eq(r.after[0], "sha256:110000000000000");
	cr_expect_float_eq(r.v[0].ratio, 1.1, 0.01);
	cr_expect_leq(r.v[0].p, 0.01);
	cr_expect_eq(list("n13", false).n, 1, "tonight's new change point");

	/* The next night finds it again: it stays n13's, and n14 has none new. */
	night(14, level(14, 44));
	r = list(NULL, false);
	cr_assert_eq(r.n, 1);
	cr_expect_str_eq(r.found[0], "n13");
	cr_expect_eq(list("n14", false).n, 0);
}

Test(history_changes, one_slow_night_is_no_change_point)
{
	for (int i = 1; i <= 20; i++)
		night(i, level(i, i == 12 ? 60 : 40));
	cr_expect_eq(list(NULL, false).n, 0);
}

Test(history_changes, an_accepted_change_restarts_the_series)
{
	char *label = NULL, *sweep = NULL;
	long long us;
	struct error err;
	struct rows r;

	step_at_eleven(13);
	cr_assert_eq(history_changes_restart(db, "nightly", "hot", "img", "gfx942", 29857, &sweep,
					     &us, &err), 0, "%s", err.msg);
	cr_expect_str_eq(sweep, "n11", "the last change point");
	cr_expect_eq(us, 1100LL * 1000000);
	free(sweep);
	cr_assert_eq(history_changes_accept(db, "hot", "n11", &label, &err), 0, "%s", err.msg);
	cr_expect_str_eq(label, "nightly");
	free(label);
	r = list(NULL, false);
	cr_assert_eq(r.n, 1);
	cr_expect(r.v[0].accepted);
	cr_expect_eq(list("n13", true).n, 0, "the alarm stops");

	night(14, level(14, 44));
	night(15, level(15, 44));
	cr_expect_eq(list(NULL, false).n, 1, "the accepted change stays, no other is found");
	/* The series from its restart: n11..n15, newest first. */
	double med[10];
	size_t n;

	cr_assert_eq(history_changes_medians(db, "nightly", "hot", "img", "gfx942", 29857, 0, med,
					     10, &n, &err), 0, "%s", err.msg);
	cr_expect_eq(n, 5);
	cr_expect_float_eq(med[0], level(15, 44), 1e-9);
	cr_expect_float_eq(med[4], level(11, 44), 1e-9);
	cr_assert_eq(history_changes_medians(db, "nightly", "hot", "img", "gfx942", 29857,
					     1000LL * 1000000, med, 10, &n, &err), 0, "%s", err.msg);
	cr_expect_eq(n, 10, "up to n10: no change before it, every night");
	cr_expect_float_eq(med[0], level(10, 40), 1e-9);
	cr_assert_eq(history_changes_restart(db, "nightly", "cold", "img", "gfx942", 29857, &sweep,
					     &us, &err), 0, "%s", err.msg);
	cr_expect_null(sweep, "cold never changed");
	cr_expect_eq(history_changes_accept(db, "hot", "nope", &label, &err), -1);
	cr_expect_eq(err.kind, ERR_NOT_FOUND);
}

Test(history_changes, the_report_lists_each_change_point)
{
	cleanup_strbuf struct strbuf md = STRBUF_INIT, json = STRBUF_INIT;
	struct error err;

	step_at_eleven(13);
	cr_assert_eq(history_changes_report(db, "nightly", NULL, false, &md, &err), 0, "%s",
		     err.msg);
	cr_expect(strstr(md.buf, "| n11 | hot | img | gfx942 29857 | +10."), "%s", md.buf);
	cr_expect(strstr(md.buf, "100000000000 → 110000000000"), "%s", md.buf);
	cr_assert_eq(history_changes_report(db, NULL, "cold", true, &json, &err), 0, "%s", err.msg);
	cr_expect_str_eq(json.buf, "[]\n");
	strbuf_reset(&md);
	cr_assert_eq(history_changes_report(db, NULL, "cold", false, &md, &err), 0, "%s", err.msg);
	cr_expect(strstr(md.buf, "No change points found."), "%s", md.buf);
}

static void exec(sqlite3 *h, const char *sql)
{
	cr_assert_eq(sqlite3_exec(h, sql, NULL, NULL, NULL), SQLITE_OK, "%s: %s", sql,
		     sqlite3_errmsg(h));
}

/* The migration to schema 9 computes the nightly medians of the samples
 * stored before: the last attempt with samples, times of 0 ms left out,
 * a night with half or more of them none. */
Test(history_changes, the_migration_computes_the_medians_of_older_samples)
{
	cleanup_free char *old = xasprintf("%s/old.sqlite", root);
	struct history_db *odb;
	struct error err;
	sqlite3 *h;
	sqlite3_stmt *st;
	char got[256] = "";

	HISTORY_SQLITE_ONLY();
	cr_assert_eq(sqlite3_open(old, &h), SQLITE_OK);
	for (int v = 0; v < 8; v++)
		exec(h, history_migrations[v]);
	exec(h, "PRAGMA user_version = 8");
	exec(h, "INSERT INTO sweeps(id, label, started, state, started_us)"
		" VALUES('s0', 'nightly', 1, 'finished', 1000000)");
	exec(h, "INSERT INTO results(sweep, case_name, image_ref, attempt, state, gfx, device_id)"
		" VALUES('s0', 'hot', 'img', 1, 'done', 'gfx942', 29857),"
		" ('s0', 'hot', 'img', 2, 'done', 'gfx942', 29857),"
		" ('s0', 'cold', 'img', 1, 'done', NULL, NULL),"
		" ('s0', 'even', 'img', 1, 'done', NULL, NULL)");
	exec(h, "INSERT INTO perf_samples(sweep, case_name, image_ref, attempt, idx, kernel_ms)"
		" VALUES('s0', 'hot', 'img', 1, 0, 50), ('s0', 'hot', 'img', 1, 1, 50),"
		" ('s0', 'hot', 'img', 2, 0, 0), ('s0', 'hot', 'img', 2, 1, 44),"
		" ('s0', 'hot', 'img', 2, 2, 40), ('s0', 'hot', 'img', 2, 3, 42),"
		" ('s0', 'cold', 'img', 1, 0, 0), ('s0', 'cold', 'img', 1, 1, 0),"
		" ('s0', 'cold', 'img', 1, 2, 10),"
		" ('s0', 'even', 'img', 1, 0, 20), ('s0', 'even', 'img', 1, 1, 10)");
	sqlite3_close(h);

	cr_assert_eq(history_db_open(&odb, old, &err), 0, "%s", err.msg);
	history_db_close(odb);
	cr_assert_eq(sqlite3_open(old, &h), SQLITE_OK);
	cr_assert_eq(sqlite3_prepare_v2(h, "SELECT group_concat(case_name || ' ' || gfx || ' ' ||"
					   " device_id || ' ' || started_us || ' ' || median_ms, '; ')"
					   " FROM perf_medians", -1, &st, NULL), SQLITE_OK);
	cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
	snprintf(got, sizeof(got), "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	sqlite3_close(h);
	cr_expect_str_eq(got, "even  -1 1000000 15.0; hot gfx942 29857 1000000 42.0");
}

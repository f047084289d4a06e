/* --perf's samples in the history database (schema 6, docs/perf.md "In
 * the history"): stored with their results, read back per sweep window,
 * replaced with their sweep, pruned with it; `history perf`'s series. */
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "orchestrator/history/history_perf.h"
#include "orchestrator/history/history_sql.h"
#include "orchestrator/report/report_perf.h"
#include "tests/support/history_backend.h"
#include "tests/support/perf_lines.h"
#include "tests/support/preflight_fixtures.h"
#include "tests/support/scratch.h"

static char *root, *dbpath;

static void setup(void)
{
	root = scratch_dir("history-perf");
	cleanup_free char *file = xasprintf("%s/data/history.sqlite", root);

	dbpath = history_backend_db(file);
}

static void teardown(void)
{
	scratch_remove(root);
	free(root);
	free(dbpath);
}

TestSuite(history_perf, .init = setup, .fini = teardown);

/* One results line with five samples around base ms (none when base is 0). */
static void add(struct sweep_results *rs, const char *name, const char *image, int attempt,
		double base)
{
	cleanup_free char *id = xasprintf("sha256:%s", image);

	perf_line(rs, name, image, id, attempt, 1, base);
}

static void import(struct history_db *db, const char *id, long long started,
		   const struct sweep_results *rs)
{
	struct history_sweep s = { .id = id, .label = "nightly", .state = "finished",
				   .started = started, .folder = id };
	struct history_planned p[2] = { { "hot", "img" }, { "cold", "img" } };
	struct error err;
	bool rebuilt;

	cr_assert_eq(history_db_import(db, &s, p, 2, rs, &rebuilt, &err), 0, "%s", err.msg);
}

struct seen {
	char sweep[8][16];
	double sum[8];
	size_t n[8], rows, lines;
	int attempt;
};

static int seen_row(void *ctx, const struct history_perf_row *row)
{
	struct seen *s = ctx;
	size_t i = 0;

	while (i < s->lines && strcmp(s->sweep[i], row->sweep_id))
		i++;
	if (i == s->lines)
		snprintf(s->sweep[s->lines++], 16, "%s", row->sweep_id);
	s->sum[i] += row->kernel_ms;
	s->n[i]++;
	s->rows++;
	s->attempt = row->attempt;
	cr_assert_str_eq(row->gfx, "gfx942");
	cr_assert_eq(row->device_id, 29857);
	return 0;
}

/* Three nights: s1 40 ms, s2 44 ms (its first attempt's samples replaced
 * by a retry's), s3 44 ms; a case without samples stores none. */
static void three_nights(struct history_db *db)
{
	struct sweep_results rs = { 0 };

	add(&rs, "hot", "img", 1, 40);
	add(&rs, "cold", "img", 1, 0);
	import(db, "s1", 100, &rs);
	sweep_results_release(&rs);
	add(&rs, "hot", "img", 1, 50);
	add(&rs, "hot", "img", 2, 44);
	import(db, "s2", 200, &rs);
	sweep_results_release(&rs);
	add(&rs, "hot", "img", 1, 44);
	import(db, "s3", 300, &rs);
	sweep_results_release(&rs);
}

Test(history_perf, samples_per_window_before_a_sweep_last_attempt_only)
{
	struct history_db *db;
	struct error err;
	struct seen s = { 0 };

	cr_assert_eq(history_db_open(&db, dbpath, &err), 0, "%s", err.msg);
	three_nights(db);

	/* The window of s3: the one sweep before it, s2, its retry's samples. */
	struct history_perf_query q = { .label = "nightly", .before = "s3", .last = 1 };

	cr_assert_eq(history_perf_samples(db, &q, seen_row, &s, &err), 0, "%s", err.msg);
	cr_assert_eq(s.lines, 1);
	cr_assert_str_eq(s.sweep[0], "s2");
	cr_assert_eq(s.n[0], 5);
	cr_assert_float_eq(s.sum[0] / 5, 44.0, 1e-9);
	cr_assert_eq(s.attempt, 2, "the last attempt with samples");

	/* Two nights back, newest first. */
	memset(&s, 0, sizeof(s));
	q.last = 2;
	q.newest_first = true;
	cr_assert_eq(history_perf_samples(db, &q, seen_row, &s, &err), 0, "%s", err.msg);
	cr_assert_eq(s.lines, 2);
	cr_assert_str_eq(s.sweep[0], "s2");
	cr_assert_str_eq(s.sweep[1], "s1");
	cr_assert_eq(s.rows, 10, "cold has no samples");

	/* One named sweep. */
	memset(&s, 0, sizeof(s));
	q = (struct history_perf_query){ .sweep = "s1", .case_name = "hot", .last = 1 };
	cr_assert_eq(history_perf_samples(db, &q, seen_row, &s, &err), 0, "%s", err.msg);
	cr_assert_eq(s.rows, 5);
	cr_assert_float_eq(s.sum[0] / 5, 40.0, 1e-9);
	history_db_close(db);
}

static int side_row(void *ctx, const struct history_perf_row *row)
{
	return report_perf_add_row(ctx, row);
}

/* The sides the report reads from the history are those it once read from
 * the results: each case and image's last attempt with --perf's record. */
Test(history_perf, a_sweeps_sides_as_the_results_make_them)
{
	struct history_db *db;
	struct error err;
	struct report_perf_set got = { 0 }, want = { 0 };
	struct sweep_results rs = { 0 };

	cr_assert_eq(history_db_open(&db, dbpath, &err), 0, "%s", err.msg);
	add(&rs, "hot", "img", 1, 50);
	add(&rs, "hot", "img", 2, 44);
	add(&rs, "cold", "img", 1, 0);
	add(&rs, "cold", "b-img", 1, 30);
	import(db, "s1", 100, &rs);
	report_perf_collect(&want, &rs);
	cr_assert_eq(history_perf_sides(db, "s1", side_row, &got, &err), 0, "%s", err.msg);
	report_perf_finish(&got);
	cr_assert_eq(got.n, want.n);
	cr_assert_eq(got.n, 2);
	for (size_t i = 0; i < got.n; i++) {
		const struct report_perf_side *a = &got.v[i], *b = &want.v[i];

		cr_assert_str_eq(a->case_name, b->case_name);
		cr_assert_str_eq(a->image, b->image);
		cr_assert_str_eq(a->image_id, b->image_id);
		cr_assert_str_eq(a->gfx, b->gfx);
		cr_assert_eq(a->device_id, b->device_id);
		cr_assert_eq(a->attempt, b->attempt);
		cr_assert_eq(a->n, b->n);
		for (size_t k = 0; k < a->n; k++)
			cr_assert_float_eq(a->ms[k], b->ms[k], 1e-9);
	}
	cr_assert_eq(got.v[1].attempt, 2, "hot's retry");
	report_perf_release(&got);
	report_perf_release(&want);
	sweep_results_release(&rs);
	history_db_close(db);
}

static long long count(const char *sql)
{
	struct history_db *db;
	struct history_stmt *st;
	struct error err;
	long long n;

	cr_assert_eq(history_db_open_readonly(&db, dbpath, &err), 0, "%s", err.msg);
	cr_assert_eq(history_sql_prepare(db, sql, &st, &err), 0, "%s", err.msg);
	cr_assert_eq(history_step(st), HISTORY_ROW);
	n = history_col_int64(st, 0);
	history_finalize(st);
	history_db_close(db);
	return n;
}

Test(history_perf, a_reimport_replaces_the_samples_and_prune_removes_them)
{
	struct history_db *db;
	struct error err;
	struct sweep_results rs = { 0 };
	cleanup_strvec struct strvec ids = STRVEC_INIT, folders = STRVEC_INIT;

	cr_assert_eq(history_db_open(&db, dbpath, &err), 0, "%s", err.msg);
	three_nights(db);
	cr_assert_eq(count("SELECT COUNT(*) FROM perf_samples"), 20);
	cr_assert_eq(count("SELECT COUNT(*) FROM results WHERE perf_warmup = 1 AND gfx = 'gfx942'"
			   " AND device_id = 29857"), 4);
	/* s3's results file now says something else: its rows are rebuilt. */
	add(&rs, "hot", "img", 1, 41);
	add(&rs, "cold", "img", 1, 39);
	import(db, "s3", 300, &rs);
	sweep_results_release(&rs);
	cr_assert_eq(count("SELECT COUNT(*) FROM perf_samples WHERE sweep = 's3'"), 10);
	cr_assert_eq(history_db_prune(db, "nightly", 1, &ids, &folders, &err), 0, "%s", err.msg);
	cr_assert_eq(count("SELECT COUNT(*) FROM perf_samples WHERE sweep != 's3'"), 0,
		     "pruned sweeps take their samples with them");
	history_db_close(db);
}

Test(history_perf, the_series_of_a_case_in_markdown_and_json)
{
	struct history_db *db;
	struct error err;
	cleanup_strbuf struct strbuf md = STRBUF_INIT, json = STRBUF_INIT;

	cr_assert_eq(history_db_open(&db, dbpath, &err), 0, "%s", err.msg);
	three_nights(db);
	cr_assert_eq(history_perf_report(db, "nightly", "hot", 10, false, &md, &err), 0, "%s",
		     err.msg);
	cr_assert_eq(history_perf_report(db, "nightly", "hot", 10, true, &json, &err), 0, "%s",
		     err.msg);
	history_db_close(db);
	const char *a = strstr(md.buf, "| s1 | img | gfx942 29857 | 5 | 40.0 |");
	const char *b = strstr(md.buf, "| s2 | img | gfx942 29857 | 5 | 44.0 |");

	cr_assert(a && b && a < b, "oldest first:\n%s", md.buf);
	cleanup_cjson cJSON *j = cJSON_Parse(json.buf);

	cr_assert_eq(cJSON_GetArraySize(j), 3, "%s", json.buf);
	cr_assert_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(cJSON_GetArrayItem(j, 2),
							       "median_ms")), 44.0);
	cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(cJSON_GetArrayItem(j, 0),
							     "kernel_ms")), 5);
}

static void exec(sqlite3 *h, const char *sql)
{
	cr_assert_eq(sqlite3_exec(h, sql, NULL, NULL, NULL), SQLITE_OK, "%s: %s", sql,
		     sqlite3_errmsg(h));
}

Test(history_perf, a_schema_5_database_migrates_and_keeps_its_rows)
{
	struct history_db *db;
	struct error err;
	sqlite3 *h;

	HISTORY_SQLITE_ONLY();
	pft_writef(dbpath, "%s", "");
	cr_assert_eq(sqlite3_open(dbpath, &h), SQLITE_OK);
	for (int v = 0; v < 5; v++)
		exec(h, history_migrations[v]);
	exec(h, "PRAGMA user_version = 5");
	exec(h, "INSERT INTO sweeps(id, label, started, state) VALUES('s0', 'nightly', 1, 'finished')");
	exec(h, "INSERT INTO results(sweep, case_name, image_ref, attempt, state, outcome)"
		" VALUES('s0', 'hot', 'img', 1, 'done', 'PASS')");
	sqlite3_close(h);

	cr_assert_eq(history_db_open(&db, dbpath, &err), 0, "%s", err.msg);
	history_db_close(db);
	cr_assert_eq(count("SELECT user_version FROM pragma_user_version"), HISTORY_SCHEMA_VERSION);
	cr_assert_eq(count("SELECT COUNT(*) FROM results WHERE gfx IS NULL"), 1);
	cr_assert_eq(count("SELECT COUNT(*) FROM perf_samples"), 0);
}

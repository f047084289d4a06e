/* Each attempt's kernel times summarized in the history (schema 12,
 * docs/perf.md "In the history"): written with the samples at import,
 * replaced with their sweep, and computed for the samples a history held
 * before the step; on both stores. */
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "orchestrator/history/history_db.h"
#include "orchestrator/history/history_query.h"
#include "orchestrator/history/history_sql.h"
#include "tests/support/history_backend.h"
#include "tests/support/perf_lines.h"
#include "tests/support/scratch.h"

static char *root, *dbpath;

static void setup(void)
{
	root = scratch_dir("history-perf-stats");
	cleanup_free char *file = xasprintf("%s/history.sqlite", root);

	dbpath = history_backend_db(file);
}

static void teardown(void)
{
	scratch_remove(root);
	free(root);
	free(dbpath);
}

TestSuite(history_perf_stats, .init = setup, .fini = teardown);

/* The summaries as text, in key order: case, attempt, n, zeros, median,
 * interval, the measured ones' median ("-": none) and CV. */
static void stats_text(struct history_db *db, struct strbuf *out)
{
	cleanup_stmt struct history_stmt *st = NULL;
	struct error err;
	int rc;

	cr_assert_eq(history_sql_prepare(db, "SELECT case_name, attempt, n, zeros, median_ms,"
					 " lo_ms, hi_ms, measured_median_ms, measured_cv"
					 " FROM perf_sample_stats"
					 " ORDER BY sweep, case_name, image_ref, attempt", &st,
					 &err), 0, "%s", err.msg);
	while ((rc = history_step(st)) == HISTORY_ROW) {
		strbuf_addf(out, "%s %d %lld %lld %g [%g, %g] ", history_col(st, 0),
			    history_col_int(st, 1), history_col_int64(st, 2),
			    history_col_int64(st, 3), history_col_double(st, 4),
			    history_col_double(st, 5), history_col_double(st, 6));
		if (history_col_null(st, 7))
			strbuf_addstr(out, "-");
		else
			strbuf_addf(out, "%g", history_col_double(st, 7));
		strbuf_addf(out, " %.4f; ", history_col_double(st, 8));
	}
	cr_assert_eq(rc, HISTORY_DONE);
}

static void import(struct history_db *db, struct sweep_results *rs)
{
	struct history_sweep s = { .id = "s0", .label = "nightly", .state = "finished",
				   .started = 1, .folder = "s0" };
	struct history_planned p[3] = { { "hot", "img" }, { "cold", "img" }, { "zeros", "img" } };
	struct error err;
	bool rebuilt;

	cr_assert_eq(history_db_import(db, &s, p, 3, rs, &rebuilt, &err), 0, "%s", err.msg);
	cr_assert(rebuilt);
	sweep_results_release(rs);
}

Test(history_perf_stats, an_import_summarizes_each_attempts_kernel_times)
{
	struct sweep_results rs = { 0 };
	cleanup_strbuf struct strbuf got = STRBUF_INIT;
	struct history_db *db;
	struct error err;

	cr_assert_eq(history_db_open(&db, dbpath, &err), 0, "%s", err.msg);
	perf_line(&rs, "hot", "img", "sha256:a", 1, 1, 40);
	perf_line(&rs, "hot", "img", "sha256:a", 2, 1, 44);
	perf_line(&rs, "cold", "img", "sha256:a", 1, 1, 0); /* no samples: no row */
	/* two times below the printed resolution, one not printed */
	sweep_results_parse_text(&rs, "{\"case\":\"zeros\",\"image\":\"img\",\"state\":\"done\","
				 "\"outcome\":\"PASS\",\"attempt\":1,\"perf\":{\"warmup\":1,"
				 "\"samples\":[{\"kernel_ms\":0},{\"kernel_ms\":10},"
				 "{\"kernel_ms\":0},{\"kernel_ms\":null}]}}\n");
	import(db, &rs);
	stats_text(db, &got);
	cr_expect_str_eq(got.buf, "hot 1 5 0 40 [39.8, 40.2] 40 0.0040; "
				  "hot 2 5 0 44 [43.8, 44.2] 44 0.0036; "
				  "zeros 1 3 2 0 [0, 10] 10 0.0000; ");
	/* the sweep imported again from other results: its rows replaced */
	perf_line(&rs, "hot", "img", "sha256:a", 1, 1, 50);
	import(db, &rs);
	strbuf_reset(&got);
	stats_text(db, &got);
	cr_expect_str_eq(got.buf, "hot 1 5 0 50 [49.8, 50.2] 50 0.0032; ");
	history_db_close(db);
}

/* sql on the test's database, whichever store it is on. */
static void run(const char *sql)
{
	sqlite3 *h;

	if (history_backend_pg()) {
		history_backend_exec(dbpath, sql);
		return;
	}
	cr_assert_eq(sqlite3_open(dbpath, &h), SQLITE_OK);
	cr_assert_eq(sqlite3_exec(h, sql, NULL, NULL, NULL), SQLITE_OK, "%s: %s", sql,
		     sqlite3_errmsg(h));
	sqlite3_close(h);
}

/* A history at schema 11 holding samples of four attempts (one with no
 * time), on the test's store. */
static void schema_11_with_samples(void)
{
	bool pg = history_backend_pg();

	if (pg)
		run("CREATE TABLE hrr_schema(version INTEGER NOT NULL);"
		    "INSERT INTO hrr_schema VALUES(11)");
	for (int v = 0; v < 11; v++)
		run(pg ? history_migrations_pg[v] : history_migrations[v]);
	if (!pg)
		run("PRAGMA user_version = 11");
	run("INSERT INTO sweeps(id, label, started, state, started_us)"
	    " VALUES('s0', 'nightly', 1, 'finished', 1000000)");
	run("INSERT INTO results(sweep, case_name, image_ref, attempt, state)"
	    " VALUES('s0', 'hot', 'img', 1, 'done'), ('s0', 'hot', 'img', 2, 'done'),"
	    " ('s0', 'even', 'img', 1, 'done'), ('s0', 'none', 'img', 1, 'done')");
	run("INSERT INTO perf_samples(sweep, case_name, image_ref, attempt, idx, kernel_ms)"
	    " VALUES('s0', 'hot', 'img', 1, 0, 50), ('s0', 'hot', 'img', 1, 1, 50),"
	    " ('s0', 'hot', 'img', 2, 0, 0), ('s0', 'hot', 'img', 2, 1, 44),"
	    " ('s0', 'hot', 'img', 2, 2, 40), ('s0', 'hot', 'img', 2, 3, 42),"
	    " ('s0', 'even', 'img', 1, 0, 20), ('s0', 'even', 'img', 1, 1, 10),"
	    " ('s0', 'none', 'img', 1, 0, NULL)");
}

/* Opened only to read, as `history site` opens it: brought up to date
 * first, or the site would find no summaries. */
Test(history_perf_stats, a_schema_11_history_gets_the_summaries_of_its_samples)
{
	cleanup_strbuf struct strbuf got = STRBUF_INIT;
	struct history_db *db;
	struct error err;

	schema_11_with_samples();
	cr_assert_eq(history_db_open_readonly(&db, dbpath, &err), 0, "%s", err.msg);
	stats_text(db, &got);
	/* 40, 42, 44: CV 2 / 42; 10, 20: CV 7.07 / 15 */
	cr_expect_str_eq(got.buf, "even 1 2 0 15 [10, 20] 15 0.4714; "
				  "hot 1 2 0 50 [50, 50] 50 0.0000; "
				  "hot 2 4 1 41 [0, 44] 42 0.0476; ");
	history_db_close(db);
}

/* A role that may only read (a web host's `history site`) cannot upgrade
 * it: one line naming the database and its schema, nothing changed. */
Test(history_perf_stats, a_reader_that_may_not_upgrade_an_older_server_is_told_in_one_line)
{
	cleanup_free char *role = xasprintf("hrr_ro_%ld", (long)getpid());
	cleanup_free char *sql = NULL, *uri = NULL;
	struct history_db *db;
	struct error err;

	if (!history_backend_pg())
		cr_skip_test("a server's role: PostgreSQL only");
	schema_11_with_samples();
	sql = xasprintf("REVOKE CREATE ON SCHEMA public FROM PUBLIC; CREATE ROLE %s LOGIN;"
			" GRANT SELECT ON ALL TABLES IN SCHEMA public TO %s", role, role);
	run(sql);
	uri = xasprintf("%.*s&user=%s", (int)(strstr(dbpath, "&user=") - dbpath), dbpath, role);
	cr_assert_eq(history_db_open_readonly(&db, uri, &err), -1);
	free(sql);
	sql = xasprintf("DROP OWNED BY %s; DROP ROLE %s", role, role);
	run(sql);
	cr_expect_eq(err.kind, ERR_DATA);
	cr_expect(strstr(err.msg, "has schema 11, older than this tool's") &&
			  strstr(err.msg, "history prune") && !strchr(err.msg, '\n'),
		  "%s", err.msg);
	cr_assert_eq(history_db_open_readonly(&db, dbpath, &err), 0, "%s", err.msg);
	history_db_close(db);
}

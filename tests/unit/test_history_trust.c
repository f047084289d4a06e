/* The history database runs nobody's SQL but this tool's:
 * a planted trigger or view, a symlink at --db, a database or a
 * directory of another user are refused before anything is written. */
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/fsutil.h"
#include "common/xalloc.h"
#include "orchestrator/history/history_db.h"
#include "orchestrator/history/history_sql.h"
#include "tests/support/other_user.h"
#include "tests/support/scratch.h"

static char *root, *dbpath;

static void setup(void)
{
	root = scratch_dir("history-trust");
	dbpath = xasprintf("%s/data/history.sqlite", root);
}

static void teardown(void)
{
	scratch_remove(root);
	free(root);
	free(dbpath);
}

TestSuite(history_trust, .init = setup, .fini = teardown);

static void made_then(const char *sql)
{
	struct history_db *db;
	struct error err;
	sqlite3 *h;

	cr_assert_eq(history_db_open(&db, dbpath, &err), 0, "%s", err.msg);
	history_db_close(db);
	cr_assert_eq(sqlite3_open(dbpath, &h), SQLITE_OK);
	cr_assert_eq(sqlite3_exec(h, sql, NULL, NULL, NULL), SQLITE_OK, "%s", sqlite3_errmsg(h));
	sqlite3_close(h);
}

Test(history_trust, a_planted_trigger_is_refused_before_any_write)
{
	struct history_db *db;
	struct error err;

	made_then("CREATE TRIGGER steal AFTER INSERT ON results BEGIN"
		  " UPDATE results SET outcome = 'PASS'; END");
	cr_assert_eq(history_db_open(&db, dbpath, &err), -1);
	cr_assert_eq(err.kind, ERR_DATA, "found during a run: exit 5");
	cr_assert(strstr(err.msg, dbpath) && strstr(err.msg, "trigger steal") &&
		  strstr(err.msg, "move it aside"), "%s", err.msg);
	cr_assert_eq(history_db_open_readonly(&db, dbpath, &err), -1, "read-only too");
}

Test(history_trust, a_view_or_an_unknown_table_is_refused_and_statistics_are_not)
{
	struct history_db *db;
	struct error err;

	made_then("ANALYZE");
	cr_assert_eq(history_db_open(&db, dbpath, &err), 0, "sqlite_stat1 is fine: %s", err.msg);
	history_db_close(db);
	made_then("CREATE VIEW v AS SELECT * FROM sweeps");
	cr_assert_eq(history_db_open(&db, dbpath, &err), -1);
	cr_assert(strstr(err.msg, "view v"), "%s", err.msg);
}

Test(history_trust, a_symlink_at_db_is_refused_and_nothing_is_created_behind_it)
{
	struct history_db *db;
	struct error err;
	cleanup_free char *dir = xasprintf("%s/data", root), *elsewhere = xasprintf("%s/root-only", root);
	cleanup_free char *target = xasprintf("%s/made.sqlite", elsewhere);
	struct stat st;

	cr_assert_eq(mkdir(dir, 0700), 0);
	cr_assert_eq(mkdir(elsewhere, 0700), 0);
	cr_assert_eq(symlink(target, dbpath), 0);
	cr_assert_eq(history_db_open_readonly(&db, dbpath, &err), -1);
	cr_assert_eq(err.kind, ERR_USAGE, "a path from --db: exit 64");
	cr_assert(strstr(err.msg, "symlink"), "%s", err.msg);
	cr_assert_eq(history_db_open(&db, dbpath, &err), -1);
	cr_assert_neq(stat(target, &st), 0, "no database behind the link");
}

Test(history_trust, reading_a_missing_database_creates_nothing)
{
	struct history_db *db;
	struct error err;
	cleanup_free char *dir = xasprintf("%s/data", root);
	struct stat st;

	cr_assert_eq(history_db_open_readonly(&db, dbpath, &err), -1);
	cr_assert_eq(err.kind, ERR_NOT_FOUND, "%s", err.msg);
	cr_assert_neq(stat(dir, &st), 0, "not even its directory");
}

Test(history_trust, a_directory_or_a_database_of_another_user_is_refused)
{
	struct history_db *db;
	struct error err;
	cleanup_free char *theirs = xasprintf("%s/theirs", root);
	cleanup_free char *in_theirs = xasprintf("%s/history.sqlite", theirs);

	cr_assert_eq(chmod(root, 0777), 0);
	other_user_sh("mkdir -m 755 '%s'", theirs);
	cr_assert_eq(chmod(root, 0700), 0);
	cr_assert_eq(history_db_open(&db, in_theirs, &err), -1);
	cr_assert_eq(access(in_theirs, F_OK), -1, "nothing created there");
	cr_assert_eq(err.kind, ERR_USAGE);
	cr_assert(strstr(err.msg, theirs) && strstr(err.msg, "belongs to uid"), "%s", err.msg);
	cr_assert_eq(chmod(root, 0777), 0);
	other_user_sh("sqlite3 '%s/planted.sqlite' 'PRAGMA user_version = 2;"
		      " CREATE TABLE x(y)' && chmod 666 '%s/planted.sqlite'", root, root);
	cr_assert_eq(chmod(root, 0700), 0);
	{
		cleanup_free char *planted = xasprintf("%s/planted.sqlite", root);

		cr_assert_eq(history_db_open(&db, planted, &err), -1);
		cr_assert(strstr(err.msg, "planted.sqlite") && strstr(err.msg, "belongs to uid"),
			  "%s", err.msg);
	}
}

/* Older databases kept `-e` values in the options column: migrated away,
 * names kept. */
Test(history_trust, the_migration_drops_env_values_from_older_databases)
{
	struct history_db *db;
	struct error err;
	cleanup_free char *dir = xasprintf("%s/data", root);
	cleanup_free char *options = NULL;
	sqlite3 *h;
	sqlite3_stmt *st;

	cr_assert_eq(mkdir(dir, 0700), 0);
	cr_assert_eq(sqlite3_open(dbpath, &h), SQLITE_OK);
	cr_assert_eq(sqlite3_exec(h, history_migrations[0], NULL, NULL, NULL), SQLITE_OK);
	cr_assert_eq(sqlite3_exec(h, "PRAGMA user_version = 1;"
				  "INSERT INTO sweeps(id, label, started, state, options) VALUES"
				  " ('s', 'l', 1, 'finished',"
				  "  '{\"timeout_s\":5,\"env\":[\"HF_TOKEN=hf_secret\",\"A=1\"]}')",
				  NULL, NULL, NULL), SQLITE_OK, "%s", sqlite3_errmsg(h));
	sqlite3_close(h);
	cr_assert_eq(history_db_open(&db, dbpath, &err), 0, "%s", err.msg);
	history_db_close(db);
	cr_assert_eq(sqlite3_open(dbpath, &h), SQLITE_OK);
	cr_assert_eq(sqlite3_prepare_v2(h, "SELECT options FROM sweeps", -1, &st, NULL), SQLITE_OK);
	cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
	options = xstrdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	sqlite3_close(h);
	cr_assert_null(strstr(options, "hf_secret"), "%s", options);
	cr_assert(strstr(options, "\"env_names\":[\"HF_TOKEN\",\"A\"]") &&
		  strstr(options, "\"timeout_s\":5"), "%s", options);
}

/* A version 3 database gains the trend's covering index on open, and
 * keeps its results. */
Test(history_trust, a_version_3_database_migrates_to_the_trend_index)
{
	struct history_db *db;
	struct error err;
	cleanup_free char *dir = xasprintf("%s/data", root);
	sqlite3 *h;
	sqlite3_stmt *st;

	cr_assert_eq(mkdir(dir, 0700), 0);
	cr_assert_eq(sqlite3_open(dbpath, &h), SQLITE_OK);
	for (int v = 0; v < 3; v++)
		cr_assert_eq(sqlite3_exec(h, history_migrations[v], NULL, NULL, NULL), SQLITE_OK,
			     "%s", sqlite3_errmsg(h));
	cr_assert_eq(sqlite3_exec(h, "PRAGMA user_version = 3;"
				  "INSERT INTO sweeps(id, label, started, state) VALUES"
				  " ('s', 'l', 1, 'finished');"
				  "INSERT INTO results(sweep, case_name, image_ref, attempt, state,"
				  " outcome) VALUES ('s', 'c', 'i', 1, 'done', 'PASS')",
				  NULL, NULL, NULL), SQLITE_OK, "%s", sqlite3_errmsg(h));
	sqlite3_close(h);
	cr_assert_eq(history_db_open_readonly(&db, dbpath, &err), 0, "%s", err.msg);
	history_db_close(db);
	cr_assert_eq(history_db_open(&db, dbpath, &err), 0, "%s", err.msg);
	history_db_close(db);
	cr_assert_eq(sqlite3_open(dbpath, &h), SQLITE_OK);
	cr_assert_eq(sqlite3_prepare_v2(h, "SELECT (SELECT user_version FROM pragma_user_version),"
					" (SELECT COUNT(*) FROM sqlite_schema WHERE type = 'index'"
					"  AND name = 'results_trend'), (SELECT COUNT(*) FROM results)",
					-1, &st, NULL), SQLITE_OK, "%s", sqlite3_errmsg(h));
	cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
	cr_assert_eq(sqlite3_column_int(st, 0), HISTORY_SCHEMA_VERSION);
	cr_assert_eq(sqlite3_column_int(st, 1), 1);
	cr_assert_eq(sqlite3_column_int(st, 2), 1);
	sqlite3_finalize(st);
	sqlite3_close(h);
}

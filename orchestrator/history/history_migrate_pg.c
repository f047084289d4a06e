/* The schema on PostgreSQL: the same steps as SQLite's (history_db.c's
 * history_migrations), each in PostgreSQL's words, and the version in a
 * table of its own, migrated under an advisory lock so two hosts opening
 * a new server at once migrate it once.
 *
 * Types: TEXT COLLATE "C" (text sorts bytewise, as SQLite's BINARY),
 * BIGINT for SQLite's INTEGER (64 bits there), DOUBLE PRECISION for REAL.
 * A step that converts rows only SQLite histories ever held (1 -> 2) is a
 * no-op here: no PostgreSQL history predates schema 8. */
#include "orchestrator/history/history_pg.h"

#include <stdio.h>
#include <stdlib.h>

#include "common/cleanup.h"
#include "orchestrator/history/history_perf_stats.h"
#include "orchestrator/history/history_schema.h"
#include "orchestrator/history/history_sql.h"

#define T " TEXT COLLATE \"C\""
#define I " BIGINT"
#define R " DOUBLE PRECISION"
#define ADD(c, type) "ALTER TABLE results ADD COLUMN " c type ";"

/* history_migrations_pg[v] takes schema v to v + 1, as history_migrations[v]
 * does on SQLite; a step missing here (NULL) refuses to migrate. */
const char *const history_migrations_pg[HISTORY_SCHEMA_VERSION] = {
	/* 0 -> 1 */
	"CREATE TABLE sweeps(id" T " PRIMARY KEY, label" T " NOT NULL, host" T ","
	" started" I " NOT NULL, finished" I ", state" T " NOT NULL, options" T ","
	" tool_version" T ", folder" T ", baseline" T ", results_fp" T ");"
	"CREATE INDEX sweeps_label ON sweeps(label, started);"
	"CREATE TABLE planned(sweep" T " NOT NULL REFERENCES sweeps(id) ON DELETE CASCADE,"
	" idx" I " NOT NULL, case_name" T " NOT NULL, image_ref" T " NOT NULL,"
	" PRIMARY KEY(sweep, case_name, image_ref));"
	"CREATE TABLE results(sweep" T " NOT NULL REFERENCES sweeps(id) ON DELETE CASCADE,"
	" case_name" T " NOT NULL, image_ref" T " NOT NULL, attempt" I " NOT NULL,"
	" image_id" T ", archive" T ", digest" T ", gpus" T ", state" T " NOT NULL,"
	" outcome" T ", fault_class" T ", kernel" T ", d2h_checked" I ","
	" d2h_mismatched" I ", duration" R ", run_dir" T ", classifier_version" I ","
	" message" T ", finished" I ", PRIMARY KEY(sweep, case_name, image_ref, attempt));"
	"CREATE INDEX results_case ON results(case_name, image_ref);",
	/* 1 -> 2: nothing to convert (see above) */
	"SELECT 1;",
	/* 2 -> 3 */
	ADD("run_options_fp", T) ADD("gpu_uids", T) ADD("host", T) ADD("kind", T)
	"CREATE INDEX results_reuse ON results(digest, image_id, run_options_fp);"
	"CREATE TABLE bisects(id" T " PRIMARY KEY, good" T " NOT NULL, bad" T " NOT NULL,"
	" last_good" T ", first_bad" T ", verdict" T " NOT NULL, answer" T ", folder" T ","
	" run_options_fp" T ", finished" I ");",
	/* 3 -> 4 */
	"CREATE INDEX results_trend ON results(sweep, case_name, image_ref, attempt DESC,"
	" state, outcome, fault_class, kernel);",
	/* 4 -> 5 (the partial signatures' backfill is SQLite's alone) */
	ADD("sig_id", T) ADD("sig_family", T) ADD("sig_evidence", T) ADD("sig_stop_reason", T)
	ADD("sig_partial", I) ADD("known_id", T) ADD("known_link", T) ADD("known_owner", T)
	"CREATE INDEX results_signature ON results(sig_id);",
	/* 5 -> 6 */
	ADD("gfx", T) ADD("device_id", I) ADD("driver", T) ADD("perf_warmup", I)
	ADD("perf_note", T)
	"CREATE TABLE perf_samples(sweep" T " NOT NULL REFERENCES sweeps(id) ON DELETE CASCADE,"
	" case_name" T " NOT NULL, image_ref" T " NOT NULL, attempt" I " NOT NULL,"
	" idx" I " NOT NULL, kernel_ms" R ", graph_ms" R ", total_ms" R ", wall_ms" R ","
	" PRIMARY KEY(sweep, case_name, image_ref, attempt, idx));",
	/* 6 -> 7 */
	"ALTER TABLE sweeps ADD COLUMN started_us" I ";"
	"UPDATE sweeps SET started_us = started * 1000000;"
	"DROP INDEX sweeps_label;"
	"CREATE INDEX sweeps_label ON sweeps(label, started_us);",
	/* 7 -> 8 */
	ADD("line_host", T) ADD("finding_md", T) "UPDATE sweeps SET results_fp = NULL;",
	/* 8 -> 9: the GPU-time series' nightly medians, change points and
	 * accepted changes. SQLite's step also computes the medians of the
	 * sweeps stored before; no PostgreSQL history holds samples from
	 * before this step, so there is nothing to compute here. */
	"CREATE TABLE perf_medians(label" T " NOT NULL, case_name" T " NOT NULL,"
	" image_ref" T " NOT NULL, gfx" T " NOT NULL, device_id" I " NOT NULL,"
	" started_us" I " NOT NULL,"
	" sweep" T " NOT NULL REFERENCES sweeps(id) ON DELETE CASCADE, median_ms" R " NOT NULL,"
	" PRIMARY KEY(label, case_name, image_ref, gfx, device_id, started_us, sweep));"
	"CREATE INDEX perf_medians_sweep ON perf_medians(sweep);"
	"CREATE TABLE perf_changes(label" T " NOT NULL, case_name" T " NOT NULL,"
	" image_ref" T " NOT NULL, gfx" T " NOT NULL, device_id" I " NOT NULL,"
	" started_us" I " NOT NULL,"
	" sweep" T " NOT NULL REFERENCES sweeps(id) ON DELETE CASCADE, before_sweep" T ","
	" image_id_before" T ", image_id_after" T ", median_before" R ", median_after" R ","
	" ratio" R " NOT NULL, p" R " NOT NULL, found_sweep" T " NOT NULL,"
	" PRIMARY KEY(label, case_name, image_ref, gfx, device_id, started_us, sweep));"
	"CREATE INDEX perf_changes_found ON perf_changes(found_sweep);"
	"CREATE TABLE perf_accepted(label" T " NOT NULL, case_name" T " NOT NULL,"
	" started_us" I " NOT NULL,"
	" sweep" T " NOT NULL REFERENCES sweeps(id) ON DELETE CASCADE,"
	" accepted" I " NOT NULL, PRIMARY KEY(label, case_name, started_us, sweep));",
	/* 9 -> 10 */
	ADD("image_pin", T),
	/* 10 -> 11: `history --label` reads a sweep's results from the index
	 * results_trend alone only once the sweep's rows are marked visible to
	 * all by a vacuum; until then it also reads each row in the table (about
	 * a third of its time at 10,000 cases). Autovacuum's default waits for
	 * a fifth of the table in new rows, a dozen nights of a library, the
	 * very nights `history` reads: here every 1,000 new rows start one,
	 * so each night's import does (within autovacuum's nap). */
	"ALTER TABLE results SET (autovacuum_vacuum_insert_scale_factor = 0,"
	" autovacuum_vacuum_insert_threshold = 1000);",
	/* 11 -> 12: each attempt's kernel times summarized; the stored
	 * samples' summaries are computed after it, as on SQLite. */
	"CREATE TABLE perf_sample_stats(sweep" T " NOT NULL REFERENCES sweeps(id)"
	" ON DELETE CASCADE, case_name" T " NOT NULL, image_ref" T " NOT NULL,"
	" attempt" I " NOT NULL, n" I " NOT NULL, zeros" I " NOT NULL,"
	" median_ms" R " NOT NULL, lo_ms" R " NOT NULL, hi_ms" R " NOT NULL,"
	" measured_median_ms" R ", measured_cv" R " NOT NULL,"
	" PRIMARY KEY(sweep, case_name, image_ref, attempt));",
};

/* The schema's version (-1: no history here yet). */
static int read_version(struct history_db *db, int *v, struct error *err)
{
	cleanup_stmt struct history_stmt *st = NULL;
	int rc;

	*v = -1;
	if (history_sql_prepare(db, "SELECT to_regclass('hrr_schema') IS NOT NULL", &st, err) < 0)
		return -1;
	if ((rc = history_step(st)) != HISTORY_ROW)
		return history_sql_error(db, rc, "reading the schema version", err);
	if (!history_col_int(st, 0))
		return 0;
	history_finalize(st);
	st = NULL;
	if (history_sql_prepare(db, "SELECT MAX(version) FROM hrr_schema", &st, err) < 0)
		return -1;
	if ((rc = history_step(st)) != HISTORY_ROW)
		return history_sql_error(db, rc, "reading the schema version", err);
	*v = history_col_null(st, 0) ? 0 : history_col_int(st, 0);
	return 0;
}

static int run_steps(struct history_db *db, int v, struct error *err)
{
	for (; v < HISTORY_SCHEMA_VERSION; v++) {
		char bump[64];

		if (!history_migrations_pg[v])
			return error_set(err, ERR_SYSTEM, 0,
					 "history database %s: schema step %d has no PostgreSQL form",
					 db->path, v + 1);
		snprintf(bump, sizeof(bump), "UPDATE hrr_schema SET version = %d", v + 1);
		if (history_pg_exec(db, history_migrations_pg[v], err) < 0 ||
		    (v + 1 == 12 && history_perf_stats_backfill(db, err) < 0) ||
		    history_pg_exec(db, bump, err) < 0)
			return -1;
	}
	return 0;
}

/* The lock's key: any constant the tool alone uses ("hrr-hist"). */
#define MIGRATE_LOCK "SELECT pg_advisory_xact_lock(7526561716139115636)"

/* Created or migrated to this tool's schema, in one transaction. */
static int migrate(struct history_db *db, struct error *err)
{
	int v;

	if (history_pg_exec(db, "BEGIN", err) < 0)
		return -1;
	if (history_pg_exec(db, MIGRATE_LOCK, err) < 0 || read_version(db, &v, err) < 0)
		goto fail;
	if (v < 0 && history_pg_exec(db, "CREATE TABLE hrr_schema(version INTEGER NOT NULL);"
					  "INSERT INTO hrr_schema VALUES(0)", err) < 0)
		goto fail;
	if (history_sql_refuse_newer(db, v < 0 ? 0 : v, err) < 0 || run_steps(db, v < 0 ? 0 : v, err) < 0)
		goto fail;
	return history_pg_exec(db, "COMMIT", err);
fail:
	history_sql_rollback(db);
	return -1;
}

int history_pg_migrate(struct history_db *db, bool read_only, struct error *err)
{
	int v;

	if (!read_only)
		return migrate(db, err);
	if (read_version(db, &v, err) < 0)
		return -1;
	if (v < 0)
		return error_set(err, ERR_NOT_FOUND, 0, "history database %s has no history",
				 db->path);
	if (history_sql_refuse_newer(db, v, err) < 0)
		return -1;
	/* An older schema is brought up to date first, as a writer would: a
	 * reader would miss what the newer steps add. */
	if (v < HISTORY_SCHEMA_VERSION && migrate(db, err) < 0)
		return history_sql_upgrade_refused(db, v, err);
	return 0;
}

#include "orchestrator/history/history_db.h"

#include <errno.h>
#include <libgen.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>
#include <sqlite3.h>

#include "common/cleanup.h"
#include "common/fsutil.h"
#include "common/xalloc.h"
#include "orchestrator/history/db_trust.h"
#include "orchestrator/finding/signature.h"
#include "orchestrator/history/history_perf_stats.h"
#include "orchestrator/history/history_pg.h"
#include "orchestrator/history/history_sql.h"

/* The schema, one step a version: history_migrations[v] takes schema v to
 * v + 1; opening runs the steps a database lacks. */
const char *const history_migrations[] = {
	/* 0 -> 1 */
	"CREATE TABLE sweeps(id TEXT PRIMARY KEY, label TEXT NOT NULL, host TEXT,"
	" started INTEGER NOT NULL, finished INTEGER, state TEXT NOT NULL, options TEXT,"
	" tool_version TEXT, folder TEXT, baseline TEXT, results_fp TEXT);"
	"CREATE INDEX sweeps_label ON sweeps(label, started);"
	"CREATE TABLE planned(sweep TEXT NOT NULL REFERENCES sweeps(id) ON DELETE CASCADE,"
	" idx INTEGER NOT NULL, case_name TEXT NOT NULL, image_ref TEXT NOT NULL,"
	" PRIMARY KEY(sweep, case_name, image_ref));"
	"CREATE TABLE results(sweep TEXT NOT NULL REFERENCES sweeps(id) ON DELETE CASCADE,"
	" case_name TEXT NOT NULL, image_ref TEXT NOT NULL, attempt INTEGER NOT NULL,"
	" image_id TEXT, archive TEXT, digest TEXT, gpus TEXT, state TEXT NOT NULL,"
	" outcome TEXT, fault_class TEXT, kernel TEXT, d2h_checked INTEGER,"
	" d2h_mismatched INTEGER, duration REAL, run_dir TEXT, classifier_version INTEGER,"
	" message TEXT, finished INTEGER, PRIMARY KEY(sweep, case_name, image_ref, attempt));"
	"CREATE INDEX results_case ON results(case_name, image_ref);",
	/* 1 -> 2: older databases kept the `-e` values in the options; the
	 * names stay (as "env_names", what sweep_runopts_redact writes). */
	"UPDATE sweeps SET options = json_remove(json_set(options, '$.env_names',"
	" json((SELECT json_group_array(CASE WHEN instr(value, '=') > 0"
	"  THEN substr(value, 1, instr(value, '=') - 1) ELSE value END)"
	"  FROM json_each(sweeps.options, '$.env')))), '$.env')"
	" WHERE json_valid(options) AND json_type(options, '$.env') = 'array';",
	/* 2 -> 3: additive. What a result is reused by (the run options'
	 * fingerprint), where it ran (GPU identities, ordinals, host) and what
	 * kind it is (workload or infrastructure); the bisections' answers. */
	"ALTER TABLE results ADD COLUMN run_options_fp TEXT;"
	"ALTER TABLE results ADD COLUMN gpu_uids TEXT;"
	"ALTER TABLE results ADD COLUMN host TEXT;"
	"ALTER TABLE results ADD COLUMN kind TEXT;"
	"CREATE INDEX results_reuse ON results(digest, image_id, run_options_fp);"
	"CREATE TABLE bisects(id TEXT PRIMARY KEY, good TEXT NOT NULL, bad TEXT NOT NULL,"
	" last_good TEXT, first_bad TEXT, verdict TEXT NOT NULL, answer TEXT, folder TEXT,"
	" run_options_fp TEXT, finished INTEGER);",
	/* 3 -> 4: additive. `history`'s trend reads a sweep's attempts from
	 * this index alone, in its order, each case's final attempt first: no
	 * lookup of each row in the table (whose rows are in import order, not
	 * in case order), no sort. */
	"CREATE INDEX results_trend ON results(sweep, case_name, image_ref, attempt DESC,"
	" state, outcome, fault_class, kernel);",
	/* 4 -> 5: additive. Each failure's signature (docs/findings.md
	 * "Signature") and the known issue a rule matched. Rows stored before
	 * get a partial one from what they hold (outcome, class, kernel): the
	 * migration marks them, history_db.c computes their parts. */
	"ALTER TABLE results ADD COLUMN sig_id TEXT;"
	"ALTER TABLE results ADD COLUMN sig_family TEXT;"
	"ALTER TABLE results ADD COLUMN sig_evidence TEXT;"
	"ALTER TABLE results ADD COLUMN sig_stop_reason TEXT;"
	"ALTER TABLE results ADD COLUMN sig_partial INTEGER;"
	"ALTER TABLE results ADD COLUMN known_id TEXT;"
	"ALTER TABLE results ADD COLUMN known_link TEXT;"
	"ALTER TABLE results ADD COLUMN known_owner TEXT;"
	"CREATE INDEX results_signature ON results(sig_id);"
	"UPDATE results SET sig_partial = 1 WHERE state = 'done' AND outcome IS NOT NULL"
	" AND outcome != 'PASS';",
	/* 5 -> 6: additive. The GPU product a result ran on (gfx target, KFD
	 * device_id), the host's driver version, and --perf's samples in a
	 * table of their own keyed to their result (a result row stays one
	 * attempt). WITHOUT ROWID: the key is the table, so a sample does not
	 * store its names twice; its (sweep, case) prefix finds a case's
	 * samples (docs/perf.md "In the history"). */
	"ALTER TABLE results ADD COLUMN gfx TEXT;"
	"ALTER TABLE results ADD COLUMN device_id INTEGER;"
	"ALTER TABLE results ADD COLUMN driver TEXT;"
	"ALTER TABLE results ADD COLUMN perf_warmup INTEGER;"
	"ALTER TABLE results ADD COLUMN perf_note TEXT;"
	"CREATE TABLE perf_samples(sweep TEXT NOT NULL REFERENCES sweeps(id) ON DELETE CASCADE,"
	" case_name TEXT NOT NULL, image_ref TEXT NOT NULL, attempt INTEGER NOT NULL,"
	" idx INTEGER NOT NULL, kernel_ms REAL, graph_ms REAL, total_ms REAL, wall_ms REAL,"
	" PRIMARY KEY(sweep, case_name, image_ref, attempt, idx)) WITHOUT ROWID;",
	/* 6 -> 7: a sweep's start in microseconds, the order of a label's
	 * sweeps (HISTORY_SWEEP_ORDER). Two sweeps of a label can start within
	 * one second (a night whose every result is reused takes less), and
	 * then "the previous sweep" was decided by the random part of their
	 * ids. Older rows know only their second. */
	"ALTER TABLE sweeps ADD COLUMN started_us INTEGER;"
	"UPDATE sweeps SET started_us = started * 1000000;"
	"DROP INDEX sweeps_label;"
	"CREATE INDEX sweeps_label ON sweeps(label, started_us);",
	/* 7 -> 8: additive. What a sweep's report reads of each attempt that
	 * the other columns do not say: the host its results line named
	 * (NULL: it named none, and `host` holds the sweep's) and finding.md's
	 * text the line carried (NULL: none; the report reads the run
	 * folder's). Every sweep's results fingerprint is forgotten, so its
	 * next import rebuilds its rows from its results files and fills the
	 * new columns. */
	"ALTER TABLE results ADD COLUMN line_host TEXT;"
	"ALTER TABLE results ADD COLUMN finding_md TEXT;"
	"UPDATE sweeps SET results_fp = NULL;",
	/* 8 -> 9: additive. Each case's series of nightly GPU-time medians
	 * and its change points, per label, case, image reference and GPU
	 * product (gfx '' and device_id -1 unknown), written at import
	 * (history_changes.c): a night's median of its last attempt with
	 * samples (perf_medians, keyed so that a series is one range of its
	 * primary key: an import reads medians, not every night's samples);
	 * the night that starts a new level, its started_us (the series'
	 * order), the image IDs on either side, the size and significance,
	 * and the sweep whose import first found it (tonight's new ones). The
	 * changes a user accepted (`history perf --accept`): the case's series
	 * restarts there. The medians of the sweeps stored before are
	 * computed here from their samples (times of 0 ms left out, a night
	 * with half or more of them left out); their change points are found
	 * at the next import. */
	"CREATE TABLE perf_medians(label TEXT NOT NULL, case_name TEXT NOT NULL,"
	" image_ref TEXT NOT NULL, gfx TEXT NOT NULL, device_id INTEGER NOT NULL,"
	" started_us INTEGER NOT NULL,"
	" sweep TEXT NOT NULL REFERENCES sweeps(id) ON DELETE CASCADE, median_ms REAL NOT NULL,"
	" PRIMARY KEY(label, case_name, image_ref, gfx, device_id, started_us, sweep))"
	" WITHOUT ROWID;"
	"CREATE INDEX perf_medians_sweep ON perf_medians(sweep);"
	"INSERT INTO perf_medians SELECT s.label, x.case_name, x.image_ref,"
	" COALESCE(r.gfx, ''), COALESCE(r.device_id, -1), s.started_us, x.sweep,"
	" AVG(x.kernel_ms)"
	" FROM (SELECT p.sweep, p.case_name, p.image_ref, p.attempt, p.kernel_ms,"
	"  ROW_NUMBER() OVER w AS k, COUNT(*) OVER g AS n_all,"
	"  SUM(p.kernel_ms > 0) OVER g AS n_pos"
	"  FROM perf_samples p WHERE p.kernel_ms IS NOT NULL AND p.attempt ="
	"   (SELECT MAX(attempt) FROM perf_samples q WHERE q.sweep = p.sweep"
	"    AND q.case_name = p.case_name AND q.image_ref = p.image_ref)"
	"  WINDOW g AS (PARTITION BY p.sweep, p.case_name, p.image_ref),"
	"   w AS (g ORDER BY p.kernel_ms)) x"
	" JOIN sweeps s ON s.id = x.sweep"
	" JOIN results r ON r.sweep = x.sweep AND r.case_name = x.case_name"
	"  AND r.image_ref = x.image_ref AND r.attempt = x.attempt"
	" WHERE x.kernel_ms > 0 AND 2 * (x.n_all - x.n_pos) < x.n_all"
	"  AND x.k - (x.n_all - x.n_pos) IN ((x.n_pos + 1) / 2, (x.n_pos + 2) / 2)"
	" GROUP BY x.sweep, x.case_name, x.image_ref;"
	"CREATE TABLE perf_changes(label TEXT NOT NULL, case_name TEXT NOT NULL,"
	" image_ref TEXT NOT NULL, gfx TEXT NOT NULL, device_id INTEGER NOT NULL,"
	" started_us INTEGER NOT NULL,"
	" sweep TEXT NOT NULL REFERENCES sweeps(id) ON DELETE CASCADE, before_sweep TEXT,"
	" image_id_before TEXT, image_id_after TEXT, median_before REAL, median_after REAL,"
	" ratio REAL NOT NULL, p REAL NOT NULL, found_sweep TEXT NOT NULL,"
	" PRIMARY KEY(label, case_name, image_ref, gfx, device_id, started_us, sweep))"
	" WITHOUT ROWID;"
	"CREATE INDEX perf_changes_found ON perf_changes(found_sweep);"
	"CREATE TABLE perf_accepted(label TEXT NOT NULL, case_name TEXT NOT NULL,"
	" started_us INTEGER NOT NULL,"
	" sweep TEXT NOT NULL REFERENCES sweeps(id) ON DELETE CASCADE,"
	" accepted INTEGER NOT NULL, PRIMARY KEY(label, case_name, started_us, sweep))"
	" WITHOUT ROWID;",
	/* 9 -> 10: additive. What the sweep pinned the result's image to as
	 * it started (repo@sha256:... or the image ID; NULL: a result from
	 * before pins were kept). */
	"ALTER TABLE results ADD COLUMN image_pin TEXT;",
	/* 10 -> 11: PostgreSQL's alone (its vacuum after each import). */
	"SELECT 1;",
	/* 11 -> 12: additive. Each attempt's kernel times summarized
	 * (perf_summarize: how many, the zeros, the median and its interval,
	 * the measured ones' median and CV), written with its samples at
	 * import: the history site reads a night's row, not its every sample
	 * (docs/perf.md "In the history"). The stored samples' summaries are
	 * computed after this step (history_perf_stats_backfill). */
	"CREATE TABLE perf_sample_stats(sweep TEXT NOT NULL REFERENCES sweeps(id)"
	" ON DELETE CASCADE, case_name TEXT NOT NULL, image_ref TEXT NOT NULL,"
	" attempt INTEGER NOT NULL, n INTEGER NOT NULL, zeros INTEGER NOT NULL,"
	" median_ms REAL NOT NULL, lo_ms REAL NOT NULL, hi_ms REAL NOT NULL,"
	" measured_median_ms REAL, measured_cv REAL NOT NULL,"
	" PRIMARY KEY(sweep, case_name, image_ref, attempt)) WITHOUT ROWID;",
};

char *history_db_default_path(void)
{
	const char *xdg = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
	const struct passwd *pw;

	/* XDG says a relative XDG_DATA_HOME is invalid and must be ignored. */
	if (xdg && xdg[0] == '/')
		return xasprintf("%s/hrr-docker-replay/history.sqlite", xdg);
	if (!home || !*home)
		home = (pw = getpwuid(getuid())) && pw->pw_dir ? pw->pw_dir : "/";
	return xasprintf("%s/.local/share/hrr-docker-replay/history.sqlite", home);
}

bool history_fs_is_network(unsigned long magic)
{
	static const unsigned long network[] = {
		0x6969,     /* NFS */
		0x517b,     /* SMB */
		0xfe534d42, /* SMB2 */
		0xff534d42, /* CIFS */
		0x0bd00bd0, /* Lustre */
		0x47504653, /* GPFS */
		0x19830326, /* BeeGFS */
		0x00c36400, /* CephFS */
		0x5346414f, /* AFS */
		0x6b414653, /* kAFS */
		0x01021997, /* 9p */
		0x7461636f, /* OCFS2 */
		0x01161970, /* GFS2 */
		0x65735546, /* FUSE (sshfs, gluster, ...): assume remote */
		0xbacbacbc, /* VMware HGFS */
		0x564c,     /* NCP */
		0x73757245, /* Coda */
	};

	for (size_t i = 0; i < sizeof(network) / sizeof(network[0]); i++)
		if (magic == network[i])
			return true;
	return false;
}

void history_day(char *buf, size_t n, long long t)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (!gmtime_r(&tt, &tm) || !strftime(buf, n, "%Y-%m-%d", &tm))
		snprintf(buf, n, "-");
}

static int user_version(struct history_db *db, int *v, struct error *err)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(db->h, "PRAGMA user_version", -1, &st, NULL);

	if (rc != SQLITE_OK)
		return history_sql_error(db, rc, "reading the schema version", err);
	rc = sqlite3_step(st);
	*v = rc == SQLITE_ROW ? sqlite3_column_int(st, 0) : -1;
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : history_sql_error(db, rc, "reading the schema version", err);
}

/* A newer schema is refused; an older or equal one must be exactly what
 * the migrations made (no planted trigger or view) before anything runs. */
static int check_version(struct history_db *db, int v, struct error *err)
{
	if (history_sql_refuse_newer(db, v, err) < 0)
		return -1;
	return history_trust_schema(db->h, history_migrations, v, db->path, err);
}

/* Schema 5's partial signatures: the rows the migration marked get the
 * parts they hold (outcome, class, kernel family) and their id. */
static int backfill_signatures(struct history_db *db, struct error *err)
{
	cleanup_stmt struct history_stmt *get = NULL, *put = NULL;
	int rc;

	if (history_sql_prepare(db, "SELECT rowid, outcome, fault_class, kernel FROM results"
				" WHERE sig_partial = 1 AND sig_id IS NULL", &get, err) < 0 ||
	    history_sql_prepare(db, "UPDATE results SET sig_id = ?2, sig_family = ?3"
				" WHERE rowid = ?1", &put, err) < 0)
		return -1;
	while ((rc = history_step(get)) == HISTORY_ROW) {
		struct signature sig;

		signature_init(&sig);
		signature_make(&sig, col(get, 1), col(get, 2), col(get, 3), NULL, NULL, true);
		history_reset(put);
		history_bind_int64(put, 1, history_col_int64(get, 0));
		bind_text(put, 2, signature_set(&sig) ? sig.id : NULL);
		bind_text(put, 3, sig.kernel_family);
		rc = history_step(put);
		signature_release(&sig);
		if (rc != HISTORY_DONE)
			return history_sql_error(db, rc, "partial signatures", err);
	}
	return rc == HISTORY_DONE ? 0 : history_sql_error(db, rc, "partial signatures", err);
}

/* Every migration runs in the same transaction as the version bump, so a
 * crash leaves the old schema or the new one, never half. */
static int migrate(struct history_db *db, struct error *err)
{
	int v;

	if (history_sql_exec(db, "BEGIN IMMEDIATE", err) < 0)
		return -1;
	if (user_version(db, &v, err) < 0 || check_version(db, v, err) < 0)
		goto fail;
	for (; v < HISTORY_SCHEMA_VERSION; v++) {
		char bump[64];

		if (history_sql_exec(db, history_migrations[v], err) < 0)
			goto fail;
		if (v + 1 == 5 && backfill_signatures(db, err) < 0)
			goto fail;
		if (v + 1 == 12 && history_perf_stats_backfill(db, err) < 0)
			goto fail;
		snprintf(bump, sizeof(bump), "PRAGMA user_version = %d", v + 1);
		if (history_sql_exec(db, bump, err) < 0)
			goto fail;
	}
	return history_sql_exec(db, "COMMIT", err);
fail:
	history_sql_rollback(db);
	return -1;
}

static int set_journal(struct history_db *db, struct error *err)
{
	/* WAL keeps readers (history, reports) off the writer's back, but its
	 * shared-memory index only works when every user is on this host. */
	return history_sql_exec(db, db->network ? "PRAGMA journal_mode = DELETE"
						: "PRAGMA journal_mode = WAL",
				err);
}

static int open_handle(struct history_db *db, bool read_only, struct error *err)
{
	/* A handle is used by one thread only (the tool's parallelism is
	 * processes): no mutex around every sqlite3_column_*() of a 100,000-row
	 * trend. */
	int flags = SQLITE_OPEN_NOFOLLOW | SQLITE_OPEN_NOMUTEX |
		    (read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
	int rc = sqlite3_open_v2(db->path, &db->h, flags, NULL);

	if (rc != SQLITE_OK)
		return history_sql_error(db, rc, "open", err);
	if (history_trust_harden(db->h) < 0)
		return history_sql_error(db, SQLITE_ERROR, "defensive settings", err);
	history_db_set_busy_timeout(db, HISTORY_BUSY_TIMEOUT_MS);
	return history_sql_exec(db, "PRAGMA foreign_keys = ON", err);
}

/* A server's history: connected, then created or migrated (or for
 * reading, its version checked). */
static int server_open(struct history_db *db, const char *target, bool read_only,
		       struct error *err)
{
	db->dialect = HISTORY_PG;
	db->path = history_db_shown(target);
	return history_pg_connect(db, target, err) < 0 ? -1
							: history_pg_migrate(db, read_only, err);
}

/* A reader of an older schema would miss what the newer steps add (the
 * site reads schema 12's summaries): the file (its path trusted already)
 * is brought up to date first, as any writer would, when its user may
 * write it, then read through a read-only handle again. */
static int upgrade_for_reading(struct history_db *db, int v, struct error *err)
{
	sqlite3_close_v2(db->h);
	db->h = NULL;
	if (open_handle(db, false, err) < 0 || set_journal(db, err) < 0 || migrate(db, err) < 0)
		return history_sql_upgrade_refused(db, v, err);
	sqlite3_close_v2(db->h);
	db->h = NULL;
	return open_handle(db, true, err);
}

static int db_open(struct history_db **out, const char *path, bool read_only, struct error *err)
{
	struct history_db *db = xcalloc(1, sizeof(*db));
	cleanup_free char *dir_copy = xstrdup(path);
	struct statfs sfs;
	int v;

	*out = NULL;
	if (history_db_is_server(path)) {
		if (server_open(db, path, read_only, err) < 0)
			goto fail;
		*out = db;
		return 0;
	}
	db->path = xstrdup(path);
	if (history_trust_path(path, !read_only, err) < 0)
		goto fail;
	db->network = statfs(dirname(dir_copy), &sfs) == 0 &&
		      history_fs_is_network((unsigned long)sfs.f_type);
	if (open_handle(db, read_only, err) < 0)
		goto fail;
	if (read_only ? user_version(db, &v, err) < 0 || check_version(db, v, err) < 0 ||
				(v < HISTORY_SCHEMA_VERSION && upgrade_for_reading(db, v, err) < 0)
		      : set_journal(db, err) < 0 || migrate(db, err) < 0)
		goto fail;
	*out = db;
	return 0;
fail:
	history_db_close(db);
	return -1;
}

int history_db_open(struct history_db **out, const char *path, struct error *err)
{
	return db_open(out, path, false, err);
}

int history_db_open_readonly(struct history_db **out, const char *path, struct error *err)
{
	return db_open(out, path, true, err);
}

void history_db_close(struct history_db *db)
{
	if (!db)
		return;
	if (db->pg)
		history_pg_close(db);
	sqlite3_close(db->h);
	free(db->pg_msg);
	free(db->path);
	free(db);
}

void history_db_set_busy_timeout(struct history_db *db, int ms)
{
	db->busy_ms = ms;
	if (db->h)
		sqlite3_busy_timeout(db->h, ms);
}

int history_db_set_cache_kib(struct history_db *db, int kib, struct error *err)
{
	char sql[64];

	if (db->dialect == HISTORY_PG)
		return 0; /* the server's memory is the server's */
	snprintf(sql, sizeof(sql), "PRAGMA cache_size = -%d", kib);
	return history_sql_exec(db, sql, err);
}

const char *history_db_journal(const struct history_db *db)
{
	return db->dialect == HISTORY_PG ? "server" : db->network ? "delete" : "wal";
}

const char *history_db_name(const struct history_db *db)
{
	return db->path;
}

const char *history_db_warning(const struct history_db *db)
{
	return db->dialect == HISTORY_PG ? history_pg_warning(db) : NULL;
}

bool history_db_on_server(const struct history_db *db)
{
	return db->dialect == HISTORY_PG;
}

int history_db_reconnect(struct history_db *db, struct error *err)
{
	return db->dialect == HISTORY_PG ? history_pg_reconnect(db, err) : 0;
}

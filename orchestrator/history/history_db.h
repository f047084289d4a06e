/* The history database (docs/sweep.md "The history database"): SQLite, one
 * file, one writer at a time. It indexes what the results files say, so it
 * can always be rebuilt from them; statuses against a baseline are
 * computed in SQL.
 *
 * Journal: WAL on a local filesystem; the rollback journal on a network
 * filesystem (NFS, SMB/CIFS, Lustre, GPFS, BeeGFS, CephFS, ...), where
 * WAL's shared memory does not work across hosts. The schema version is
 * PRAGMA user_version, migrated forward on open; a newer one is refused.
 *
 * Or a PostgreSQL server (docs/sweep.md "History on PostgreSQL"): the same
 * schema, built by the same steps (history_migrate_pg.c), its version in
 * the table hrr_schema, migrated under an advisory lock; many hosts write
 * it at once. Every function below works on either.
 *
 * A new migration step: append its SQLite SQL to history_migrations[]
 * (history_db.c) and its PostgreSQL SQL at the same index of
 * history_migrations_pg[] (history_migrate_pg.c: TEXT COLLATE "C",
 * BIGINT, DOUBLE PRECISION, no WITHOUT ROWID), and raise
 * HISTORY_SCHEMA_VERSION; a step without its PostgreSQL form refuses to
 * migrate a server. */
#ifndef HRR_HISTORY_HISTORY_DB_H
#define HRR_HISTORY_HISTORY_DB_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"
#include "common/strvec.h"
#include "orchestrator/history/history_schema.h"
#include "orchestrator/sweep/case_result.h"
#include "orchestrator/sweep/sweep_status.h"

#define HISTORY_BUSY_TIMEOUT_MS 10000

struct history_db;

/* $XDG_DATA_HOME/hrr-docker-replay/history.sqlite, else
 * ~/.local/share/hrr-docker-replay/history.sqlite. Never under $TMPDIR. */
char *history_db_default_path(void);
/* statfs(2) magic of a filesystem that needs the rollback journal. */
bool history_fs_is_network(unsigned long magic);

/* Whether --db names a PostgreSQL server: a libpq URI (postgresql:// or
 * postgres://) or "pg:" and a libpq keyword string ("pg:service=hrr");
 * anything else is a file path. */
bool history_db_is_server(const char *target);
/* target as it may be shown, written or logged: a URI's password (in its
 * user part or a password= parameter) and a keyword string's password=
 * removed; a path as it is. Caller frees. */
char *history_db_shown(const char *target);

/* Open (creating it and its directory) and migrate; a server's target
 * connects (history_db_is_server): its schema is created or migrated
 * under an advisory lock, a refused connection is ERR_CONNECT naming the
 * server (history_db_shown). Locked past the busy
 * timeout, corrupt, not a database, or a newer schema: an error naming the
 * file; nothing is written. The file and its directory must be the
 * caller's (ERR_USAGE otherwise), the schema exactly the migrations'
 * (ERR_DATA otherwise; orchestrator/history/db_trust.h). */
int history_db_open(struct history_db **out, const char *path, struct error *err)
	__attribute__((warn_unused_result));
/* The same for reading only: nothing is created or migrated; a missing
 * database is ERR_NOT_FOUND. */
int history_db_open_readonly(struct history_db **out, const char *path, struct error *err)
	__attribute__((warn_unused_result));
void history_db_close(struct history_db *db);
/* How long a writer waits for another one (default HISTORY_BUSY_TIMEOUT_MS). */
void history_db_set_busy_timeout(struct history_db *db, int ms);
/* SQLite's page cache of this connection at most kib KiB (SQLite's own
 * default is 2,000 KiB). */
int history_db_set_cache_kib(struct history_db *db, int kib, struct error *err)
	__attribute__((warn_unused_result));
/* "wal" or "delete": the journal mode in force ("server" on a server). */
const char *history_db_journal(const struct history_db *db);
/* The file, or the server without its password: what errors name. */
const char *history_db_name(const struct history_db *db);
/* A warning about the connection for the caller to print (NULL: none):
 * a remote server without sslmode. */
const char *history_db_warning(const struct history_db *db);
bool history_db_on_server(const struct history_db *db);
/* A server's connection made anew after it was lost (a restart, the
 * network): ERR_CONNECT while the server still refuses. A file: 0. */
int history_db_reconnect(struct history_db *db, struct error *err)
	__attribute__((warn_unused_result));

struct history_sweep {
	const char *id, *label, *host, *state, *options, *tool_version, *folder, *baseline;
	const char *run_options_fp; /* history_options_fingerprint of the run options */
	long long started, finished;
	long long started_us; /* 0: started's second (a folder from before it was kept) */
};

/* What identifies the run options a result was replayed with:
 * "fnv1a64:<16 hex>" of their JSON text (sweep_runopts_to_json). Caller
 * frees. */
char *history_options_fingerprint(const char *run_options_json);

struct history_planned {
	const char *case_name, *image;
};

/* Make the database say what the sweep's plan and results files say: the
 * sweep row is upserted and, when the stored results differ from rs (count
 * or content), the sweep's planned cases and results are replaced in one
 * transaction. *rebuilt tells whether they were. */
int history_db_import(struct history_db *db, const struct history_sweep *s,
		      const struct history_planned *planned, size_t n_planned,
		      const struct sweep_results *rs, bool *rebuilt, struct error *err)
	__attribute__((warn_unused_result));
/* The same, with the results read in chunks (a large sweep's results are
 * never all in memory): each(src, fn, ctx, err) calls fn with every chunk,
 * in the same order each time; it is called once for the fingerprint and,
 * when the rows are replaced, once more to insert them. */
typedef int (*history_results_fn)(void *ctx, const struct sweep_results *rs, struct error *err);
typedef int (*history_results_each_fn)(void *src, history_results_fn fn, void *ctx,
				       struct error *err);
int history_db_import_each(struct history_db *db, const struct history_sweep *s,
			   const struct history_planned *planned, size_t n_planned,
			   history_results_each_fn each, void *src, bool *rebuilt,
			   struct error *err) __attribute__((warn_unused_result));

/* Whether the database knows sweep id (*known). */
int history_db_has_sweep(struct history_db *db, const char *id, bool *known, struct error *err)
	__attribute__((warn_unused_result));

/* The previous finished sweep of label before sweep_id on the same host
 * (a fleet's label mixes hosts; a sweep or row without a host matches
 * any) (NULL: none). */
int history_db_previous(struct history_db *db, const char *label, const char *sweep_id,
			char **baseline, struct error *err) __attribute__((warn_unused_result));

struct history_status_row {
	const char *case_name, *image, *image_id;
	const char *outcome, *fault_class, *kernel;
	const char *prev_outcome, *run_dir, *message, *gpus; /* gpus: "0,1" */
	/* The failure signature's id, kernel family and evidence, and the
	 * known issue a rule matched (NULL: none). */
	const char *sig_id, *sig_family, *sig_evidence;
	const char *known_id, *known_link, *known_owner;
	enum sweep_status status;
	int attempts;
	double duration_s;
	/* Its place: the plan's index, or for a gone case 1,000,000,000 and
	 * the baseline plan's index (after every planned case). */
	long long ord;
};
typedef int (*history_status_fn)(void *ctx, const struct history_status_row *row);

/* Every planned case of sweep_id, then every baseline case no longer
 * planned (gone), with its status against baseline (NULL: all new).
 * Rows come in plan order. */
int history_db_statuses(struct history_db *db, const char *sweep_id, const char *baseline,
			history_status_fn fn, void *ctx, struct error *err)
	__attribute__((warn_unused_result));
/* The same rows in no particular order, for a caller that puts each in
 * its place by ord: SQLite sorts none (a sort of a large sweep's rows
 * holds up to the cache's size in memory). */
int history_db_statuses_unordered(struct history_db *db, const char *sweep_id,
				  const char *baseline, history_status_fn fn, void *ctx,
				  struct error *err) __attribute__((warn_unused_result));

/* One attempt of a sweep's case as the history holds it (NULL: the
 * column is empty); host is the one its results line named. */
struct history_attempt_row {
	const char *case_name, *image;
	const char *state, *outcome, *fault_class, *kernel, *kind;
	const char *gpus, *gpu_uids, *host, *run_dir, *message; /* gpus: "0,1" */
	const char *finding_md; /* finding.md's text its line carried */
	int attempt;
};
typedef int (*history_attempt_fn)(void *ctx, const struct history_attempt_row *row);

/* Every attempt of sweep_id, by case, image and attempt (the results'
 * primary key): a case's final attempt is its last row. */
int history_db_attempts(struct history_db *db, const char *sweep_id, history_attempt_fn fn,
			void *ctx, struct error *err) __attribute__((warn_unused_result));

struct history_trend_row {
	const char *sweep_id, *label, *case_name, *image, *state, *outcome, *fault_class, *kernel;
	long long started;
	int attempts;
};
typedef int (*history_trend_fn)(void *ctx, const struct history_trend_row *row);

/* The final attempts of the last `last` sweeps of label (NULL: any) for
 * case_name (NULL: every case), oldest sweep first. */
int history_db_trend(struct history_db *db, const char *label, const char *case_name, int last,
		     history_trend_fn fn, void *ctx, struct error *err)
	__attribute__((warn_unused_result));
/* The same, of host's sweeps only (NULL: every host's): a fleet's history. */
int history_db_trend_host(struct history_db *db, const char *label, const char *host,
			  const char *case_name, int last, history_trend_fn fn, void *ctx,
			  struct error *err) __attribute__((warn_unused_result));

/* Remove all but the last keep sweeps of label (NULL: of every label);
 * their ids and folders ("" without one) are added to ids and folders
 * for the caller to check and delete. */
int history_db_prune(struct history_db *db, const char *label, int keep, struct strvec *ids,
		     struct strvec *folders, struct error *err) __attribute__((warn_unused_result));
/* The same among host's sweeps only (NULL: every host's). */
int history_db_prune_host(struct history_db *db, const char *label, const char *host, int keep,
			  struct strvec *ids, struct strvec *folders, struct error *err)
	__attribute__((warn_unused_result));

#endif

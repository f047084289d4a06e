/* Inside the history database module: the handle, the schema migrations
 * and the functions its query files share. Not for other modules: what
 * they may run on a history is history_query.h's. */
#ifndef HRR_HISTORY_HISTORY_SQL_H
#define HRR_HISTORY_HISTORY_SQL_H

#include <stdbool.h>
#include <stddef.h>

#include <sqlite3.h>

#include "common/error.h"
#include "orchestrator/history/history_handle.h"
#include "orchestrator/history/history_query.h"

/* history_migrations[v] takes schema v to v + 1 on SQLite,
 * history_migrations_pg[v] on PostgreSQL (history_migrate_pg.c). */
extern const char *const history_migrations[];
extern const char *const history_migrations_pg[];

/* history_db_trend's queries: the sweeps, then each one's results
 * (`make bench-history` shows their plans). */
extern const char history_trend_sweeps_sql[];
extern const char history_trend_results_sql[];

/* A schema newer than this tool's (v > HISTORY_SCHEMA_VERSION) as a
 * one-line ERR_DATA naming the database; nothing is written to it. */
int history_sql_refuse_newer(struct history_db *db, int v, struct error *err)
	__attribute__((warn_unused_result));
/* A reader's upgrade of schema v that failed (err says why) as one line
 * naming the database, its schema and who can upgrade it (ERR_DATA). */
int history_sql_upgrade_refused(struct history_db *db, int v, struct error *err)
	__attribute__((warn_unused_result));
int history_sql_exec(struct history_db *db, const char *sql, struct error *err)
	__attribute__((warn_unused_result));
/* A write transaction: SQLite takes the write lock now (or waits the busy
 * timeout); PostgreSQL's rows lock as they are written. */
int history_sql_begin(struct history_db *db, struct error *err)
	__attribute__((warn_unused_result));
void history_sql_rollback(struct history_db *db);
/* Inside a transaction, many writes in a row (a sweep's import): on
 * PostgreSQL they are sent without waiting for each answer (libpq's
 * pipeline mode), answered in groups; a statement's step then says
 * nothing of its own row, and the first failure of a group is the step's
 * (or the end's) that reads the group. Only writes between begin and end:
 * a read there sees no rows. SQLite: nothing changes. */
void history_sql_pipeline_begin(struct history_db *db);
int history_sql_pipeline_end(struct history_db *db, struct error *err)
	__attribute__((warn_unused_result));

/* The last sweeps of a label, as a subquery on ?1 (label or NULL) and ?2
 * (how many): `history signatures` and `history known`. */
#define HISTORY_LAST_SWEEPS                                                               \
	"(SELECT id, started, started_us FROM sweeps WHERE ?1 IS NULL OR label = ?1"       \
	" ORDER BY started_us DESC, id DESC LIMIT ?2)"

/* t (epoch seconds) as YYYY-MM-DD in UTC, "-" when it cannot be. */
void history_day(char *buf, size_t n, long long t);

/* The short names the history's own files use. */
static inline void bind_text(struct history_stmt *st, int i, const char *s)
{
	history_bind_text(st, i, s);
}

static inline const char *col(struct history_stmt *st, int i)
{
	return history_col(st, i);
}

#endif

/* The SQL helpers the history's files share (history_sql.h): a script, a
 * transaction, a schema too new. Opening and migrating it is
 * history_db.c's; statements and their errors history_stmt.c's. */
#include "orchestrator/history/history_sql.h"

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "orchestrator/history/history_pg.h"
#include "orchestrator/history/history_schema.h"

int history_sql_exec(struct history_db *db, const char *sql, struct error *err)
{
	int rc;

	if (db->dialect == HISTORY_PG)
		return history_pg_exec(db, sql, err);
	rc = sqlite3_exec(db->h, sql, NULL, NULL, NULL);
	return rc == SQLITE_OK ? 0 : history_sql_error(db, rc, "exec", err);
}

int history_sql_begin(struct history_db *db, struct error *err)
{
	return history_sql_exec(db, db->dialect == HISTORY_PG ? "BEGIN" : "BEGIN IMMEDIATE", err);
}

int history_read_begin(struct history_db *db, struct error *err)
{
	/* inside a caller's transaction: that one is the snapshot */
	if (db->dialect != HISTORY_PG || history_pg_in_transaction(db))
		return 0;
	/* Every row of a cursor is read: planned for the last row, not the
	 * first (by default a cursor's plan is the one that starts soonest,
	 * which for a window of results is an index walk three times slower
	 * than its sort). */
	if (history_pg_exec(db, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY;"
				" SET LOCAL cursor_tuple_fraction = 1", err) < 0)
		return -1;
	db->pg_read = true;
	return 0;
}

void history_read_end(struct history_db *db)
{
	if (!db->pg_read)
		return;
	db->pg_read = false;
	/* A read-only transaction: ending it cannot lose anything. */
	if (history_pg_exec(db, "COMMIT", ERROR_DISCARD) < 0)
		return;
}

void history_sql_rollback(struct history_db *db)
{
	/* A pipeline's writes are answered (and dropped) first. */
	if (history_sql_pipeline_end(db, ERROR_DISCARD) < 0) {
		/* the rollback below ends them all the same */
	}
	/* A failed ROLLBACK on a server: the server ended the transaction. */
	if (db->dialect != HISTORY_PG)
		sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
	else if (history_pg_exec(db, "ROLLBACK", ERROR_DISCARD) < 0)
		return;
}

int history_sql_upgrade_refused(struct history_db *db, int v, struct error *err)
{
	cleanup_free char *why = xstrdup(err->msg);

	return error_set(err, ERR_DATA, 0,
			 "history database %s has schema %d, older than this tool's %d, and cannot "
			 "be brought up to date here (%s): its owner's next sweep or `history prune` "
			 "does it", db->path, v, HISTORY_SCHEMA_VERSION, why);
}

int history_sql_refuse_newer(struct history_db *db, int v, struct error *err)
{
	if (v > HISTORY_SCHEMA_VERSION)
		return error_set(err, ERR_DATA, 0,
				 "history database %s has schema %d, newer than this tool's %d; "
				 "use a newer hrr-docker-replay or another --db",
				 db->path, v, HISTORY_SCHEMA_VERSION);
	return 0;
}

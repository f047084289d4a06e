/* The history database's handle and the SQL helpers its query files share
 * (history_sql.h): opening and migrating it is history_db.c's. */
#include "orchestrator/history/history_sql.h"

#include "orchestrator/history/history_pg.h"

int history_sql_error(struct history_db *db, int rc, const char *what, struct error *err)
{
	int base = rc & 0xff;

	if (db->dialect == HISTORY_PG)
		return history_pg_error(db, what, err);
	if (base == SQLITE_BUSY || base == SQLITE_LOCKED)
		return error_set(err, ERR_BUSY, 0,
				 "history database %s is locked by another writer (waited %d ms)",
				 db->path, db->busy_ms);
	if (base == SQLITE_CORRUPT || base == SQLITE_NOTADB)
		return error_set(err, ERR_DATA, 0,
				 "history database %s is corrupt or not a database; it was left as "
				 "it is: move it aside (the sweeps' results files rebuild it)",
				 db->path);
	return error_set(err, ERR_SYSTEM, 0, "history database %s: %s: %s", db->path, what,
			 db->h ? sqlite3_errmsg(db->h) : sqlite3_errstr(rc));
}

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

void history_sql_rollback(struct history_db *db)
{
	/* A failed ROLLBACK on a server: the server ended the transaction. */
	if (db->dialect != HISTORY_PG)
		sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
	else if (history_pg_exec(db, "ROLLBACK", ERROR_DISCARD) < 0)
		return;
}

/* The history database's handle and the SQL helpers its query files share
 * (history_sql.h): opening and migrating it is history_db.c's. */
#include "orchestrator/history/history_sql.h"

int history_sql_error(struct history_db *db, int rc, const char *what, struct error *err)
{
	int base = rc & 0xff;

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
	int rc = sqlite3_exec(db->h, sql, NULL, NULL, NULL);

	return rc == SQLITE_OK ? 0 : history_sql_error(db, rc, "exec", err);
}

sqlite3 *history_db_handle(struct history_db *db)
{
	return db->h;
}

/* Queries other rooms run on an open history (the site's pages): prepare a
 * statement, bind text, read a column, and an SQLite failure as an error
 * naming the database. What the history's own files share besides is
 * history_sql.h's. */
#ifndef HRR_HISTORY_HISTORY_QUERY_H
#define HRR_HISTORY_HISTORY_QUERY_H

#include <sqlite3.h>

#include "common/error.h"

struct history_db; /* history_db.h opens one */

sqlite3 *history_db_handle(struct history_db *db);
/* An SQLite failure as an error naming the database file: busy/locked ->
 * ERR_BUSY, corrupt/not a database -> ERR_DATA. Returns -1. */
int history_sql_error(struct history_db *db, int rc, const char *what, struct error *err);

static inline int history_sql_prepare(struct history_db *db, const char *sql, sqlite3_stmt **st,
				      struct error *err)
{
	int rc = sqlite3_prepare_v2(history_db_handle(db), sql, -1, st, NULL);

	return rc == SQLITE_OK ? 0 : history_sql_error(db, rc, "prepare", err);
}

static inline void cleanup_stmt_fn(sqlite3_stmt **st)
{
	sqlite3_finalize(*st);
}
#define cleanup_stmt __attribute__((cleanup(cleanup_stmt_fn)))

/* s, or NULL as SQL NULL. */
static inline void history_bind_text(sqlite3_stmt *st, int i, const char *s)
{
	if (s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

static inline const char *history_col(sqlite3_stmt *st, int i)
{
	return (const char *)sqlite3_column_text(st, i);
}

#endif

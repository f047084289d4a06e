/* Inside the history database module: the handle, the schema migrations
 * and the functions its query files share. Not for other modules. */
#ifndef HRR_HISTORY_HISTORY_SQL_H
#define HRR_HISTORY_HISTORY_SQL_H

#include <stdbool.h>
#include <stddef.h>

#include <sqlite3.h>

#include "common/error.h"

/* The open database (history_db.c opens, migrates and closes it; the
 * helpers below are history_sql.c's). */
struct history_db {
	sqlite3 *h;
	char *path;
	bool network;
	int busy_ms;
};

/* history_migrations[v] takes schema v to v + 1. */
extern const char *const history_migrations[];

/* history_db_trend's queries: the sweeps, then each one's results
 * (`make bench-history` shows their plans). */
extern const char history_trend_sweeps_sql[];
extern const char history_trend_results_sql[];

sqlite3 *history_db_handle(struct history_db *db);
/* An SQLite failure as an error naming the database file: busy/locked ->
 * ERR_BUSY, corrupt/not a database -> ERR_DATA. Returns -1. */
int history_sql_error(struct history_db *db, int rc, const char *what, struct error *err);
int history_sql_exec(struct history_db *db, const char *sql, struct error *err)
	__attribute__((warn_unused_result));

static inline int history_sql_prepare(struct history_db *db, const char *sql, sqlite3_stmt **st,
				      struct error *err)
{
	int rc = sqlite3_prepare_v2(history_db_handle(db), sql, -1, st, NULL);

	return rc == SQLITE_OK ? 0 : history_sql_error(db, rc, "prepare", err);
}

/* The last sweeps of a label, as a subquery on ?1 (label or NULL) and ?2
 * (how many): `history signatures` and `history known`. */
#define HISTORY_LAST_SWEEPS                                                               \
	"(SELECT id, started FROM sweeps WHERE ?1 IS NULL OR label = ?1"                   \
	" ORDER BY started DESC LIMIT ?2)"

/* t (epoch seconds) as YYYY-MM-DD in UTC, "-" when it cannot be. */
void history_day(char *buf, size_t n, long long t);

static inline void cleanup_stmt_fn(sqlite3_stmt **st)
{
	sqlite3_finalize(*st);
}
#define cleanup_stmt __attribute__((cleanup(cleanup_stmt_fn)))

static inline void bind_text(sqlite3_stmt *st, int i, const char *s)
{
	if (s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

static inline const char *col(sqlite3_stmt *st, int i)
{
	return (const char *)sqlite3_column_text(st, i);
}

#endif

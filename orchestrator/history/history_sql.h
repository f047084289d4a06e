/* Inside the history database module: the handle, the schema migrations
 * and the functions its query files share. Not for other modules: what
 * they may run on a history is history_query.h's. */
#ifndef HRR_HISTORY_HISTORY_SQL_H
#define HRR_HISTORY_HISTORY_SQL_H

#include <stdbool.h>
#include <stddef.h>

#include <sqlite3.h>

#include "common/error.h"
#include "orchestrator/history/history_query.h"

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

int history_sql_exec(struct history_db *db, const char *sql, struct error *err)
	__attribute__((warn_unused_result));

/* The last sweeps of a label, as a subquery on ?1 (label or NULL) and ?2
 * (how many): `history signatures` and `history known`. */
#define HISTORY_LAST_SWEEPS                                                               \
	"(SELECT id, started, started_us FROM sweeps WHERE ?1 IS NULL OR label = ?1"       \
	" ORDER BY started_us DESC, id DESC LIMIT ?2)"

/* t (epoch seconds) as YYYY-MM-DD in UTC, "-" when it cannot be. */
void history_day(char *buf, size_t n, long long t);

/* The short names the history's own files use. */
static inline void bind_text(sqlite3_stmt *st, int i, const char *s)
{
	history_bind_text(st, i, s);
}

static inline const char *col(sqlite3_stmt *st, int i)
{
	return history_col(st, i);
}

#endif

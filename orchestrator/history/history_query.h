/* Queries other rooms run on an open history (the site's pages): prepare a
 * statement, bind values, step through its rows, read a column, and a
 * failure as an error naming the database. The same calls serve both
 * stores (SQLite, PostgreSQL: history_stmt.c); SQL whose text differs
 * between them is history_dialect.h's. What the history's own files share
 * besides is history_sql.h's. */
#ifndef HRR_HISTORY_HISTORY_QUERY_H
#define HRR_HISTORY_HISTORY_QUERY_H

#include <stdbool.h>

#include "common/error.h"

struct history_db; /* history_db.h opens one */
struct history_stmt;

/* What history_step returns besides an error code (SQLite's values, so an
 * SQLite code passes through unchanged). */
enum { HISTORY_ROW = 100, HISTORY_DONE = 101 };

/* A failure as an error naming the database: busy/locked -> ERR_BUSY,
 * corrupt/not a database -> ERR_DATA, the server gone -> ERR_CONNECT.
 * Returns -1. */
int history_sql_error(struct history_db *db, int rc, const char *what, struct error *err);

/* sql numbers its parameters ?1, ?2, ... (a bare ? is the next one). */
int history_sql_prepare(struct history_db *db, const char *sql, struct history_stmt **st,
			struct error *err) __attribute__((warn_unused_result));
void history_finalize(struct history_stmt *st);
/* Back to before its first step; the bound values stay. */
void history_reset(struct history_stmt *st);
int history_step(struct history_stmt *st);
/* Its rows may be too many to hold at once (every sample of a sweep, a
 * site's window of results): on PostgreSQL, between history_read_begin and
 * _end, they are read through a cursor a batch at a time; elsewhere all
 * at once, as any statement's. SQLite reads a row at a time anyway. */
void history_many_rows(struct history_stmt *st);
/* The rows one FETCH of such a cursor brings: a many-row statement holds
 * this many at a time, at a round trip each. The site holds one per sweep
 * of its window: at 10,000 cases x 60 nights 512 rows keep its peak RSS
 * at 33 MB (2,048: 61 MB) for about 0.25 s more of the server's time. */
#define HISTORY_CURSOR_BATCH 512

/* One read of many statements (the site, a trend): on PostgreSQL one
 * read-only snapshot, in which history_many_rows statements stream (or
 * the caller's transaction, when one is open: _end leaves it open).
 * SQLite: nothing
 * (a long read transaction would hold a writer off on a network file
 * system's rollback journal). */
int history_read_begin(struct history_db *db, struct error *err)
	__attribute__((warn_unused_result));
void history_read_end(struct history_db *db);

/* s, or NULL as SQL NULL. */
void history_bind_text(struct history_stmt *st, int i, const char *s);
void history_bind_int64(struct history_stmt *st, int i, long long v);
void history_bind_double(struct history_stmt *st, int i, double v);
void history_bind_null(struct history_stmt *st, int i);
static inline void history_bind_int(struct history_stmt *st, int i, int v)
{
	history_bind_int64(st, i, v);
}

const char *history_col(struct history_stmt *st, int i);
long long history_col_int64(struct history_stmt *st, int i);
double history_col_double(struct history_stmt *st, int i);
bool history_col_null(struct history_stmt *st, int i);
int history_col_bytes(struct history_stmt *st, int i);
static inline int history_col_int(struct history_stmt *st, int i)
{
	return (int)history_col_int64(st, i);
}

static inline void cleanup_stmt_fn(struct history_stmt **st)
{
	history_finalize(*st);
}
#define cleanup_stmt __attribute__((cleanup(cleanup_stmt_fn)))

#endif

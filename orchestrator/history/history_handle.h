/* Inside the history database module: the open database's handle, on
 * either store. history_db.c opens and closes it; history_sql.h's helpers
 * and history_pg.c's connection use it. */
#ifndef HRR_HISTORY_HISTORY_HANDLE_H
#define HRR_HISTORY_HISTORY_HANDLE_H

#include <stdbool.h>

#include <sqlite3.h>

enum history_dialect {
	HISTORY_SQLITE,
	HISTORY_PG,
	HISTORY_N_DIALECTS
};

struct pg_conn; /* libpq's PGconn (history_pg.c) */

/* The open database (history_db.c opens, migrates and closes it; the
 * helpers below are history_sql.c's). path is what errors name: the file,
 * or a server's connection string without its password. */
struct history_db {
	enum history_dialect dialect;
	sqlite3 *h;
	struct pg_conn *pg;
	char *path;
	char *pg_msg;      /* the server's last error message, in one line */
	char pg_state[6];  /* and its SQLSTATE */
	char *pg_warning;  /* history_pg_warning's */
	unsigned pg_seq;   /* the last prepared statement's number */
	bool pg_pipe;      /* writes are sent without waiting (history_sql_pipeline) */
	int pg_pending;    /* and so many of them are not yet answered */
	bool pg_read;      /* history_read_begin began a transaction */
	bool network;
	int busy_ms;
};

#endif

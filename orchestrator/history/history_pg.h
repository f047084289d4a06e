/* Inside the history database module: a history on a PostgreSQL server
 * through libpq (docs/sweep.md "History on PostgreSQL"). One connection
 * per process, opened when the history is, closed with it. */
#ifndef HRR_HISTORY_HISTORY_PG_H
#define HRR_HISTORY_HISTORY_PG_H

#include <stdbool.h>

#include "common/error.h"

struct history_db;
struct pg_result;

/* Connect db (its path already the shown name) to target (a
 * postgresql:// or postgres:// URI, or pg: and a keyword string). A
 * refusal is one line naming the server, never the password. */
int history_pg_connect(struct history_db *db, const char *target, struct error *err)
	__attribute__((warn_unused_result));
void history_pg_close(struct history_db *db);
/* The lost connection made anew (PQreset): ERR_CONNECT while refused. */
int history_pg_reconnect(struct history_db *db, struct error *err)
	__attribute__((warn_unused_result));
/* A warning for the connection's caller to print (NULL: none): a remote
 * server without sslmode. Owned by db. */
const char *history_pg_warning(const struct history_db *db);

int history_pg_exec(struct history_db *db, const char *sql, struct error *err)
	__attribute__((warn_unused_result));
/* Whether a transaction is open on the connection. */
bool history_pg_in_transaction(struct history_db *db);
/* sql prepared on the server under a name of its own (*name, caller frees);
 * -1 with the server's message kept (history_sql_error says it). */
int history_pg_prepare(struct history_db *db, const char *sql, int nparams,
		       const unsigned *types, char **name);
void history_pg_deallocate(struct history_db *db, const char *name);
/* res's error message, in one line, for history_sql_error. */
void history_pg_keep_error(struct history_db *db, const struct pg_result *res);
/* The kept message as an error: ERR_CONNECT when the connection is gone,
 * ERR_BUSY on a deadlock or a serialisation failure, else ERR_SYSTEM. */
int history_pg_error(struct history_db *db, const char *what, struct error *err);

/* Create or migrate the schema (under an advisory lock, in one
 * transaction), or for reading only check its version: a missing schema
 * is ERR_NOT_FOUND, a newer one ERR_DATA (history_migrate_pg.c). */
int history_pg_migrate(struct history_db *db, bool read_only, struct error *err)
	__attribute__((warn_unused_result));

#endif

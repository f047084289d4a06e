/* Which store the history suites run on: SQLite (the default), or, with
 * HRR_TEST_HISTORY_PG naming the unix-socket directory of a private
 * PostgreSQL cluster (tests/pg-cluster.sh; `make check-history-pg`), a
 * fresh database on it for each test. The same tests run on both. */
#ifndef HRR_TESTS_SUPPORT_HISTORY_BACKEND_H
#define HRR_TESTS_SUPPORT_HISTORY_BACKEND_H

#include <stdbool.h>

bool history_backend_pg(void);
/* sqlite_path, or on PostgreSQL the URI of a new empty database (the
 * cluster's trusted test user). Caller frees. */
char *history_backend_db(const char *sqlite_path);
/* sql run on the database db names (a URI of history_backend_db's). */
void history_backend_exec(const char *db, const char *sql);
/* The private cluster's socket directory and its password role's URI
 * with password (NULL: not on PostgreSQL). Caller frees. */
char *history_backend_password_uri(const char *password);

/* One test's open history: a scratch directory named name and, in it or
 * on the cluster, a new database (history_backend_db). */
struct history_db;
struct history_fixture {
	char *root, *dbpath;
	struct history_db *db;
};
void history_fixture_open(struct history_fixture *f, const char *name);
void history_fixture_close(struct history_fixture *f);

/* A test of SQLite's own file (its journal, its PRAGMAs): skipped on
 * PostgreSQL. */
#define HISTORY_SQLITE_ONLY()                                                         \
	do {                                                                          \
		if (history_backend_pg())                                             \
			cr_skip_test("SQLite's own file: not on PostgreSQL");         \
	} while (0)

#endif

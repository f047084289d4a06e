#include "tests/support/history_backend.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <libpq-fe.h>

#include "common/xalloc.h"
#include "orchestrator/history/history_db.h"
#include "tests/support/scratch.h"

static const char *socket_dir(void)
{
	const char *d = getenv("HRR_TEST_HISTORY_PG");

	return d && *d ? d : NULL;
}

static const char *pg_user(void)
{
	const char *u = getenv("HRR_PG_USER");

	return u && *u ? u : "hrrpg";
}

bool history_backend_pg(void)
{
	return socket_dir() != NULL;
}

static void exec_on(const char *uri, const char *sql)
{
	PGconn *c = PQconnectdb(uri);
	PGresult *res;

	cr_assert_eq(PQstatus(c), CONNECTION_OK, "%s: %s", uri, PQerrorMessage(c));
	res = PQexec(c, sql);
	cr_assert(PQresultStatus(res) == PGRES_COMMAND_OK ||
		  PQresultStatus(res) == PGRES_TUPLES_OK, "%s: %s", sql, PQerrorMessage(c));
	PQclear(res);
	PQfinish(c);
}

char *history_backend_db(const char *sqlite_path)
{
	static unsigned n;
	char *admin, *sql, *uri;
	char name[64];

	if (!history_backend_pg())
		return xstrdup(sqlite_path);
	snprintf(name, sizeof(name), "hrr_t_%ld_%u_%ld", (long)getpid(), ++n, (long)random());
	admin = xasprintf("postgresql:///postgres?host=%s&user=%s", socket_dir(), pg_user());
	sql = xasprintf("CREATE DATABASE %s", name);
	exec_on(admin, sql);
	uri = xasprintf("postgresql:///%s?host=%s&user=%s", name, socket_dir(), pg_user());
	free(admin);
	free(sql);
	return uri;
}

void history_backend_exec(const char *db, const char *sql)
{
	exec_on(db, sql);
}

char *history_backend_password_uri(const char *password)
{
	if (!history_backend_pg())
		return NULL;
	return xasprintf("postgresql://hrr_pw:%s@/hrr_pw?host=%s", password, socket_dir());
}

void history_fixture_open(struct history_fixture *f, const char *name)
{
	char *file;
	struct error err;

	f->root = scratch_dir(name);
	file = xasprintf("%s/data/history.sqlite", f->root);
	f->dbpath = history_backend_db(file);
	free(file);
	cr_assert_eq(history_db_open(&f->db, f->dbpath, &err), 0, "%s", err.msg);
}

void history_fixture_close(struct history_fixture *f)
{
	history_db_close(f->db);
	scratch_remove(f->root);
	free(f->root);
	free(f->dbpath);
}

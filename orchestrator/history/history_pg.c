/* A history on a PostgreSQL server: the connection, its errors, and the
 * statements prepared on it (history_pg.h). */
#include "orchestrator/history/history_pg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <libpq-fe.h>

#include "common/cleanup.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "orchestrator/history/history_handle.h"

/* The server's NOTICEs (CREATE TABLE IF NOT EXISTS, ...) are not the
 * tool's to print. */
static void quiet(void *arg, const char *message)
{
	(void)arg;
	(void)message;
}

/* libpq's message in one line: its lines joined by "; ". */
static char *one_line(const char *msg)
{
	struct strbuf out = STRBUF_INIT;

	for (const char *p = msg ? msg : ""; *p; p++) {
		if (*p == '\n') {
			while (p[1] == '\t' || p[1] == ' ')
				p++;
			if (p[1])
				strbuf_addstr(&out, "; ");
		} else if (*p != '\r') {
			strbuf_addch(&out, *p);
		}
	}
	return strbuf_detach(&out, NULL);
}

/* The password file libpq reads, when others can read it (libpq then
 * ignores it); NULL otherwise. */
static char *ignored_pgpass(void)
{
	const char *env = getenv("PGPASSFILE"), *home = getenv("HOME");
	char *path = env && *env ? xstrdup(env) : home ? xasprintf("%s/.pgpass", home) : NULL;
	struct stat sb;

	if (path && stat(path, &sb) == 0 && S_ISREG(sb.st_mode) && (sb.st_mode & 077))
		return path;
	free(path);
	return NULL;
}

static int refused(struct history_db *db, PGconn *c, struct error *err)
{
	cleanup_free char *msg = one_line(PQerrorMessage(c));
	cleanup_free char *pgpass = NULL;

	if (strstr(msg, "password") && (pgpass = ignored_pgpass()))
		return error_set(err, ERR_CONNECT, 0,
				 "history database %s: cannot connect: %s (%s can be read by "
				 "others, so libpq ignored it: chmod 0600 it)",
				 db->path, msg, pgpass);
	return error_set(err, ERR_CONNECT, 0, "history database %s: cannot connect: %s", db->path,
			 msg);
}

static bool is_local(const char *host)
{
	return !host || !*host || host[0] == '/' || !strcmp(host, "localhost") ||
	       !strcmp(host, "127.0.0.1") || !strcmp(host, "::1");
}

static bool has_sslmode(const char *conninfo)
{
	PQconninfoOption *opts = PQconninfoParse(conninfo, NULL);
	bool set = getenv("PGSSLMODE") && *getenv("PGSSLMODE");

	for (PQconninfoOption *o = opts; o && o->keyword; o++)
		if (!strcmp(o->keyword, "sslmode") && o->val && *o->val)
			set = true;
	PQconninfoFree(opts);
	return set;
}

/* A password file others can read is ignored by libpq, which says so on
 * stderr besides: it is named to libpq as one that does not exist, and
 * the refusal says why (refused()). */
static PGconn *connect_quietly(const char *conninfo)
{
	cleanup_free char *pgpass = ignored_pgpass();
	const char *const keys[] = { "dbname", "passfile", NULL };
	const char *const vals[] = { conninfo, "/nonexistent/hrr-docker-replay/pgpass", NULL };

	return pgpass ? PQconnectdbParams(keys, vals, 1) : PQconnectdb(conninfo);
}

int history_pg_connect(struct history_db *db, const char *target, struct error *err)
{
	const char *conninfo = !strncmp(target, "pg:", 3) ? target + 3 : target;
	PGconn *c = connect_quietly(conninfo);

	db->pg = (struct pg_conn *)c;
	if (!c)
		return error_set(err, ERR_SYSTEM, 0, "history database %s: out of memory",
				 db->path);
	if (PQstatus(c) != CONNECTION_OK)
		return refused(db, c, err);
	PQsetNoticeProcessor(c, quiet, NULL);
	if (!is_local(PQhost(c)) && !has_sslmode(conninfo))
		db->pg_warning = xasprintf("history database %s: server %s without sslmode: the "
					   "connection may be unencrypted and the server unverified "
					   "(add sslmode=verify-full)",
					   db->path, PQhost(c));
	return history_pg_exec(db, "SET client_min_messages = warning", err);
}

int history_pg_reconnect(struct history_db *db, struct error *err)
{
	PGconn *c = (PGconn *)db->pg;

	PQreset(c);
	if (PQstatus(c) != CONNECTION_OK)
		return refused(db, c, err);
	return history_pg_exec(db, "SET client_min_messages = warning", err);
}

void history_pg_close(struct history_db *db)
{
	PQfinish((PGconn *)db->pg);
	db->pg = NULL;
	free(db->pg_warning);
	db->pg_warning = NULL;
}

const char *history_pg_warning(const struct history_db *db)
{
	return db->pg_warning;
}

void history_pg_keep_error(struct history_db *db, const struct pg_result *res)
{
	const char *state = PQresultErrorField((const PGresult *)res, PG_DIAG_SQLSTATE);

	free(db->pg_msg);
	db->pg_msg = one_line(res ? PQresultErrorMessage((const PGresult *)res)
				  : PQerrorMessage((PGconn *)db->pg));
	if (!*db->pg_msg) {
		free(db->pg_msg);
		db->pg_msg = one_line(PQerrorMessage((PGconn *)db->pg));
	}
	snprintf(db->pg_state, sizeof(db->pg_state), "%s", state ? state : "");
}

int history_pg_error(struct history_db *db, const char *what, struct error *err)
{
	const char *msg = db->pg_msg && *db->pg_msg ? db->pg_msg : "unknown error";

	if (PQstatus((PGconn *)db->pg) != CONNECTION_OK || !strncmp(db->pg_state, "08", 2) ||
	    !strncmp(db->pg_state, "57P", 3))
		return error_set(err, ERR_CONNECT, 0, "history database %s: connection lost: %s",
				 db->path, msg);
	if (!strcmp(db->pg_state, "40001") || !strcmp(db->pg_state, "40P01") ||
	    !strcmp(db->pg_state, "55P03"))
		return error_set(err, ERR_BUSY, 0, "history database %s: %s: %s", db->path, what,
				 msg);
	return error_set(err, ERR_SYSTEM, 0, "history database %s: %s: %s", db->path, what, msg);
}

int history_pg_exec(struct history_db *db, const char *sql, struct error *err)
{
	PGresult *res = PQexec((PGconn *)db->pg, sql);
	ExecStatusType s = PQresultStatus(res);
	int rc = 0;

	if (s != PGRES_COMMAND_OK && s != PGRES_TUPLES_OK) {
		history_pg_keep_error(db, (const struct pg_result *)res);
		rc = history_pg_error(db, "exec", err);
	}
	PQclear(res);
	return rc;
}

bool history_pg_in_transaction(struct history_db *db)
{
	return PQtransactionStatus((PGconn *)db->pg) != PQTRANS_IDLE;
}

int history_pg_prepare(struct history_db *db, const char *sql, int nparams,
		       const unsigned *types, char **name)
{
	PGresult *res;
	int rc = 0;

	*name = xasprintf("hrr_%u", ++db->pg_seq);
	res = PQprepare((PGconn *)db->pg, *name, sql, nparams, types);
	if (PQresultStatus(res) != PGRES_COMMAND_OK) {
		history_pg_keep_error(db, (const struct pg_result *)res);
		free(*name);
		*name = NULL;
		rc = -1;
	}
	PQclear(res);
	return rc;
}

void history_pg_deallocate(struct history_db *db, const char *name)
{
	cleanup_free char *sql = NULL;

	if (PQstatus((PGconn *)db->pg) != CONNECTION_OK)
		return;
	sql = xasprintf("DEALLOCATE %s", name);
	/* a pipeline takes no simple query: sent, answered with the rest */
	if (db->pg_pipe)
		db->pg_pending += PQsendQueryParams((PGconn *)db->pg, sql, 0, NULL, NULL, NULL,
						    NULL, 0);
	else
		PQclear(PQexec((PGconn *)db->pg, sql));
}

/* A statement on either store (history_query.h): SQLite's own, or on
 * PostgreSQL the SQL with its ?N written $N, the bound values kept as
 * text, and the rows read whole on the first step (a later statement may
 * run on the connection while these are read). A statement run more than
 * once (reset between) is prepared on the server on its second run. A
 * failure is an error naming the database (history_sql_error). Between
 * history_sql_pipeline_begin and _end, writes go out without waiting.
 * A statement whose rows are many (history_many_rows), run inside a
 * transaction on PostgreSQL, reads them through a cursor a batch at a
 * time instead. */
#include "orchestrator/history/history_sql.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libpq-fe.h>

#include "common/strbuf.h"
#include "common/xalloc.h"
#include "orchestrator/history/history_pg.h"

struct history_stmt {
	struct history_db *db;
	sqlite3_stmt *lite;
	/* PostgreSQL */
	char *sql, *name; /* name: the server's prepared statement (NULL: none) */
	int nparams;
	char **vals;
	Oid *types; /* text for a number the SQL skips (its type has no context), else inferred */
	PGresult *res;
	int row, nrows;
	bool ran, again;
	bool many;	/* history_many_rows */
	char *cursor;	/* the cursor its rows are read through (NULL: none) */
};

/* The server's own OID of text (pg_type.dat). */
#define TEXT_OID 25

/* ?N as $N and a bare ? as the next number, outside quotes; each number
 * used is marked in used[] (HISTORY_MAX_PARAMS of them). */
#define HISTORY_MAX_PARAMS 64
static char *pg_sql(const char *sql, int *nparams, bool *used)
{
	struct strbuf out = STRBUF_INIT;
	char quote = 0;
	int next = 0;

	*nparams = 0;
	for (const char *p = sql; *p; p++) {
		if (quote) {
			quote = *p == quote ? 0 : quote;
		} else if (*p == '\'' || *p == '"') {
			quote = *p;
		} else if (*p == '?') {
			char *end;
			long n = strtol(p + 1, &end, 10);

			if (end == p + 1)
				n = ++next;
			else
				p = end - 1;
			strbuf_addf(&out, "$%ld", n);
			if (n > 0 && n <= HISTORY_MAX_PARAMS)
				used[n - 1] = true;
			/* PostgreSQL cannot infer the type of a parameter tested
			 * only for NULL; every such parameter here is a name. */
			if (!strncmp(p + 1, " IS NULL", 8) || !strncmp(p + 1, " IS NOT NULL", 12))
				strbuf_addstr(&out, "::text");
			*nparams = n > *nparams ? (int)n : *nparams;
			continue;
		}
		strbuf_addch(&out, *p);
	}
	return strbuf_detach(&out, NULL);
}

int history_sql_prepare(struct history_db *db, const char *sql, struct history_stmt **st,
			struct error *err)
{
	struct history_stmt *s = xcalloc(1, sizeof(*s));
	int rc;

	s->db = db;
	*st = NULL;
	if (db->dialect == HISTORY_SQLITE) {
		rc = sqlite3_prepare_v2(db->h, sql, -1, &s->lite, NULL);
		if (rc != SQLITE_OK) {
			free(s);
			return history_sql_error(db, rc, "prepare", err);
		}
	} else {
		bool used[HISTORY_MAX_PARAMS] = { false };

		s->sql = pg_sql(sql, &s->nparams, used);
		s->vals = xcalloc((size_t)s->nparams + 1, sizeof(*s->vals));
		s->types = xcalloc((size_t)s->nparams + 1, sizeof(*s->types));
		for (int i = 0; i < s->nparams && i < HISTORY_MAX_PARAMS; i++)
			s->types[i] = used[i] ? 0 : TEXT_OID;
	}
	*st = s;
	return 0;
}

/* A cursor ends with its transaction; one closed before then frees the
 * server's rows at once. */
static void pg_close_cursor(struct history_stmt *st)
{
	PGconn *c = (PGconn *)st->db->pg;
	char sql[64];

	if (!st->cursor)
		return;
	if (PQtransactionStatus(c) == PQTRANS_INTRANS) {
		snprintf(sql, sizeof(sql), "CLOSE %s", st->cursor);
		PQclear(PQexec(c, sql));
	}
	free(st->cursor);
	st->cursor = NULL;
}

void history_many_rows(struct history_stmt *st)
{
	st->many = true;
}

void history_reset(struct history_stmt *st)
{
	if (st->lite) {
		sqlite3_reset(st->lite);
		return;
	}
	pg_close_cursor(st);
	PQclear(st->res);
	st->res = NULL;
	st->again = st->again || st->ran;
	st->ran = false;
}

void history_finalize(struct history_stmt *st)
{
	if (!st)
		return;
	if (st->lite)
		sqlite3_finalize(st->lite);
	else
		history_reset(st);
	if (st->name)
		history_pg_deallocate(st->db, st->name);
	for (int i = 0; i < st->nparams; i++)
		free(st->vals[i]);
	free(st->vals);
	free(st->types);
	free(st->sql);
	free(st->name);
	free(st);
}

/* The cursor's next batch of rows (none: its last was read). */
static int pg_fetch(struct history_stmt *st)
{
	char sql[64];

	PQclear(st->res);
	snprintf(sql, sizeof(sql), "FETCH %d FROM %s", HISTORY_CURSOR_BATCH, st->cursor);
	st->res = PQexec((PGconn *)st->db->pg, sql);
	st->row = -1;
	st->nrows = 0;
	if (PQresultStatus(st->res) != PGRES_TUPLES_OK) {
		history_pg_keep_error(st->db, (const struct pg_result *)st->res);
		return SQLITE_ERROR;
	}
	st->nrows = PQntuples(st->res);
	return 0;
}

/* The statement as a cursor, and its first batch. */
static int pg_open_cursor(struct history_stmt *st)
{
	const char *const *vals = (const char *const *)st->vals;
	char *name = xasprintf("hrr_c%u", ++st->db->pg_seq);
	char *sql = xasprintf("DECLARE %s NO SCROLL CURSOR FOR %s", name, st->sql);
	PGresult *r = PQexecParams((PGconn *)st->db->pg, sql, st->nparams, st->types, vals,
				   NULL, NULL, 0);
	bool ok = PQresultStatus(r) == PGRES_COMMAND_OK;

	free(sql);
	st->ran = true;
	if (!ok) {
		history_pg_keep_error(st->db, (const struct pg_result *)r);
		PQclear(r);
		free(name);
		return SQLITE_ERROR;
	}
	PQclear(r);
	st->cursor = name;
	return pg_fetch(st);
}

static int pg_run(struct history_stmt *st)
{
	PGconn *c = (PGconn *)st->db->pg;
	const char *const *vals = (const char *const *)st->vals;

	if (st->many && history_pg_in_transaction(st->db))
		return pg_open_cursor(st);
	if (st->again && !st->name &&
	    history_pg_prepare(st->db, st->sql, st->nparams, st->types, &st->name) < 0)
		return SQLITE_ERROR;
	st->res = st->name ? PQexecPrepared(c, st->name, st->nparams, vals, NULL, NULL, 0)
			   : PQexecParams(c, st->sql, st->nparams, st->types, vals, NULL, NULL, 0);
	st->ran = true;
	st->row = -1;
	st->nrows = 0;
	switch (PQresultStatus(st->res)) {
	case PGRES_TUPLES_OK:
		st->nrows = PQntuples(st->res);
		return 0;
	case PGRES_COMMAND_OK:
		return 0;
	default:
		history_pg_keep_error(st->db, st->res);
		return SQLITE_ERROR;
	}
}

/* A failure to send or to read a pipeline's answers: the connection's
 * (SQLITE_ERROR, history_sql_error reads it). */
static int pg_pipe_lost(struct history_db *db)
{
	history_pg_keep_error(db, NULL);
	if (!*db->pg_state)
		snprintf(db->pg_state, sizeof(db->pg_state), "08006");
	return SQLITE_ERROR;
}

/* The pipeline's answers so far: the first failure kept (those after it
 * are the server's skipping to the sync). */
static int pg_drain(struct history_db *db)
{
	PGconn *c = (PGconn *)db->pg;
	int rc = 0, nulls = 0;

	if (!db->pg_pending)
		return 0;
	db->pg_pending = 0;
	if (!PQpipelineSync(c))
		return pg_pipe_lost(db) ? -1 : 0;
	for (;;) {
		PGresult *r = PQgetResult(c);
		ExecStatusType s;

		/* one NULL ends each statement's answer; two, a lost server */
		if (!r) {
			if (++nulls > 1 || PQstatus(c) != CONNECTION_OK)
				return rc < 0 ? rc : (pg_pipe_lost(db) ? -1 : 0);
			continue;
		}
		nulls = 0;
		s = PQresultStatus(r);
		if (s == PGRES_PIPELINE_SYNC) {
			PQclear(r);
			return rc;
		}
		if (s == PGRES_FATAL_ERROR && rc == 0) {
			history_pg_keep_error(db, (const struct pg_result *)r);
			rc = -1;
		}
		PQclear(r);
	}
}

/* Answers are read in groups of this many: no round trip per row, and
 * never so many unread that the server waits for the client to read. */
#define PIPE_GROUP 512

/* A write into the pipeline (history_sql_pipeline_begin). */
static int pg_send(struct history_stmt *st)
{
	struct history_db *db = st->db;
	PGconn *c = (PGconn *)db->pg;
	const char *const *vals = (const char *const *)st->vals;
	int ok;

	st->ran = true;
	st->row = -1;
	st->nrows = 0;
	if (st->again && !st->name) {
		st->name = xasprintf("hrr_%u", ++db->pg_seq);
		if (!PQsendPrepare(c, st->name, st->sql, st->nparams, st->types))
			return pg_pipe_lost(db);
		db->pg_pending++;
	}
	ok = st->name ? PQsendQueryPrepared(c, st->name, st->nparams, vals, NULL, NULL, 0)
		      : PQsendQueryParams(c, st->sql, st->nparams, st->types, vals, NULL, NULL, 0);
	if (!ok)
		return pg_pipe_lost(db);
	if (++db->pg_pending >= PIPE_GROUP && pg_drain(db) < 0)
		return SQLITE_ERROR;
	return 0;
}

void history_sql_pipeline_begin(struct history_db *db)
{
	if (db->dialect == HISTORY_PG && !db->pg_pipe)
		db->pg_pipe = PQenterPipelineMode((PGconn *)db->pg) == 1;
}

int history_sql_pipeline_end(struct history_db *db, struct error *err)
{
	int rc;

	if (!db->pg_pipe)
		return 0;
	rc = pg_drain(db);
	PQexitPipelineMode((PGconn *)db->pg);
	db->pg_pipe = false;
	return rc < 0 ? history_pg_error(db, "write", err) : 0;
}

int history_step(struct history_stmt *st)
{
	if (st->lite)
		return sqlite3_step(st->lite);
	if (!st->ran) {
		int rc = st->db->pg_pipe ? pg_send(st) : pg_run(st);

		if (rc)
			return rc;
	}
	if (++st->row < st->nrows)
		return HISTORY_ROW;
	/* a full batch: the cursor may hold more */
	if (st->cursor && st->nrows == HISTORY_CURSOR_BATCH) {
		int rc = pg_fetch(st);

		if (rc)
			return rc;
		if (++st->row < st->nrows)
			return HISTORY_ROW;
	}
	/* read to its end: the server's side goes now, not at the reset */
	if (st->cursor)
		pg_close_cursor(st);
	return HISTORY_DONE;
}

static void pg_bind(struct history_stmt *st, int i, char *v)
{
	if (i < 1 || i > st->nparams) {
		free(v);
		return;
	}
	free(st->vals[i - 1]);
	st->vals[i - 1] = v;
}

void history_bind_text(struct history_stmt *st, int i, const char *s)
{
	if (st->lite) {
		if (s)
			sqlite3_bind_text(st->lite, i, s, -1, SQLITE_TRANSIENT);
		else
			sqlite3_bind_null(st->lite, i);
	} else {
		pg_bind(st, i, s ? xstrdup(s) : NULL);
	}
}

void history_bind_int64(struct history_stmt *st, int i, long long v)
{
	if (st->lite)
		sqlite3_bind_int64(st->lite, i, v);
	else
		pg_bind(st, i, xasprintf("%lld", v));
}

void history_bind_double(struct history_stmt *st, int i, double v)
{
	if (st->lite)
		sqlite3_bind_double(st->lite, i, v);
	else
		pg_bind(st, i, xasprintf("%.17g", v));
}

void history_bind_null(struct history_stmt *st, int i)
{
	if (st->lite)
		sqlite3_bind_null(st->lite, i);
	else
		pg_bind(st, i, NULL);
}

static const char *pg_value(struct history_stmt *st, int i)
{
	if (!st->res || st->row < 0 || st->row >= st->nrows || i < 0 ||
	    i >= PQnfields(st->res) || PQgetisnull(st->res, st->row, i))
		return NULL;
	return PQgetvalue(st->res, st->row, i);
}

const char *history_col(struct history_stmt *st, int i)
{
	return st->lite ? (const char *)sqlite3_column_text(st->lite, i) : pg_value(st, i);
}

/* A boolean reads as 1 or 0, as SQLite's comparisons give. */
long long history_col_int64(struct history_stmt *st, int i)
{
	const char *v;

	if (st->lite)
		return sqlite3_column_int64(st->lite, i);
	v = pg_value(st, i);
	if (!v)
		return 0;
	if (!strcmp(v, "t") || !strcmp(v, "f"))
		return *v == 't';
	return strchr(v, '.') || strchr(v, 'e') ? (long long)strtod(v, NULL)
						: strtoll(v, NULL, 10);
}

double history_col_double(struct history_stmt *st, int i)
{
	const char *v;

	if (st->lite)
		return sqlite3_column_double(st->lite, i);
	v = pg_value(st, i);
	return v ? strtod(v, NULL) : 0.0;
}

bool history_col_null(struct history_stmt *st, int i)
{
	return st->lite ? sqlite3_column_type(st->lite, i) == SQLITE_NULL : !pg_value(st, i);
}

int history_col_bytes(struct history_stmt *st, int i)
{
	if (st->lite)
		return sqlite3_column_bytes(st->lite, i);
	return pg_value(st, i) ? PQgetlength(st->res, st->row, i) : 0;
}

int history_sql_error(struct history_db *db, int rc, const char *what, struct error *err)
{
	int base = rc & 0xff;

	if (db->dialect == HISTORY_PG)
		return history_pg_error(db, what, err);
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

#include "orchestrator/history/db_trust.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/fsutil.h"
#include "common/owned.h"
#include "common/strbuf.h"
#include "common/xalloc.h"

int history_trust_path(const char *path, bool create, struct error *err)
{
	cleanup_free char *dir = xstrdup(path);
	char *slash = strrchr(dir, '/');
	struct stat st;
	const char *why;
	int fd;

	if (slash == dir)
		slash[1] = '\0';
	else if (slash)
		*slash = '\0';
	else
		strcpy(dir, ".");
	if (create && fs_mkdir_p(dir, 0700, err) < 0)
		return error_prefix(err, "history database %s: ", path);
	if ((fd = owned_dir_open(dir, "the directory of history database", 0, err)) < 0) {
		err->kind = err->status == ENOENT && !create ? ERR_NOT_FOUND : ERR_USAGE;
		return error_append(err, "; use a --db of your own");
	}
	close(fd);
	if (lstat(path, &st) < 0) {
		if (errno != ENOENT)
			return error_errno(err, "history database %s", path);
		return create ? 0 : error_set(err, ERR_NOT_FOUND, 0, "no history database %s", path);
	}
	if (S_ISLNK(st.st_mode))
		return error_set(err, ERR_USAGE, 0, "history database %s is a symlink: refused; "
				 "use a --db of your own", path);
	why = S_ISREG(st.st_mode) ? owned_problem(&st, 0) : "is not a regular file";
	if (why)
		return error_set(err, ERR_USAGE, 0, "history database %s %s: refused; use a --db "
				 "of your own", path, why);
	return 0;
}

int history_trust_harden(sqlite3 *h)
{
	int on = 1, off = 0;

	if (sqlite3_db_config(h, SQLITE_DBCONFIG_DEFENSIVE, 1, &on) != SQLITE_OK ||
	    sqlite3_db_config(h, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, &off) != SQLITE_OK)
		return -1;
	return sqlite3_exec(h, "PRAGMA trusted_schema = OFF", NULL, NULL, NULL) == SQLITE_OK ? 0
											 : -1;
}

/* Every object but ANALYZE's statistics, one line each, in a fixed order. */
static int schema_lines(sqlite3 *h, struct strbuf *out)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if (sqlite3_prepare_v2(h,
			       "SELECT type, name, tbl_name, coalesce(sql, '') FROM sqlite_schema"
			       " WHERE name NOT LIKE 'sqlite\\_stat%' ESCAPE '\\'"
			       " ORDER BY type, name", -1, &st, NULL) != SQLITE_OK)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		for (int i = 0; i < 4; i++)
			strbuf_addf(out, "%s%c", (const char *)sqlite3_column_text(st, i),
				    i < 3 ? ' ' : '\n');
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* The first line of have that want lacks: the object to name. */
static void first_extra(const char *have, const char *want, struct strbuf *out)
{
	for (const char *p = have; *p;) {
		size_t n = strcspn(p, "\n");
		bool found = false;

		for (const char *q = want; *q && !found;) {
			size_t m = strcspn(q, "\n");

			found = m == n && !memcmp(p, q, n);
			q += m + (q[m] == '\n');
		}
		if (!found) {
			/* "type name": enough to find it, never its SQL. */
			const char *sp = memchr(p, ' ', n);
			const char *sp2 = sp ? memchr(sp + 1, ' ', n - (size_t)(sp + 1 - p)) : NULL;

			strbuf_add(out, p, sp2 ? (size_t)(sp2 - p) : n);
			return;
		}
		p += n + (p[n] == '\n');
	}
}

int history_trust_schema(sqlite3 *h, const char *const *migrations, int version,
			 const char *path, struct error *err)
{
	cleanup_strbuf struct strbuf have = STRBUF_INIT, want = STRBUF_INIT, what = STRBUF_INIT;
	sqlite3 *mem = NULL;
	int rc = 0;

	if (sqlite3_open(":memory:", &mem) != SQLITE_OK)
		rc = error_set(err, ERR_SYSTEM, 0, "an in-memory database: %s", sqlite3_errmsg(mem));
	for (int v = 0; rc == 0 && v < version; v++)
		if (sqlite3_exec(mem, migrations[v], NULL, NULL, NULL) != SQLITE_OK)
			rc = error_set(err, ERR_SYSTEM, 0, "migration %d in memory: %s", v,
				       sqlite3_errmsg(mem));
	if (rc == 0 && (schema_lines(mem, &want) < 0 || schema_lines(h, &have) < 0))
		rc = error_set(err, ERR_DATA, 0, "history database %s: its schema cannot be read",
			       path);
	if (rc == 0 && strcmp(have.buf, want.buf)) {
		first_extra(have.buf, want.buf, &what);
		rc = error_set(err, ERR_DATA, 0,
			       "history database %s has %s, which this tool's schema %d does not: "
			       "refused (move it aside; the sweeps' results files rebuild it)",
			       path, what.len ? what.buf : "a changed definition", version);
	}
	sqlite3_close(mem);
	return rc;
}

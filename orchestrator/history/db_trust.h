/* Whether a history database may be opened and written (docs/security.md
 * "What is trusted"): the file and its directory must be the caller's and
 * not writable by others, the file not a symlink; its schema must be the
 * one this tool's migrations build, object for object, so a planted
 * trigger or view never runs. */
#ifndef HRR_HISTORY_DB_TRUST_H
#define HRR_HISTORY_DB_TRUST_H

#include <stdbool.h>
#include <sqlite3.h>

#include "common/error.h"

/* The path before SQLite sees it. create: make a missing directory (0700).
 * A missing file is fine (ERR_NOT_FOUND when !create: nothing to read).
 * Refusals are ERR_USAGE naming the path (it came from --db,
 * HRR_HISTORY_DB or XDG_DATA_HOME). */
int history_trust_path(const char *path, bool create, struct error *err)
	__attribute__((warn_unused_result));

/* SQLite's own defences on an open handle: defensive mode (no writes to
 * the schema table, no PRAGMA writable_schema) and untrusted schema (no
 * functions with side effects from views or triggers). */
int history_trust_harden(sqlite3 *h) __attribute__((warn_unused_result));

/* The schema of h, at user_version `version`, against what migrations[0]
 * to migrations[version - 1] build in :memory: an extra trigger, view, table or
 * index, or a changed definition, is ERR_DATA naming it (sqlite_stat*
 * tables, which ANALYZE makes, are allowed). */
int history_trust_schema(sqlite3 *h, const char *const *migrations, int version,
			 const char *path, struct error *err) __attribute__((warn_unused_result));

#endif

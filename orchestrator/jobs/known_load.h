/* The known-issues file of a command's work (docs/sweep.md "Known
 * issues"): read once, whose it may be checked, its expired rules said
 * through the events. */
#ifndef HRR_JOBS_KNOWN_LOAD_H
#define HRR_JOBS_KNOWN_LOAD_H

#include <stdbool.h>

#include "common/error.h"
#include "common/events.h"
#include "orchestrator/finding/known_issues.h"

/* Where the file came from, which decides whose file it may be
 * (docs/security.md "What is trusted"). */
enum known_from {
	/* --known-issues FILE: a team's shared file may be someone else's
	 * when nobody else can write it or its directories; its notify: URLs
	 * are then ignored, with a warning, unless the caller or root owns it. */
	KNOWN_NAMED,
	/* known-issues.yaml beside the database: the database's rule (the
	 * caller's, not writable by others, no symlink). */
	KNOWN_BESIDE,
	/* The same, and a missing file is no rules (a sweep's default). */
	KNOWN_BESIDE_IF_ANY,
};

/* known-issues.yaml beside the history database at db_path: the file a
 * sweep and `history known` read without --known-issues. Caller frees.
 * NULL for a history on a server: there is no "beside" (--known-issues
 * names its file). */
char *known_load_beside(const char *db_path);
/* Reads path into out (*have set) and warns once per expired rule. A
 * missing file is an error but for KNOWN_BESIDE_IF_ANY; a bad or refused
 * file is an error. Errors are ERR_USAGE: the command exits 64. */
int known_load(const char *path, enum known_from from, struct known_issues *out, bool *have,
	       const struct job_events *ev, struct error *err) __attribute__((warn_unused_result));

#endif

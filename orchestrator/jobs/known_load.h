/* The known-issues file of a command's work (docs/sweep.md "Known
 * issues"): read once, its expired rules said through the events. */
#ifndef HRR_JOBS_KNOWN_LOAD_H
#define HRR_JOBS_KNOWN_LOAD_H

#include <stdbool.h>

#include "common/error.h"
#include "common/events.h"
#include "orchestrator/finding/known_issues.h"

/* known-issues.yaml beside the history database at db_path: the file a
 * sweep and `history known` read without --known-issues. Caller frees. */
char *known_load_beside(const char *db_path);
/* Reads path into out (*have set) and warns once per expired rule. A
 * missing file is no rules when missing_ok (the sweep's default beside
 * the database), else an error; a bad file is an error. Errors are
 * ERR_USAGE: the command exits 64. */
int known_load(const char *path, bool missing_ok, struct known_issues *out, bool *have,
	       const struct job_events *ev, struct error *err) __attribute__((warn_unused_result));

#endif

/* --known-issues for `run`, `analyze` and `history` (docs/sweep.md "Known
 * issues"): the file read once per command, its expired rules said on the
 * terminal (a sweep's are its job's, orchestrator/jobs/known_load.h). */
#ifndef HRR_CLI_CMD_KNOWN_H
#define HRR_CLI_CMD_KNOWN_H

#include <stdbool.h>

#include "common/error.h"
#include "orchestrator/finding/known_issues.h"
#include "orchestrator/jobs/known_load.h"

/* known-issues.yaml beside the history database at db_path: the file a
 * sweep and `history known` read without --known-issues. Caller frees. */
char *cmd_known_beside(const char *db_path);
/* known_load with the terminal's events. */
int cmd_known_load(const char *path, enum known_from from, struct known_issues *out, bool *have,
		   struct error *err) __attribute__((warn_unused_result));

#endif

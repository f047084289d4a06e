/* --known-issues for `run`, `analyze` and `sweep` (docs/sweep.md "Known
 * issues"): the file read once per command, its expired rules said. */
#ifndef HRR_CLI_CMD_KNOWN_H
#define HRR_CLI_CMD_KNOWN_H

#include <stdbool.h>

#include "common/error.h"
#include "orchestrator/finding/known_issues.h"

/* Reads path into out (*have set) and warns once per expired rule. A
 * missing file is no rules when missing_ok (the sweep's default beside
 * the database), else an error; a bad file is an error. Errors are
 * ERR_USAGE: the command exits 64. */
/* known-issues.yaml beside the history database at db_path: the file a
 * sweep and `history known` read without --known-issues. Caller frees. */
char *cmd_known_beside(const char *db_path);
int cmd_known_load(const char *path, bool missing_ok, struct known_issues *out, bool *have,
		   struct error *err) __attribute__((warn_unused_result));

#endif

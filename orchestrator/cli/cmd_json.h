/* `--format json` prints exactly one JSON object per result on stdout, on
 * every path, so `| jq .exit` always parses (docs/cli.md "Output streams"):
 *   a finding:  the finding's keys, plus "exit";
 *   otherwise:  {"outcome": null, "exit": N, "stage": "...", "error": "...",
 *               "run_dir": "..." | null}
 *   preflight:  the second form with "preflight": {"verdict", "messages"}. */
#ifndef HRR_CLI_CMD_JSON_H
#define HRR_CLI_CMD_JSON_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "orchestrator/replay/replay_unit.h"

/* The object for a result without a finding (f may be NULL: no error). */
cJSON *cmd_json_no_finding(int exit_code, const struct replay_failure *f, const char *run_dir);
/* A copy of the finding with "exit" added. */
cJSON *cmd_json_finding(const cJSON *finding, int exit_code);
struct cmd_env;

/* --format json: emit j (taken) as one object (cmd_setup.h's env). */
void cmd_emit_json(struct cmd_env *env, cJSON *j);
/* Printed form, ending in a newline (caller frees). */
char *cmd_json_text(const cJSON *j);
/* Pure: does this command line ask for --format json? Used when parsing
 * failed and the options are not known (a usage error still answers in
 * JSON). */
bool cmd_json_requested(int argc, char **argv);
/* A usage error: said on stderr, and as the JSON object on stdout when the
 * command line asked for JSON. Returns EXIT_USAGE. */
int cmd_usage_error(int argc, char **argv, const char *msg);

#endif

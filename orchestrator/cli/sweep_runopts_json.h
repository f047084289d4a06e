/* The one description of a case's run options (docs/sweep.md
 * "The sweep folder"): which fields of struct options a replay depends
 * on, as JSON.
 * A new sweep builds it once from the options, writes it to the caller's
 * own 0600 file in its sweep folder (sweep_folder.c) and runs its local
 * workers from it; Slurm tasks and `--resume` read the same file back. A
 * new run option is carried by one line of the table in sweep_runopts_json.c;
 * tests/unit/test_sweep_options.c fails while a run option of the option
 * table is neither carried nor listed as belonging to one invocation. */
#ifndef HRR_CLI_SWEEP_RUNOPTS_JSON_H
#define HRR_CLI_SWEEP_RUNOPTS_JSON_H

#include <stdbool.h>
#include <cjson/cJSON.h>

#include "orchestrator/cli/options.h"
#include "orchestrator/sweep/sweep_folder.h" /* sweep_runopts_redact */

/* Every carried run option as a JSON object. with_values false: what may
 * be shown to others (plan.json, the history database): `-e` values are
 * left out, their names kept under "env_names". */
cJSON *sweep_runopts_to_json(const struct options *o, bool with_values);
/* Overlay a recorded description onto o (absent fields stay; a redacted
 * one leaves o's env as it is). ERR_DATA when a list entry does not pass
 * the command line's checks. Recorded code objects come back without a
 * host file (kernel_replacements_attach gives them the sweep's copy). */
int sweep_runopts_from_json(struct options *o, const cJSON *j, struct error *err)
	__attribute__((warn_unused_result));

/* Whether the description carries the option-table option id. */
bool sweep_runopts_carries(int option_id);
/* The run options deliberately not carried (each belongs to one
 * invocation or is recorded elsewhere; the reasons are in the .c), ended
 * by 0. */
extern const int sweep_runopts_per_invocation[];

#endif

/* The run options of a sweep recorded in plan.json, so that `--resume` and
 * every shard replay each case the way the sweep started it. */
#ifndef HRR_CLI_SWEEP_RUNOPTS_H
#define HRR_CLI_SWEEP_RUNOPTS_H

#include <cjson/cJSON.h>

#include "cli/options.h"

/* The options a case's replay depends on, as a JSON object. */
cJSON *sweep_runopts_to_json(const struct options *o);
/* Overlay what plan.json recorded onto o (absent fields stay). */
void sweep_runopts_from_json(struct options *o, const cJSON *j);

#endif

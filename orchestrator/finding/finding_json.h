/* The finding's codec: struct finding -> finding.json (docs/findings.md).
 * The file's readers decide by the typed values (the verdict, the
 * signature), never by reading its keys back. */
#ifndef HRR_FINDING_FINDING_JSON_H
#define HRR_FINDING_FINDING_JSON_H

#include <cjson/cJSON.h>

#include "orchestrator/finding/finding.h"

/* finding.json: every key of docs/findings.md (unset = null or []), then
 * labels, d2h_failures, gpu_time_ms (null when not printed), preflight
 * (preflight_to_json, or null when preflight did not run, as in analyze)
 * and run (only when ctx->run). ctx may be NULL. */
cJSON *finding_to_json(const struct finding *f, const struct finding_context *ctx);
/* The caveats' part (orchestrator/finding/caveats.h): finding.json's
 * "placement" (object or null) and "runtime_libraries". */
void finding_caveats_json(const struct finding *f, cJSON *o);

#endif

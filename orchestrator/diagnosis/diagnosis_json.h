/* A diagnosis's codec: struct diagnosis -> finding.json's "diagnosis"
 * object (docs/gpu-debug-tools.md). */
#ifndef HRR_DIAGNOSIS_JSON_H
#define HRR_DIAGNOSIS_JSON_H

#include <cjson/cJSON.h>

#include "orchestrator/diagnosis/diagnosis.h"

cJSON *diagnosis_to_json(const struct diagnosis *d);

#endif

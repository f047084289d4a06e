/* The preflight report's codec: struct preflight_report -> the finding's
 * "preflight" object, {"verdict", "messages": ["BLOCK: ...", ...]}. */
#ifndef HRR_PREFLIGHT_JSON_H
#define HRR_PREFLIGHT_JSON_H

#include <cjson/cJSON.h>

#include "preflight/preflight.h"

cJSON *preflight_to_json(const struct preflight_report *r);

#endif

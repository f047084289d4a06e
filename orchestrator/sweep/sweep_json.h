/* Small cJSON accessors the sweep files share (plan.json, results lines):
 * absent or mistyped fields read as NULL / the default, never a crash. */
#ifndef HRR_SWEEP_SWEEP_JSON_H
#define HRR_SWEEP_SWEEP_JSON_H

#include <cjson/cJSON.h>

#include "common/json.h"
#include "common/xalloc.h"

/* A copy of the string field k, or NULL. */
static inline char *sjson_str(const cJSON *o, const char *k)
{
	const char *s = json_str(o, k);

	return s ? xstrdup(s) : NULL;
}

static inline double sjson_num(const cJSON *o, const char *k, double dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

#endif

/* The one reader of a string field of a cJSON object, for the engine's
 * answers, labels, findings and the sweep's records alike: absent or
 * mistyped reads as NULL, never a crash. */
#ifndef HRR_COMMON_JSON_H
#define HRR_COMMON_JSON_H

#include <cjson/cJSON.h>

/* The string field k of o (o may be NULL), or NULL. Owned by o. */
static inline const char *json_str(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

#endif

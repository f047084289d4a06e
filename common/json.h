/* The one reader and the one writer of a string field of a cJSON object,
 * for the engine's answers, labels, findings, reports and the sweep's
 * records alike: absent or mistyped reads as NULL, never a crash; NULL
 * writes null, and nothing written is invalid UTF-8. */
#ifndef HRR_COMMON_JSON_H
#define HRR_COMMON_JSON_H

#include <cjson/cJSON.h>

#include "common/text.h"

/* The string field k of o (o may be NULL), or NULL. Owned by o. */
static inline const char *json_str(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* Set the string field k of o to v, or null for NULL. v goes through
 * text_sanitized(v, flags) (common/text.h), so a strict JSON reader never
 * meets an invalid byte: valid UTF-8 text the flags keep is written as is.
 * JSON_TEXT: any text we record (a name, a path, a message): ANSI dropped,
 * '\n' and '\t' kept. */
#define JSON_TEXT (TEXT_STRIP_ANSI | TEXT_KEEP_NEWLINES | TEXT_KEEP_TABS)
void json_add_str(cJSON *o, const char *k, const char *v, unsigned flags);

#endif

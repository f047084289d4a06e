/* The one reader of a field of a cJSON object, and the one writer of a
 * string field, for the engine's answers, labels, findings, reports and
 * the sweep's records alike. A read never crashes: o may be NULL or not an
 * object, and a field that is absent or of another type reads as NULL (or
 * the caller's fallback); NULL writes null, and nothing written is invalid
 * UTF-8. The pointers returned are owned by o. */
#ifndef HRR_COMMON_JSON_H
#define HRR_COMMON_JSON_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "common/text.h"

/* The field k of o whatever its type, or NULL: for a caller that decides
 * by the type itself (null against absent, a list against anything else).
 * Not const, as cJSON's own lookup: a caller that owns o may edit it. */
static inline cJSON *json_get(const cJSON *o, const char *k)
{
	return cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, k) : NULL;
}

/* The object field k of o, or NULL. */
static inline cJSON *json_obj(const cJSON *o, const char *k)
{
	cJSON *v = json_get(o, k);

	return cJSON_IsObject(v) ? v : NULL;
}

/* The array field k of o, or NULL (cJSON_ArrayForEach takes NULL). */
static inline cJSON *json_arr(const cJSON *o, const char *k)
{
	cJSON *v = json_get(o, k);

	return cJSON_IsArray(v) ? v : NULL;
}

/* The string v is (an array's item, an object's member), or NULL. */
static inline const char *json_str_of(const cJSON *v)
{
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* The string field k of o, or NULL. */
static inline const char *json_str(const cJSON *o, const char *k)
{
	return json_str_of(json_get(o, k));
}

/* The string item i of the array a, or NULL (i out of range too). */
static inline const char *json_arr_str(const cJSON *a, int i)
{
	return cJSON_IsArray(a) && i >= 0 ? json_str_of(cJSON_GetArrayItem(a, i)) : NULL;
}

/* The number field k of o, or fallback. */
static inline double json_num(const cJSON *o, const char *k, double fallback)
{
	const cJSON *v = json_get(o, k);

	return cJSON_IsNumber(v) ? v->valuedouble : fallback;
}

/* The boolean field k of o, or fallback. */
static inline bool json_bool(const cJSON *o, const char *k, bool fallback)
{
	const cJSON *v = json_get(o, k);

	return cJSON_IsBool(v) ? cJSON_IsTrue(v) : fallback;
}

/* An integer (the engine's sizes, times, exit codes): v's value when it is
 * a number in [lo, hi], truncated toward zero; fallback otherwise (not a
 * number, out of range): never a cast out of range. */
long long json_int_of(const cJSON *v, long long lo, long long hi, long long fallback);

/* The integer field k of o, as json_int_of(). */
static inline long long json_int(const cJSON *o, const char *k, long long lo, long long hi,
				 long long fallback)
{
	return json_int_of(json_get(o, k), lo, hi, fallback);
}

/* Set the string field k of o to v, or null for NULL. v goes through
 * text_sanitized(v, flags) (common/text.h), so a strict JSON reader never
 * meets an invalid byte: valid UTF-8 text the flags keep is written as is.
 * JSON_TEXT: any text we record (a name, a path, a message): ANSI dropped,
 * '\n' and '\t' kept. */
#define JSON_TEXT (TEXT_STRIP_ANSI | TEXT_KEEP_NEWLINES | TEXT_KEEP_TABS)
void json_add_str(cJSON *o, const char *k, const char *v, unsigned flags);
/* Set the string field k of o to v as it is, or null for NULL: for text
 * this program made (a name from a codec's table, a hash, a time). */
void json_add_str_or_null(cJSON *o, const char *k, const char *v);

#endif

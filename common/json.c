#include "common/json.h"

#include <stdlib.h>

long long json_int_of(const cJSON *v, long long lo, long long hi, long long fallback)
{
	double d;

	if (!cJSON_IsNumber(v))
		return fallback;
	d = v->valuedouble;
	/* Comparisons with NaN are false: it ends here too. */
	if (!(d >= (double)lo && d <= (double)hi))
		return fallback;
	/* (double)hi may round up to 2^63: keep the cast in range. */
	if (d >= 9223372036854775807.0)
		return hi;
	return (long long)d;
}

void json_add_str_or_null(cJSON *o, const char *k, const char *v)
{
	if (v)
		cJSON_AddStringToObject(o, k, v);
	else
		cJSON_AddNullToObject(o, k);
}

void json_add_str(cJSON *o, const char *k, const char *v, unsigned flags)
{
	char *clean = v ? text_sanitized(v, flags) : NULL;

	json_add_str_or_null(o, k, clean);
	free(clean);
}

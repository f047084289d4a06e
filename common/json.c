#include "common/json.h"

#include <stdlib.h>

void json_add_str(cJSON *o, const char *k, const char *v, unsigned flags)
{
	char *clean = v ? text_sanitized(v, flags) : NULL;

	if (clean)
		cJSON_AddStringToObject(o, k, clean);
	else
		cJSON_AddNullToObject(o, k);
	free(clean);
}

/* The preflight report's JSON (preflight_json.h). */
#include "preflight/preflight_json.h"

#include <stdlib.h>

#include "common/xalloc.h"

static void push_prefixed(cJSON *arr, const char *prefix, const struct strvec *v)
{
	for (size_t i = 0; i < v->n; i++) {
		char *s = xasprintf("%s: %s", prefix, v->v[i]);

		cJSON_AddItemToArray(arr, cJSON_CreateString(s));
		free(s);
	}
}

cJSON *preflight_to_json(const struct preflight_report *r)
{
	cJSON *o = cJSON_CreateObject();
	cJSON *msgs;

	if (!o)
		xdie("out of memory (cJSON)");
	cJSON_AddStringToObject(o, "verdict", preflight_verdict_name(r->verdict));
	msgs = cJSON_AddArrayToObject(o, "messages");
	if (!msgs)
		xdie("out of memory (cJSON)");
	push_prefixed(msgs, "BLOCK", &r->blocks);
	push_prefixed(msgs, "CONFIRM", &r->confirms);
	push_prefixed(msgs, "WARN", &r->warnings);
	push_prefixed(msgs, "NOTE", &r->notes);
	return o;
}

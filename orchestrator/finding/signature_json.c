/* A failure signature's JSON (signature_json.h). */
#include "orchestrator/finding/signature_json.h"

#include "common/json.h"

cJSON *signature_to_json(const struct signature *s)
{
	cJSON *o;

	if (!s || !signature_set(s))
		return cJSON_CreateNull();
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "id", s->id);
	json_add_str_or_null(o, "outcome", s->outcome);
	json_add_str_or_null(o, "fault_class", s->fault_class);
	json_add_str_or_null(o, "kernel_family", s->kernel_family);
	json_add_str_or_null(o, "evidence", s->evidence);
	json_add_str_or_null(o, "stop_reason", s->stop_reason);
	cJSON_AddBoolToObject(o, "partial", s->partial);
	return o;
}

void signature_from_json(struct signature *s, const cJSON *o)
{
	signature_release(s);
	if (!cJSON_IsObject(o))
		return;
	signature_from_parts(s, json_str(o, "outcome"), json_str(o, "fault_class"),
			     json_str(o, "kernel_family"), json_str(o, "evidence"),
			     json_str(o, "stop_reason"),
			     cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "partial")));
}

/* A diagnosis for machines (diagnosis_json.h). Every string passes through
 * common/text.h: kernel names come from the archive, the rest from a
 * tool's output. */
#include "orchestrator/diagnosis/diagnosis_json.h"

#include <stdlib.h>
#include <string.h>

#include "common/json.h"
#include "common/text.h"

static cJSON *str_array(const struct strvec *sv)
{
	cJSON *a = cJSON_CreateArray();

	for (size_t i = 0; i < sv->n; i++) {
		char *clean = text_sanitized(sv->v[i], TEXT_STRIP_ANSI);

		cJSON_AddItemToArray(a, cJSON_CreateString(clean));
		free(clean);
	}
	return a;
}

static cJSON *dispatch_json(const struct diagnosis_dispatch *x)
{
	cJSON *o = cJSON_CreateObject();

	json_add_str(o, "id", x->id, TEXT_STRIP_ANSI);
	json_add_str(o, "queue_id", x->queue_id, TEXT_STRIP_ANSI);
	json_add_str(o, "target_id", x->target_id, TEXT_STRIP_ANSI);
	json_add_str(o, "grid", x->grid, TEXT_STRIP_ANSI);
	json_add_str(o, "workgroup", x->workgroup, TEXT_STRIP_ANSI);
	json_add_str(o, "kernel", x->kernel, TEXT_STRIP_ANSI);
	json_add_str(o, "kernel_from", x->kernel_from, TEXT_STRIP_ANSI);
	return o;
}

cJSON *diagnosis_to_json(const struct diagnosis *d)
{
	cJSON *o = cJSON_CreateObject(), *disp = cJSON_CreateArray();
	char *expl = diagnosis_explain(d->kernel, d->reason);

	json_add_str(o, "tool", diagnosis_tool_name(d->tool), TEXT_STRIP_ANSI);
	json_add_str(o, "status", diagnosis_status_name(d->status), TEXT_STRIP_ANSI);
	json_add_str(o, "summary", d->summary, TEXT_STRIP_ANSI);
	json_add_str(o, "kernel", d->kernel, TEXT_STRIP_ANSI);
	json_add_str(o, "kernel_from", d->kernel_from, TEXT_STRIP_ANSI);
	json_add_str(o, "reason", d->reason, TEXT_STRIP_ANSI);
	json_add_str(o, "pc", d->pc, TEXT_STRIP_ANSI);
	json_add_str(o, "instruction", d->instruction, TEXT_STRIP_ANSI);
	json_add_str(o, "loaded_at", d->loaded_at, TEXT_STRIP_ANSI);
	if (d->waves >= 0)
		cJSON_AddNumberToObject(o, "waves", (double)d->waves);
	else
		cJSON_AddNullToObject(o, "waves");
	if (d->tool_exit >= 0)
		cJSON_AddNumberToObject(o, "exit_status", d->tool_exit);
	else
		cJSON_AddNullToObject(o, "exit_status");
	json_add_str(o, "stderr", d->tool_stderr, TEXT_STRIP_ANSI);
	for (size_t i = 0; i < d->n_dispatches; i++)
		cJSON_AddItemToArray(disp, dispatch_json(&d->dispatches[i]));
	cJSON_AddItemToObject(o, "dispatches", disp);
	cJSON_AddItemToObject(o, "code_objects", str_array(&d->code_objects));
	json_add_str(o, "explanation", expl, TEXT_STRIP_ANSI);
	cJSON_AddItemToObject(o, "files", str_array(&d->files));
	cJSON_AddItemToObject(o, "notes", str_array(&d->notes));
	json_add_str(o, "caveat", d->status == DIAGNOSIS_OK ? diagnosis_caveat : NULL, TEXT_STRIP_ANSI);
	free(expl);
	return o;
}

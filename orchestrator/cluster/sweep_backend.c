#include "orchestrator/cluster/sweep_backend.h"

#include <string.h>

#include <cjson/cJSON.h>

#include "common/cleanup.h"

extern const struct sweep_backend slurm_backend; /* orchestrator/cluster/slurm_backend.c */

static const struct sweep_backend *const sweep_backends[] = { &slurm_backend };

#define N_BACKENDS (sizeof(sweep_backends) / sizeof(sweep_backends[0]))

const struct sweep_backend *sweep_backend_named(const char *name)
{
	for (size_t i = 0; name && i < N_BACKENDS; i++)
		if (!strcmp(sweep_backends[i]->name, name))
			return sweep_backends[i];
	return NULL;
}

const struct sweep_backend *sweep_backend_of_task(void)
{
	for (size_t i = 0; i < N_BACKENDS; i++)
		if (sweep_backends[i]->task_here())
			return sweep_backends[i];
	return NULL;
}

void sweep_backends_status(const char *folder, struct strbuf *out)
{
	for (size_t i = 0; i < N_BACKENDS; i++)
		sweep_backends[i]->status(folder, out);
}

char *sweep_backends_task_tag(void)
{
	for (size_t i = 0; i < N_BACKENDS; i++) {
		char *r = sweep_backends[i]->task_tag();

		if (r)
			return r;
	}
	return NULL;
}

/* {"name": name, "record": text parsed}, or NULL when text is not JSON. */
static char *stored(const char *name, const char *text)
{
	cleanup_cjson cJSON *o = cJSON_CreateObject();
	cJSON *record = cJSON_Parse(text);

	if (!record)
		return NULL;
	cJSON_AddStringToObject(o, "name", name);
	cJSON_AddItemToObject(o, "record", record);
	return cJSON_PrintUnformatted(o);
}

char *sweep_backends_record(const char *folder)
{
	for (size_t i = 0; i < N_BACKENDS; i++) {
		cleanup_free char *r = sweep_backends[i]->record(folder);

		if (r)
			return stored(sweep_backends[i]->name, r);
	}
	return NULL;
}

#include "cli/sweep_runopts.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"

enum kind { K_LONG, K_BOOL, K_STR, K_LIST, K_INT };

static const struct {
	const char *key;
	enum kind kind;
	size_t off;
} fields[] = {
	{ "timeout_s", K_LONG, offsetof(struct options, timeout_s) },
	{ "progress_timeout_s", K_LONG, offsetof(struct options, progress_timeout_s) },
	{ "stop_grace_s", K_LONG, offsetof(struct options, stop_grace_s) },
	{ "progress_seconds", K_LONG, offsetof(struct options, progress_seconds) },
	{ "pull", K_INT, offsetof(struct options, pull) },
	{ "no_sync", K_BOOL, offsetof(struct options, no_sync) },
	{ "mount_clr", K_BOOL, offsetof(struct options, mount_clr) },
	{ "yes", K_BOOL, offsetof(struct options, yes) },
	{ "skip_preflight", K_BOOL, offsetof(struct options, skip_preflight) },
	{ "strict_version", K_BOOL, offsetof(struct options, strict_version) },
	{ "strict_arch", K_BOOL, offsetof(struct options, strict_arch) },
	{ "keep", K_BOOL, offsetof(struct options, keep) },
	{ "playback", K_STR, offsetof(struct options, playback) },
	{ "device_root", K_STR, offsetof(struct options, device_root) },
	{ "sysfs_root", K_STR, offsetof(struct options, sysfs_root) },
	{ "extra_ld", K_LIST, offsetof(struct options, extra_ld) },
	{ "env", K_LIST, offsetof(struct options, env) },
	{ "cap_add", K_LIST, offsetof(struct options, cap_add) },
	{ "diagnose", K_INT, offsetof(struct options, diagnose) },
	{ "diagnose_timeout_s", K_LONG, offsetof(struct options, diagnose_timeout_s) },
};

#define N_FIELDS (sizeof(fields) / sizeof(fields[0]))

cJSON *sweep_runopts_to_json(const struct options *o)
{
	cJSON *j = cJSON_CreateObject();

	for (size_t i = 0; i < N_FIELDS; i++) {
		const char *p = (const char *)o + fields[i].off;

		switch (fields[i].kind) {
		case K_LONG: cJSON_AddNumberToObject(j, fields[i].key, (double)*(const long *)p); break;
		case K_INT: cJSON_AddNumberToObject(j, fields[i].key, *(const int *)p); break;
		case K_BOOL: cJSON_AddBoolToObject(j, fields[i].key, *(const bool *)p); break;
		case K_STR:
			if (*(char *const *)p)
				cJSON_AddStringToObject(j, fields[i].key, *(char *const *)p);
			break;
		case K_LIST: {
			const struct strvec *sv = (const struct strvec *)p;
			cJSON *a = cJSON_AddArrayToObject(j, fields[i].key);

			for (size_t k = 0; k < sv->n; k++)
				cJSON_AddItemToArray(a, cJSON_CreateString(sv->v[k]));
			break;
		}
		}
	}
	return j;
}

void sweep_runopts_from_json(struct options *o, const cJSON *j)
{
	for (size_t i = 0; i < N_FIELDS; i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, fields[i].key), *it;
		char *p = (char *)o + fields[i].off;

		if (!v)
			continue;
		switch (fields[i].kind) {
		case K_LONG:
			if (cJSON_IsNumber(v))
				*(long *)p = (long)v->valuedouble;
			break;
		case K_INT:
			if (cJSON_IsNumber(v))
				*(int *)p = v->valueint;
			break;
		case K_BOOL:
			if (cJSON_IsBool(v))
				*(bool *)p = cJSON_IsTrue(v);
			break;
		case K_STR:
			if (cJSON_IsString(v)) {
				free(*(char **)p);
				*(char **)p = xstrdup(v->valuestring);
			}
			break;
		case K_LIST:
			strvec_clear((struct strvec *)p);
			cJSON_ArrayForEach(it, v)
				if (cJSON_IsString(it))
					strvec_push((struct strvec *)p, it->valuestring);
			break;
		}
	}
}

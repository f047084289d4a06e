/* Container specs: building them, and the pure JSON body of POST
 * /containers/create they become (the form dockerd takes; see
 * docker/containers.c for what another engine flavour changes). */
#include "docker/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/xalloc.h"

void container_spec_init(struct container_spec *s)
{
	memset(s, 0, sizeof(*s));
	strvec_init(&s->entrypoint);
	strvec_init(&s->cmd);
	strvec_init(&s->env);
	strvec_init(&s->labels);
	strvec_init(&s->group_add);
	strvec_init(&s->cdi_devices);
	strvec_init(&s->cap_add);
	strvec_init(&s->cap_drop);
	strvec_init(&s->security_opt);
	s->stop_timeout = -1;
}

void container_spec_release(struct container_spec *s)
{
	free(s->image);
	strvec_clear(&s->entrypoint);
	strvec_clear(&s->cmd);
	strvec_clear(&s->env);
	strvec_clear(&s->labels);
	free(s->working_dir);
	free(s->user);
	for (size_t i = 0; i < s->n_devices; i++) {
		free(s->devices[i].path_on_host);
		free(s->devices[i].path_in_container);
		free(s->devices[i].cgroup_permissions);
	}
	free(s->devices);
	for (size_t i = 0; i < s->n_mounts; i++) {
		free(s->mounts[i].source);
		free(s->mounts[i].target);
	}
	free(s->mounts);
	for (size_t i = 0; i < s->n_ulimits; i++)
		free(s->ulimits[i].name);
	free(s->ulimits);
	strvec_clear(&s->group_add);
	strvec_clear(&s->cdi_devices);
	strvec_clear(&s->cap_add);
	strvec_clear(&s->cap_drop);
	strvec_clear(&s->security_opt);
	free(s->seccomp_profile);
	free(s->network_mode);
	free(s->log_max_file);
	container_spec_init(s);
}

void container_spec_add_device(struct container_spec *s, const char *host,
			       const char *in_container, const char *perms)
{
	struct container_device *d;

	s->devices = xrealloc(s->devices, (s->n_devices + 1) * sizeof(*s->devices));
	d = &s->devices[s->n_devices++];
	d->path_on_host = xstrdup(host);
	d->path_in_container = xstrdup(in_container ? in_container : host);
	d->cgroup_permissions = xstrdup_or_null(perms);
}

void container_spec_add_mount(struct container_spec *s, const char *source,
			      const char *target, bool read_only)
{
	struct container_mount *m;

	s->mounts = xrealloc(s->mounts, (s->n_mounts + 1) * sizeof(*s->mounts));
	m = &s->mounts[s->n_mounts++];
	m->source = xstrdup(source);
	m->target = xstrdup(target);
	m->read_only = read_only;
}

void container_spec_add_ulimit(struct container_spec *s, const char *name,
			       long long soft, long long hard)
{
	struct container_ulimit *u;

	s->ulimits = xrealloc(s->ulimits, (s->n_ulimits + 1) * sizeof(*s->ulimits));
	u = &s->ulimits[s->n_ulimits++];
	u->name = xstrdup(name);
	u->soft = soft;
	u->hard = hard;
}

cJSON *engine_json_strings(const struct strvec *sv)
{
	cJSON *a = cJSON_CreateArray();

	for (size_t i = 0; i < sv->n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(sv->v[i]));
	return a;
}

static void spec_add_strings(cJSON *obj, const char *name, const struct strvec *sv)
{
	if (sv->n)
		cJSON_AddItemToObject(obj, name, engine_json_strings(sv));
}

bool engine_seccomp_is_object(const char *profile_json)
{
	const char *p = profile_json;

	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	return *p == '{';
}

/* SecurityOpt: the caller's options, then the seccomp profile (as the
 * caller gave it, or NULL) inline as dockerd takes it ("seccomp=<JSON>",
 * as the docker CLI sends it). */
static void spec_add_security_opt(cJSON *hc, const struct container_spec *s,
				  const char *seccomp)
{
	cJSON *a;

	if (!s->security_opt.n && !seccomp)
		return;
	a = engine_json_strings(&s->security_opt);
	if (seccomp) {
		cleanup_free char *opt = xasprintf("seccomp=%s", seccomp);

		cJSON_AddItemToArray(a, cJSON_CreateString(opt));
	}
	cJSON_AddItemToObject(hc, "SecurityOpt", a);
}

/* Bytes as dockerd's json-file reads max-size: "64m", "256k", "1000". */
static void spec_size_text(char *buf, size_t size, long long bytes)
{
	static const char unit[] = "gmk";

	for (int i = 0; i < 3; i++) {
		long long u = 1LL << (30 - 10 * i);

		if (bytes % u == 0) {
			snprintf(buf, size, "%lld%c", bytes / u, unit[i]);
			return;
		}
	}
	snprintf(buf, size, "%lld", bytes);
}

cJSON *engine_ulimit_json(const struct container_ulimit *u)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "Name", u->name);
	cJSON_AddNumberToObject(o, "Soft", (double)u->soft);
	cJSON_AddNumberToObject(o, "Hard", (double)u->hard);
	return o;
}

static cJSON *spec_host_config(const struct container_spec *s, const char *seccomp)
{
	cJSON *hc = cJSON_CreateObject();

	if (s->n_devices) {
		cJSON *a = cJSON_AddArrayToObject(hc, "Devices");

		for (size_t i = 0; i < s->n_devices; i++) {
			const struct container_device *d = &s->devices[i];
			cJSON *o = cJSON_CreateObject();

			cJSON_AddStringToObject(o, "PathOnHost", d->path_on_host);
			cJSON_AddStringToObject(o, "PathInContainer", d->path_in_container);
			cJSON_AddStringToObject(o, "CgroupPermissions",
						d->cgroup_permissions ? d->cgroup_permissions : "rwm");
			cJSON_AddItemToArray(a, o);
		}
	}
	if (s->cdi_devices.n) {
		cJSON *req = cJSON_CreateObject();

		cJSON_AddStringToObject(req, "Driver", "cdi");
		cJSON_AddItemToObject(req, "DeviceIDs", engine_json_strings(&s->cdi_devices));
		cJSON_AddItemToArray(cJSON_AddArrayToObject(hc, "DeviceRequests"), req);
	}
	if (s->n_mounts) {
		cJSON *a = cJSON_AddArrayToObject(hc, "Mounts");

		for (size_t i = 0; i < s->n_mounts; i++) {
			cJSON *o = cJSON_CreateObject();

			cJSON_AddStringToObject(o, "Type", "bind");
			cJSON_AddStringToObject(o, "Source", s->mounts[i].source);
			cJSON_AddStringToObject(o, "Target", s->mounts[i].target);
			cJSON_AddBoolToObject(o, "ReadOnly", s->mounts[i].read_only);
			cJSON_AddItemToArray(a, o);
		}
	}
	if (s->n_ulimits) {
		cJSON *a = cJSON_AddArrayToObject(hc, "Ulimits");

		for (size_t i = 0; i < s->n_ulimits; i++)
			cJSON_AddItemToArray(a, engine_ulimit_json(&s->ulimits[i]));
	}
	spec_add_strings(hc, "GroupAdd", &s->group_add);
	spec_add_strings(hc, "CapAdd", &s->cap_add);
	spec_add_strings(hc, "CapDrop", &s->cap_drop);
	spec_add_security_opt(hc, s, seccomp);
	if (s->network_mode)
		cJSON_AddStringToObject(hc, "NetworkMode", s->network_mode);
	cJSON_AddBoolToObject(hc, "Init", s->init);
	cJSON_AddBoolToObject(hc, "ReadonlyRootfs", s->readonly_rootfs);
	cJSON_AddBoolToObject(hc, "AutoRemove", s->auto_remove);
	if (s->pids_limit)
		cJSON_AddNumberToObject(hc, "PidsLimit", (double)s->pids_limit);
	if (s->memory)
		cJSON_AddNumberToObject(hc, "Memory", (double)s->memory);
	if (s->shm_size)
		cJSON_AddNumberToObject(hc, "ShmSize", (double)s->shm_size);
	if (s->log_max_bytes || s->log_max_file) {
		cJSON *lc = cJSON_AddObjectToObject(hc, "LogConfig");
		cJSON *cfg;

		cJSON_AddStringToObject(lc, "Type", "json-file");
		cfg = cJSON_AddObjectToObject(lc, "Config");
		if (s->log_max_bytes) {
			char size[32];

			spec_size_text(size, sizeof(size), s->log_max_bytes);
			cJSON_AddStringToObject(cfg, "max-size", size);
		}
		if (s->log_max_file)
			cJSON_AddStringToObject(cfg, "max-file", s->log_max_file);
	}
	return hc;
}

cJSON *container_spec_to_json(const struct container_spec *s)
{
	return container_spec_body(s, s->seccomp_profile);
}

cJSON *container_spec_body(const struct container_spec *s, const char *seccomp)
{
	cJSON *j = cJSON_CreateObject();

	cJSON_AddStringToObject(j, "Image", s->image ? s->image : "");
	spec_add_strings(j, "Entrypoint", &s->entrypoint);
	spec_add_strings(j, "Cmd", &s->cmd);
	spec_add_strings(j, "Env", &s->env);
	if (s->labels.n) {
		cJSON *l = cJSON_AddObjectToObject(j, "Labels");

		for (size_t i = 0; i < s->labels.n; i++) {
			const char *kv = s->labels.v[i];
			const char *eq = strchr(kv, '=');
			cleanup_free char *k = xstrndup(kv, eq ? (size_t)(eq - kv) : strlen(kv));

			cJSON_DeleteItemFromObjectCaseSensitive(l, k);
			cJSON_AddStringToObject(l, k, eq ? eq + 1 : "");
		}
	}
	if (s->working_dir)
		cJSON_AddStringToObject(j, "WorkingDir", s->working_dir);
	if (s->user)
		cJSON_AddStringToObject(j, "User", s->user);
	if (s->stop_timeout >= 0)
		cJSON_AddNumberToObject(j, "StopTimeout", s->stop_timeout);
	/* Tty false keeps stdout and stderr apart (framed logs); no stdin. */
	cJSON_AddBoolToObject(j, "Tty", false);
	cJSON_AddBoolToObject(j, "OpenStdin", false);
	cJSON_AddBoolToObject(j, "AttachStdin", false);
	cJSON_AddBoolToObject(j, "AttachStdout", true);
	cJSON_AddBoolToObject(j, "AttachStderr", true);
	cJSON_AddItemToObject(j, "HostConfig", spec_host_config(s, seccomp));
	return j;
}


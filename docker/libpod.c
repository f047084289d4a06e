/* Podman's own create (POST /libpod/containers/create), for what its
 * Docker-compatible create cannot ask: an OCI annotation, here the one
 * that keeps a rootless user's supplementary groups (docker/podman.c), and
 * CDI devices (the compatible create ignores DeviceRequests).
 * Its body, Podman's SpecGenerator, is built from the container spec
 * itself and what Podman needs besides (struct podman_extras); a spec
 * asking what it has no field for is not sent (the caller keeps its own
 * error). */
#include "docker/xfer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/json.h"
#include "common/xalloc.h"

static void add_strings(cJSON *to, const char *name, const struct strvec *sv)
{
	if (sv->n)
		cJSON_AddItemToObject(to, name, engine_json_strings(sv));
}

/* ["K=V", ...] -> {"K": "V"}; a later entry wins. */
static void add_map(cJSON *to, const char *name, const struct strvec *kvs)
{
	cJSON *m = cJSON_AddObjectToObject(to, name);

	for (size_t i = 0; i < kvs->n; i++) {
		const char *kv = kvs->v[i], *eq = strchr(kv, '=');
		cleanup_free char *k = xstrndup(kv, eq ? (size_t)(eq - kv) : strlen(kv));

		cJSON_DeleteItemFromObjectCaseSensitive(m, k);
		cJSON_AddStringToObject(m, k, eq ? eq + 1 : "");
	}
}

static void add_path(cJSON *array, const char *path)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "path", path);
	cJSON_AddItemToArray(array, o);
}

/* Device nodes, then the CDI names, which Podman takes as device paths
 * ("amd.com/gpu=0"). */
static void devices(cJSON *g, const struct container_spec *s)
{
	cJSON *a = cJSON_AddArrayToObject(g, "devices");

	for (size_t i = 0; i < s->n_devices; i++) {
		const struct container_device *d = &s->devices[i];
		const char *perm = d->cgroup_permissions && *d->cgroup_permissions
					   ? d->cgroup_permissions : "rwm";
		cleanup_free char *path = xasprintf("%s:%s:%s", d->path_on_host,
						    d->path_in_container, perm);

		add_path(a, path);
	}
	for (size_t i = 0; i < s->cdi_devices.n; i++)
		add_path(a, s->cdi_devices.v[i]);
}

static void mounts(cJSON *g, const struct container_spec *s)
{
	cJSON *a = cJSON_AddArrayToObject(g, "mounts");

	for (size_t i = 0; i < s->n_mounts; i++) {
		cJSON *o = cJSON_CreateObject();
		cJSON *opts = cJSON_AddArrayToObject(o, "options");

		cJSON_AddStringToObject(o, "destination", s->mounts[i].target);
		cJSON_AddStringToObject(o, "type", "bind");
		cJSON_AddStringToObject(o, "source", s->mounts[i].source);
		cJSON_AddItemToArray(opts, cJSON_CreateString("rbind"));
		cJSON_AddItemToArray(opts, cJSON_CreateString(s->mounts[i].read_only ? "ro" : "rw"));
		cJSON_AddItemToArray(a, o);
	}
}

static void add_rlimit(cJSON *a, const struct container_ulimit *u)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "type", u->name);
	cJSON_AddNumberToObject(o, "soft", (double)u->soft);
	cJSON_AddNumberToObject(o, "hard", (double)u->hard);
	cJSON_AddItemToArray(a, o);
}

/* The spec's limits, then the ones Podman must be told (podman_extras). */
static void rlimits(cJSON *g, const struct container_spec *s, const struct podman_extras *x)
{
	cJSON *a = cJSON_AddArrayToObject(g, "r_limits");

	for (size_t i = 0; i < s->n_ulimits; i++)
		add_rlimit(a, &s->ulimits[i]);
	for (size_t i = 0; i < x->n_limits; i++)
		add_rlimit(a, &x->limits[i]);
}

/* SecurityOpt as Podman takes it (podman_extras): no-new-privileges and
 * seccomp=<path> are all this client sends; anything else has no field. */
static int security(cJSON *g, const struct strvec *opts)
{
	for (size_t i = 0; i < opts->n; i++) {
		const char *s = opts->v[i];

		if (!strcmp(s, "no-new-privileges"))
			cJSON_AddBoolToObject(g, "no_new_privileges", true);
		else if (!strncmp(s, "seccomp=/", 9))
			cJSON_AddStringToObject(g, "seccomp_profile_path", s + 8);
		else
			return -1;
	}
	return 0;
}

static void limits(cJSON *g, const struct container_spec *s)
{
	cJSON *res = cJSON_AddObjectToObject(g, "resource_limits");

	if (s->pids_limit)
		cJSON_AddNumberToObject(cJSON_AddObjectToObject(res, "pids"), "limit",
					(double)s->pids_limit);
	if (s->memory)
		cJSON_AddNumberToObject(cJSON_AddObjectToObject(res, "memory"), "limit",
					(double)s->memory);
	if (s->log_max_bytes || s->log_max_file) {
		cJSON *log = cJSON_AddObjectToObject(g, "log_configuration");

		cJSON_AddStringToObject(log, "driver", "k8s-file");
		if (s->log_max_bytes > 0)
			cJSON_AddNumberToObject(log, "size", (double)s->log_max_bytes);
	}
}

static int host_config(cJSON *g, const struct container_spec *s, const struct podman_extras *x)
{
	if (s->network_mode && strcmp(s->network_mode, "none"))
		return -1;
	if (s->network_mode)
		cJSON_AddStringToObject(cJSON_AddObjectToObject(g, "netns"), "nsmode", "none");
	devices(g, s);
	mounts(g, s);
	rlimits(g, s, x);
	add_strings(g, "groups", &s->group_add);
	add_strings(g, "cap_add", &s->cap_add);
	add_strings(g, "cap_drop", &s->cap_drop);
	if (security(g, &x->security_opt) < 0)
		return -1;
	cJSON_AddBoolToObject(g, "init", s->init);
	cJSON_AddBoolToObject(g, "read_only_filesystem", s->readonly_rootfs);
	cJSON_AddBoolToObject(g, "remove", s->auto_remove);
	if (s->shm_size)
		cJSON_AddNumberToObject(g, "shm_size", (double)s->shm_size);
	limits(g, s);
	return 0;
}

cJSON *podman_libpod_spec(const struct container_spec *s, const struct podman_extras *x,
			  const char *name, const char *key, const char *value)
{
	cJSON *g = cJSON_CreateObject();

	if (name && *name)
		cJSON_AddStringToObject(g, "name", name);
	cJSON_AddStringToObject(g, "image", s->image ? s->image : "");
	add_strings(g, "entrypoint", &s->entrypoint);
	add_strings(g, "command", &s->cmd);
	add_map(g, "env", &s->env);
	if (s->labels.n)
		add_map(g, "labels", &s->labels);
	if (s->working_dir)
		cJSON_AddStringToObject(g, "work_dir", s->working_dir);
	if (s->user)
		cJSON_AddStringToObject(g, "user", s->user);
	if (s->stop_timeout >= 0)
		cJSON_AddNumberToObject(g, "stop_timeout", s->stop_timeout);
	cJSON_AddBoolToObject(g, "terminal", false);
	if (key)
		cJSON_AddStringToObject(cJSON_AddObjectToObject(g, "annotations"), key, value);
	if (host_config(g, s, x) < 0) {
		cJSON_Delete(g);
		return NULL;
	}
	return g;
}

int podman_libpod_create(struct engine *e, const struct container_spec *s,
			 const struct podman_extras *x, const char *name, const char *key,
			 const char *value, char **id_out, struct error *err)
{
	static const long ok[] = { 201, 200, 0 };
	cleanup_cjson cJSON *spec = podman_libpod_spec(s, x, name, key, value);
	cleanup_cjson cJSON *ans = NULL;
	const char *id;

	if (!spec)
		return error_set(err, ERR_USAGE, 0,
				 "the container's settings have no equivalent in Podman's own create");
	if (engine_request_json(e, "POST", "/libpod/containers/create", spec, ok, false, 0, &ans,
				err) < 0)
		return error_prefix(err, "Podman's own create: ");
	id = json_str(ans, "Id");
	if (!id || !*id)
		return error_set(err, ERR_PROTOCOL, 0, "Podman created a container but sent no Id");
	*id_out = xstrdup(id);
	return 0;
}

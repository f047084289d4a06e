/* Podman's own create (POST /libpod/containers/create), for what its
 * Docker-compatible create cannot ask: an OCI annotation, here the one
 * that keeps a rootless user's supplementary groups (docker/podman.c), and
 * CDI devices (the compatible create ignores DeviceRequests).
 * The compatible body this client builds (docker/spec.c) is translated
 * field by field into Podman's SpecGenerator; a body with a field this
 * does not know is not translated (the caller keeps its own error). */
#include "docker/xfer.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/xalloc.h"

static const cJSON *field(const cJSON *o, const char *name)
{
	return cJSON_GetObjectItemCaseSensitive(o, name);
}

static void copy_item(cJSON *to, const char *name, const cJSON *from)
{
	if (from)
		cJSON_AddItemToObject(to, name, cJSON_Duplicate(from, true));
}

/* ["K=V", ...] -> {"K": "V"} */
static void env_map(cJSON *to, const char *name, const cJSON *list)
{
	cJSON *m = cJSON_AddObjectToObject(to, name);
	const cJSON *it;

	cJSON_ArrayForEach(it, list) {
		const char *eq;
		cleanup_free char *k = NULL;

		if (!cJSON_IsString(it))
			continue;
		eq = strchr(it->valuestring, '=');
		k = xstrndup(it->valuestring, eq ? (size_t)(eq - it->valuestring)
						: strlen(it->valuestring));
		cJSON_DeleteItemFromObjectCaseSensitive(m, k); /* a later entry wins */
		cJSON_AddStringToObject(m, k, eq ? eq + 1 : "");
	}
}

/* "64m" -> bytes, as dockerd reads json-file's max-size; 0 if unreadable */
static long long size_bytes(const char *s)
{
	char *end;
	long long v = strtoll(s, &end, 10);
	int shift = 0;

	switch (tolower((unsigned char)*end)) {
	case 'k': shift = 10; break;
	case 'm': shift = 20; break;
	case 'g': shift = 30; break;
	case '\0': break;
	default: return 0;
	}
	return v > 0 && v < (1LL << 40) ? v << shift : 0;
}

/* Devices, then the CDI names of DeviceRequests, which Podman takes as
 * device paths ("amd.com/gpu=0"); a request of another driver: -1. */
static int devices(cJSON *spec, const cJSON *list, const cJSON *requests)
{
	cJSON *a = cJSON_AddArrayToObject(spec, "devices");
	const cJSON *d, *r;

	cJSON_ArrayForEach(d, list) {
		const cJSON *perm = field(d, "CgroupPermissions");
		cleanup_free char *path = xasprintf(
			"%s:%s:%s", cJSON_GetStringValue(field(d, "PathOnHost")),
			cJSON_GetStringValue(field(d, "PathInContainer")),
			cJSON_IsString(perm) && *perm->valuestring ? perm->valuestring : "rwm");
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "path", path);
		cJSON_AddItemToArray(a, o);
	}
	cJSON_ArrayForEach(r, requests) {
		const char *driver = cJSON_GetStringValue(field(r, "Driver"));

		if (!driver || strcmp(driver, "cdi"))
			return -1;
		cJSON_ArrayForEach(d, field(r, "DeviceIDs")) {
			cJSON *o = cJSON_CreateObject();

			cJSON_AddStringToObject(o, "path", cJSON_GetStringValue(d));
			cJSON_AddItemToArray(a, o);
		}
	}
	return 0;
}

static void mounts(cJSON *spec, const cJSON *list)
{
	cJSON *a = cJSON_AddArrayToObject(spec, "mounts");
	const cJSON *m;

	cJSON_ArrayForEach(m, list) {
		cJSON *o = cJSON_CreateObject();
		cJSON *opts = cJSON_AddArrayToObject(o, "options");

		cJSON_AddStringToObject(o, "destination", cJSON_GetStringValue(field(m, "Target")));
		cJSON_AddStringToObject(o, "type", "bind");
		cJSON_AddStringToObject(o, "source", cJSON_GetStringValue(field(m, "Source")));
		cJSON_AddItemToArray(opts, cJSON_CreateString("rbind"));
		cJSON_AddItemToArray(opts, cJSON_CreateString(
			cJSON_IsTrue(field(m, "ReadOnly")) ? "ro" : "rw"));
		cJSON_AddItemToArray(a, o);
	}
}

static void rlimits(cJSON *spec, const cJSON *list)
{
	cJSON *a = cJSON_AddArrayToObject(spec, "r_limits");
	const cJSON *u;

	cJSON_ArrayForEach(u, list) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "type", cJSON_GetStringValue(field(u, "Name")));
		copy_item(o, "soft", field(u, "Soft"));
		copy_item(o, "hard", field(u, "Hard"));
		cJSON_AddItemToArray(a, o);
	}
}

/* SecurityOpt: no-new-privileges and seccomp=<path> are all this client
 * sends; anything else is not translated. */
static int security(cJSON *spec, const cJSON *list)
{
	const cJSON *o;

	cJSON_ArrayForEach(o, list) {
		const char *s = cJSON_GetStringValue(o);

		if (s && !strcmp(s, "no-new-privileges"))
			cJSON_AddBoolToObject(spec, "no_new_privileges", true);
		else if (s && !strncmp(s, "seccomp=/", 9))
			cJSON_AddStringToObject(spec, "seccomp_profile_path", s + 8);
		else
			return -1;
	}
	return 0;
}

static int host_config(cJSON *spec, const cJSON *hc)
{
	static const char *const known[] = {
		"Devices", "Mounts", "Ulimits", "GroupAdd", "CapAdd", "CapDrop", "SecurityOpt",
		"NetworkMode", "Init", "ReadonlyRootfs", "AutoRemove", "PidsLimit", "Memory",
		"ShmSize", "LogConfig", "DeviceRequests", NULL,
	};
	const cJSON *it, *net = field(hc, "NetworkMode"), *lc = field(hc, "LogConfig");
	cJSON *res;

	cJSON_ArrayForEach(it, hc) {
		size_t i = 0;

		while (known[i] && strcmp(known[i], it->string))
			i++;
		if (!known[i])
			return -1;
	}
	if (net && (!cJSON_IsString(net) || strcmp(net->valuestring, "none")))
		return -1;
	if (net)
		cJSON_AddStringToObject(cJSON_AddObjectToObject(spec, "netns"), "nsmode", "none");
	if (devices(spec, field(hc, "Devices"), field(hc, "DeviceRequests")) < 0)
		return -1;
	mounts(spec, field(hc, "Mounts"));
	rlimits(spec, field(hc, "Ulimits"));
	copy_item(spec, "groups", field(hc, "GroupAdd"));
	copy_item(spec, "cap_add", field(hc, "CapAdd"));
	copy_item(spec, "cap_drop", field(hc, "CapDrop"));
	if (security(spec, field(hc, "SecurityOpt")) < 0)
		return -1;
	copy_item(spec, "init", field(hc, "Init"));
	copy_item(spec, "read_only_filesystem", field(hc, "ReadonlyRootfs"));
	copy_item(spec, "remove", field(hc, "AutoRemove"));
	copy_item(spec, "shm_size", field(hc, "ShmSize"));
	res = cJSON_AddObjectToObject(spec, "resource_limits");
	if (cJSON_IsNumber(field(hc, "PidsLimit")))
		copy_item(cJSON_AddObjectToObject(res, "pids"), "limit", field(hc, "PidsLimit"));
	if (cJSON_IsNumber(field(hc, "Memory")))
		copy_item(cJSON_AddObjectToObject(res, "memory"), "limit", field(hc, "Memory"));
	if (lc) {
		cJSON *log = cJSON_AddObjectToObject(spec, "log_configuration");
		const char *max = cJSON_GetStringValue(field(field(lc, "Config"), "max-size"));

		cJSON_AddStringToObject(log, "driver", "k8s-file");
		if (max && size_bytes(max) > 0)
			cJSON_AddNumberToObject(log, "size", (double)size_bytes(max));
	}
	return 0;
}

/* The SpecGenerator of a compatible create body, with annotation
 * key=value; NULL when the body holds what this does not translate. */
static cJSON *libpod_spec(const cJSON *body, const char *name, const char *key,
			  const char *value)
{
	static const char *const known[] = {
		"Image", "Entrypoint", "Cmd", "Env", "Labels", "WorkingDir", "User",
		"StopTimeout", "Tty", "OpenStdin", "AttachStdin", "AttachStdout",
		"AttachStderr", "HostConfig", NULL,
	};
	cJSON *spec = cJSON_CreateObject();
	const cJSON *it;

	cJSON_ArrayForEach(it, body) {
		size_t i = 0;

		while (known[i] && strcmp(known[i], it->string))
			i++;
		if (!known[i] || (!strcmp(it->string, "Tty") && cJSON_IsTrue(it)) ||
		    (!strcmp(it->string, "OpenStdin") && cJSON_IsTrue(it)))
			goto fail;
	}
	if (name && *name)
		cJSON_AddStringToObject(spec, "name", name);
	copy_item(spec, "image", field(body, "Image"));
	copy_item(spec, "entrypoint", field(body, "Entrypoint"));
	copy_item(spec, "command", field(body, "Cmd"));
	env_map(spec, "env", field(body, "Env"));
	copy_item(spec, "labels", field(body, "Labels"));
	copy_item(spec, "work_dir", field(body, "WorkingDir"));
	copy_item(spec, "user", field(body, "User"));
	copy_item(spec, "stop_timeout", field(body, "StopTimeout"));
	cJSON_AddBoolToObject(spec, "terminal", false);
	if (key)
		cJSON_AddStringToObject(cJSON_AddObjectToObject(spec, "annotations"), key, value);
	if (host_config(spec, field(body, "HostConfig")) < 0)
		goto fail;
	return spec;
fail:
	cJSON_Delete(spec);
	return NULL;
}

int podman_libpod_create(struct engine *e, const cJSON *body, const char *name,
			 const char *key, const char *value, char **id_out, struct error *err)
{
	static const long ok[] = { 201, 200, 0 };
	cleanup_cjson cJSON *spec = libpod_spec(body, name, key, value);
	cleanup_cjson cJSON *ans = NULL;
	const cJSON *id;

	if (!spec)
		return error_set(err, ERR_USAGE, 0,
				 "the container's settings have no equivalent in Podman's own create");
	if (engine_request_json(e, "POST", "/libpod/containers/create", spec, ok, false, 0, &ans,
				err) < 0)
		return error_prefix(err, "Podman's own create: ");
	id = field(ans, "Id");
	if (!cJSON_IsString(id) || !id->valuestring[0])
		return error_set(err, ERR_PROTOCOL, 0, "Podman created a container but sent no Id");
	*id_out = xstrdup(id->valuestring);
	return 0;
}

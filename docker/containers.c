/* Container specs (pure JSON building) and the container lifecycle calls. */
#include "docker/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/xalloc.h"

/* stop?t=N may take N seconds and then a SIGKILL and the cleanup. */
#define STOP_SLACK_S 60L

void container_spec_init(struct container_spec *s)
{
	memset(s, 0, sizeof(*s));
	strvec_init(&s->entrypoint);
	strvec_init(&s->cmd);
	strvec_init(&s->env);
	strvec_init(&s->labels);
	strvec_init(&s->group_add);
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
	strvec_clear(&s->cap_add);
	strvec_clear(&s->cap_drop);
	strvec_clear(&s->security_opt);
	free(s->network_mode);
	free(s->log_max_size);
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
	d->cgroup_permissions = perms ? xstrdup(perms) : NULL;
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

static cJSON *spec_json_strings(const struct strvec *sv)
{
	cJSON *a = cJSON_CreateArray();

	for (size_t i = 0; i < sv->n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(sv->v[i]));
	return a;
}

static void spec_add_strings(cJSON *obj, const char *name, const struct strvec *sv)
{
	if (sv->n)
		cJSON_AddItemToObject(obj, name, spec_json_strings(sv));
}

static cJSON *spec_host_config(const struct container_spec *s)
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

		for (size_t i = 0; i < s->n_ulimits; i++) {
			cJSON *o = cJSON_CreateObject();

			cJSON_AddStringToObject(o, "Name", s->ulimits[i].name);
			cJSON_AddNumberToObject(o, "Soft", (double)s->ulimits[i].soft);
			cJSON_AddNumberToObject(o, "Hard", (double)s->ulimits[i].hard);
			cJSON_AddItemToArray(a, o);
		}
	}
	spec_add_strings(hc, "GroupAdd", &s->group_add);
	spec_add_strings(hc, "CapAdd", &s->cap_add);
	spec_add_strings(hc, "CapDrop", &s->cap_drop);
	spec_add_strings(hc, "SecurityOpt", &s->security_opt);
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
	if (s->log_max_size || s->log_max_file) {
		cJSON *lc = cJSON_AddObjectToObject(hc, "LogConfig");
		cJSON *cfg;

		cJSON_AddStringToObject(lc, "Type", "json-file");
		cfg = cJSON_AddObjectToObject(lc, "Config");
		if (s->log_max_size)
			cJSON_AddStringToObject(cfg, "max-size", s->log_max_size);
		if (s->log_max_file)
			cJSON_AddStringToObject(cfg, "max-file", s->log_max_file);
	}
	return hc;
}

cJSON *container_spec_to_json(const struct container_spec *s)
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
	cJSON_AddItemToObject(j, "HostConfig", spec_host_config(s));
	return j;
}

static void container_path(struct strbuf *sb, const char *id, const char *rest)
{
	strbuf_addstr(sb, "/containers/");
	engine_url_add_path(sb, id);
	strbuf_addstr(sb, rest);
}

int engine_container_create_json(struct engine *e, const char *name,
				 const cJSON *body, char **id_out, struct error *err)
{
	static const long ok[] = { 201, 200, 0 };
	cleanup_strbuf struct strbuf path = STRBUF_INIT;
	cleanup_cjson cJSON *ans = NULL;
	const cJSON *id;

	strbuf_addstr(&path, "/containers/create");
	if (name && *name)
		engine_url_add_query(&path, "name", name);
	/* A 404 here is the image, not the container: keep ERR_HTTP. */
	if (engine_request_json(e, "POST", path.buf, body, ok, false, 0, &ans, err) < 0)
		return -1;
	id = cJSON_GetObjectItemCaseSensitive(ans, "Id");
	if (!cJSON_IsString(id) || !id->valuestring[0])
		return error_set(err, ERR_PROTOCOL, 0,
				 "the Docker engine created a container but sent no Id");
	*id_out = xstrdup(id->valuestring);
	return 0;
}

int engine_container_create(struct engine *e, const char *name,
			    const struct container_spec *spec, char **id_out,
			    struct error *err)
{
	cleanup_cjson cJSON *body = container_spec_to_json(spec);

	return engine_container_create_json(e, name, body, id_out, err);
}

int engine_container_start(struct engine *e, const char *id, struct error *err)
{
	static const long ok[] = { 204, 304, 200, 0 };
	cleanup_strbuf struct strbuf path = STRBUF_INIT;

	container_path(&path, id, "/start");
	return engine_request_json(e, "POST", path.buf, NULL, ok, true, 0, NULL, err);
}

int engine_container_stop(struct engine *e, const char *id, int timeout_s,
			  struct error *err)
{
	static const long ok[] = { 204, 304, 200, 0 };
	cleanup_strbuf struct strbuf path = STRBUF_INIT;
	char t[32];
	long limit;

	if (timeout_s < 0)
		timeout_s = 0;
	snprintf(t, sizeof(t), "%d", timeout_s);
	container_path(&path, id, "/stop");
	engine_url_add_query(&path, "t", t);
	limit = (long)timeout_s + STOP_SLACK_S;
	if (limit < ENGINE_REQUEST_TIMEOUT_S)
		limit = ENGINE_REQUEST_TIMEOUT_S;
	return engine_request_json(e, "POST", path.buf, NULL, ok, true, limit, NULL, err);
}

int engine_container_kill(struct engine *e, const char *id, const char *signal,
			  struct error *err)
{
	static const long ok[] = { 204, 200, 0 };
	cleanup_strbuf struct strbuf path = STRBUF_INIT;

	container_path(&path, id, "/kill");
	if (signal && *signal)
		engine_url_add_query(&path, "signal", signal);
	return engine_request_json(e, "POST", path.buf, NULL, ok, true, 0, NULL, err);
}

int engine_container_remove(struct engine *e, const char *id, bool force,
			    struct error *err)
{
	static const long ok[] = { 204, 200, 0 };
	cleanup_strbuf struct strbuf path = STRBUF_INIT;

	container_path(&path, id, "");
	engine_url_add_query(&path, "force", force ? "1" : "0");
	engine_url_add_query(&path, "v", "1");
	return engine_request_json(e, "DELETE", path.buf, NULL, ok, true, 0, NULL, err);
}

int engine_container_inspect(struct engine *e, const char *id, cJSON **out,
			     struct error *err)
{
	static const long ok[] = { 200, 0 };
	cleanup_strbuf struct strbuf path = STRBUF_INIT;

	container_path(&path, id, "/json");
	if (engine_request_json(e, "GET", path.buf, NULL, ok, true, 0, out, err) < 0)
		return -1;
	if (!cJSON_IsObject(*out)) {
		cJSON_Delete(*out);
		*out = NULL;
		return error_set(err, ERR_PROTOCOL, 0,
				 "the Docker engine's inspect answer for %s is not an object", id);
	}
	return 0;
}

static void state_copy_str(char *dst, size_t size, const cJSON *obj, const char *name)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);

	snprintf(dst, size, "%s", cJSON_IsString(v) ? v->valuestring : "");
}

int container_state_from_json(const cJSON *inspect, struct container_state *st,
			      struct error *err)
{
	const cJSON *state = cJSON_GetObjectItemCaseSensitive(inspect, "State");
	const cJSON *status, *v;

	memset(st, 0, sizeof(*st));
	if (!cJSON_IsObject(state))
		return error_set(err, ERR_PROTOCOL, 0,
				 "container inspect answer without a State object");
	status = cJSON_GetObjectItemCaseSensitive(state, "Status");
	if (!cJSON_IsString(status))
		return error_set(err, ERR_PROTOCOL, 0,
				 "container inspect answer without State.Status");
	state_copy_str(st->status, sizeof(st->status), state, "Status");
	st->running = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(state, "Running"));
	st->oom_killed = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(state, "OOMKilled"));
	v = cJSON_GetObjectItemCaseSensitive(state, "ExitCode");
	st->exit_code = cJSON_IsNumber(v) ? v->valueint : 0;
	v = cJSON_GetObjectItemCaseSensitive(state, "Pid");
	st->pid = cJSON_IsNumber(v) ? (long)v->valuedouble : 0;
	state_copy_str(st->started_at, sizeof(st->started_at), state, "StartedAt");
	state_copy_str(st->finished_at, sizeof(st->finished_at), state, "FinishedAt");
	state_copy_str(st->error, sizeof(st->error), state, "Error");
	return 0;
}

int engine_container_list(struct engine *e, const char *label_filter, cJSON **out,
			  struct error *err)
{
	static const long ok[] = { 200, 0 };
	cleanup_strbuf struct strbuf path = STRBUF_INIT;

	strbuf_addstr(&path, "/containers/json");
	engine_url_add_query(&path, "all", "1");
	if (label_filter && *label_filter) {
		cleanup_cjson cJSON *f = cJSON_CreateObject();
		cleanup_free char *txt = NULL;
		cJSON *a = cJSON_AddArrayToObject(f, "label");

		cJSON_AddItemToArray(a, cJSON_CreateString(label_filter));
		txt = cJSON_PrintUnformatted(f);
		if (!txt)
			xdie("out of memory (cJSON_PrintUnformatted)");
		engine_url_add_query(&path, "filters", txt);
	}
	if (engine_request_json(e, "GET", path.buf, NULL, ok, false, 0, out, err) < 0)
		return -1;
	if (!cJSON_IsArray(*out)) {
		cJSON_Delete(*out);
		*out = NULL;
		return error_set(err, ERR_PROTOCOL, 0,
				 "the Docker engine's container list is not an array");
	}
	return 0;
}

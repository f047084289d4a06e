/* The engine's answers the rest of the house reads, parsed once into the
 * types of engine.h: labels, container lists and inspects, image inspects,
 * /version, path stats and events. Pure: no request is made here. */
#include "docker/internal.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/json.h"
#include "common/xalloc.h"

/* ---- which engine a /version answer names ---- */

static bool engine_names_podman(const cJSON *o)
{
	const char *name = json_str(o, "Name");

	return name && strcasestr(name, "podman");
}

enum engine_flavour engine_flavour_from_version(const cJSON *version)
{
	const cJSON *c;

	if (engine_names_podman(json_get(version, "Platform")))
		return ENGINE_FLAVOUR_PODMAN;
	cJSON_ArrayForEach(c, json_arr(version, "Components"))
		if (engine_names_podman(c))
			return ENGINE_FLAVOUR_PODMAN;
	return ENGINE_FLAVOUR_DOCKER;
}

/* ---- labels ---- */

const char *engine_labels_get(const struct engine_labels *l, const char *key)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->keys[i], key))
			return l->values[i];
	return NULL;
}

void engine_labels_release(struct engine_labels *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->keys[i]);
		free(l->values[i]);
	}
	free(l->keys);
	free(l->values);
	memset(l, 0, sizeof(*l));
}

/* The string members of obj; others are not labels. */
static void labels_parse(const cJSON *obj, struct engine_labels *out)
{
	const cJSON *it;

	memset(out, 0, sizeof(*out));
	cJSON_ArrayForEach(it, obj) {
		const char *value = json_str_of(it);

		if (!value || !it->string)
			continue;
		out->keys = xrealloc(out->keys, (out->n + 1) * sizeof(*out->keys));
		out->values = xrealloc(out->values, (out->n + 1) * sizeof(*out->values));
		out->keys[out->n] = xstrdup(it->string);
		out->values[out->n++] = xstrdup(value);
	}
}

/* ---- containers ---- */

void engine_containers_release(struct engine_containers *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].id);
		free(l->v[i].state);
		engine_labels_release(&l->v[i].labels);
	}
	free(l->v);
	memset(l, 0, sizeof(*l));
}

int engine_container_list_parse(const cJSON *answer, struct engine_containers *out,
				struct error *err)
{
	const cJSON *c;

	memset(out, 0, sizeof(*out));
	if (!cJSON_IsArray(answer))
		return error_set(err, ERR_PROTOCOL, 0,
				 "the Docker engine's container list is not an array");
	cJSON_ArrayForEach(c, answer) {
		const char *id = json_str(c, "Id");
		struct engine_container *to;

		if (!id)
			continue;
		out->v = xrealloc(out->v, (out->n + 1) * sizeof(*out->v));
		to = &out->v[out->n++];
		to->id = xstrdup(id);
		to->state = xstrdup_or_null(json_str(c, "State"));
		to->created = json_int(c, "Created", LLONG_MIN, LLONG_MAX, -1);
		labels_parse(json_obj(c, "Labels"), &to->labels);
	}
	return 0;
}

static void state_copy_str(char *dst, size_t size, const cJSON *obj, const char *name)
{
	const char *v = json_str(obj, name);

	snprintf(dst, size, "%s", v ? v : "");
}

int container_state_from_json(const cJSON *inspect, struct container_state *st,
			      struct error *err)
{
	const cJSON *state = json_obj(inspect, "State");

	memset(st, 0, sizeof(*st));
	if (!state)
		return error_set(err, ERR_PROTOCOL, 0,
				 "container inspect answer without a State object");
	if (!json_str(state, "Status"))
		return error_set(err, ERR_PROTOCOL, 0,
				 "container inspect answer without State.Status");
	state_copy_str(st->status, sizeof(st->status), state, "Status");
	st->running = json_bool(state, "Running", false);
	st->oom_killed = json_bool(state, "OOMKilled", false);
	st->exit_code = (int)json_int(state, "ExitCode", INT_MIN, INT_MAX, 0);
	st->pid = (long)json_int(state, "Pid", 0, LONG_MAX, 0);
	state_copy_str(st->started_at, sizeof(st->started_at), state, "StartedAt");
	state_copy_str(st->finished_at, sizeof(st->finished_at), state, "FinishedAt");
	state_copy_str(st->error, sizeof(st->error), state, "Error");
	return 0;
}

void engine_container_info_release(struct engine_container_info *c)
{
	free(c->id);
	strvec_clear(&c->device_paths);
	memset(c, 0, sizeof(*c));
	strvec_init(&c->device_paths);
}

int engine_container_info_parse(const cJSON *inspect, struct engine_container_info *out,
				struct error *err)
{
	const cJSON *d;

	memset(out, 0, sizeof(*out));
	strvec_init(&out->device_paths);
	if (!cJSON_IsObject(inspect))
		return error_set(err, ERR_PROTOCOL, 0,
				 "the Docker engine's inspect answer is not an object");
	out->id = xstrdup_or_null(json_str(inspect, "Id"));
	out->has_state = container_state_from_json(inspect, &out->state, ERROR_DISCARD) == 0;
	out->tty = json_bool(json_obj(inspect, "Config"), "Tty", false);
	cJSON_ArrayForEach(d, json_arr(json_obj(inspect, "HostConfig"), "Devices")) {
		const char *p = json_str(d, "PathOnHost");

		if (p)
			strvec_push(&out->device_paths, p);
	}
	return 0;
}

/* ---- images ---- */

void engine_image_info_release(struct engine_image_info *i)
{
	free(i->id);
	free(i->digest);
	strvec_clear(&i->repo_digests);
	strvec_clear(&i->env);
	strvec_clear(&i->layers);
	memset(i, 0, sizeof(*i));
	strvec_init(&i->repo_digests);
	strvec_init(&i->env);
	strvec_init(&i->layers);
}

int engine_image_info_parse(const cJSON *inspect, struct engine_image_info *out,
			    struct error *err)
{
	const char *id = json_str(inspect, "Id");
	const cJSON *digests = json_arr(inspect, "RepoDigests"), *it;

	memset(out, 0, sizeof(*out));
	strvec_init(&out->repo_digests);
	strvec_init(&out->env);
	strvec_init(&out->layers);
	if (!id)
		return error_set(err, ERR_PROTOCOL, 0, "image inspect: no Id in the engine's answer");
	out->id = xstrdup(id);
	out->size = json_int(inspect, "Size", 0, 1LL << 50, -1);
	out->digest = xstrdup_or_null(json_arr_str(digests, 0));
	cJSON_ArrayForEach(it, digests)
		if (json_str_of(it))
			strvec_push(&out->repo_digests, json_str_of(it));
	/* Newer APIs leave unset keys out: no Env is an empty Env. */
	cJSON_ArrayForEach(it, json_arr(json_obj(inspect, "Config"), "Env"))
		if (json_str_of(it))
			strvec_push(&out->env, json_str_of(it));
	cJSON_ArrayForEach(it, json_arr(json_obj(inspect, "RootFS"), "Layers"))
		if (json_str_of(it))
			strvec_push(&out->layers, json_str_of(it));
	return 0;
}

void engine_image_history_release(struct engine_image_history *h)
{
	free(h->sizes);
	memset(h, 0, sizeof(*h));
}

int engine_image_history_parse(const cJSON *answer, struct engine_image_history *out,
			       struct error *err)
{
	int n = cJSON_GetArraySize(answer);

	memset(out, 0, sizeof(*out));
	if (!cJSON_IsArray(answer))
		return error_set(err, ERR_PROTOCOL, 0,
				 "the Docker engine's image history is not an array");
	out->sizes = xcalloc((size_t)n + 1, sizeof(*out->sizes));
	/* Newest first on the wire: the last entry is the base's. */
	for (int i = n - 1; i >= 0; i--)
		out->sizes[out->n++] = json_int(cJSON_GetArrayItem(answer, i), "Size", 0,
						1LL << 50, -1);
	return 0;
}

/* ---- /version ---- */

void engine_version_info_release(struct engine_version_info *v)
{
	free(v->version);
	free(v->api_version);
	free(v->arch);
	memset(v, 0, sizeof(*v));
}

void engine_version_info_parse(const cJSON *version, struct engine_version_info *out)
{
	out->version = xstrdup_or_null(json_str(version, "Version"));
	out->api_version = xstrdup_or_null(json_str(version, "ApiVersion"));
	out->arch = xstrdup_or_null(json_str(version, "Arch"));
	out->podman = engine_flavour_from_version(version) == ENGINE_FLAVOUR_PODMAN;
}

/* ---- archive path stats and events ---- */

void engine_path_stat_release(struct engine_path_stat *st)
{
	free(st->name);
	free(st->link_target);
	memset(st, 0, sizeof(*st));
}

void engine_path_stat_parse(const cJSON *stat, struct engine_path_stat *out)
{
	/* NaN: no number (JSON has no NaN); comparisons with it are false. */
	double mode = json_num(stat, "mode", NAN);
	const char *target = json_str(stat, "linkTarget");

	memset(out, 0, sizeof(*out));
	out->name = xstrdup_or_null(json_str(stat, "name"));
	out->size = json_int(stat, "size", 0, LLONG_MAX, -1);
	out->has_mode = !isnan(mode);
	/* Go's FileMode is a uint32: the double holds it exactly. */
	if (mode >= 0 && mode < 18446744073709551616.0)
		out->mode = (uint64_t)mode;
	out->link_target = target && *target ? xstrdup(target) : NULL;
}

void engine_event_parse(const cJSON *event, struct engine_event *ev)
{
	const cJSON *actor = json_obj(event, "Actor");

	ev->type = json_str(event, "Type");
	ev->action = json_str(event, "Action");
	ev->id = json_str(actor, "ID");
	labels_parse(json_obj(actor, "Attributes"), &ev->attributes);
}

/* The container lifecycle calls: create, start, stop, kill, remove,
 * inspect, list. */
#include "docker/xfer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/json.h"
#include "common/xalloc.h"

/* stop?t=N may take N seconds and then a SIGKILL and the cleanup. */
#define STOP_SLACK_S 60L

static void container_path(struct strbuf *sb, const char *id, const char *rest)
{
	strbuf_addstr(sb, "/containers/");
	engine_url_add_path(sb, id);
	strbuf_addstr(sb, rest);
}

/* POST /containers/create of body, as it is. */
static int create_compatible(struct engine *e, const char *name, const cJSON *body,
			     char **id_out, struct error *err)
{
	static const long ok[] = { 201, 200, 0 };
	cleanup_strbuf struct strbuf path = STRBUF_INIT;
	cleanup_cjson cJSON *ans = NULL;
	const char *id;

	strbuf_addstr(&path, "/containers/create");
	if (name && *name)
		engine_url_add_query(&path, "name", name);
	/* A 404 here is the image, not the container: keep ERR_HTTP. */
	if (engine_request_json(e, "POST", path.buf, body, ok, false, 0, &ans, err) < 0)
		return -1;
	id = json_str(ans, "Id");
	if (!id || !*id)
		return error_set(err, ERR_PROTOCOL, 0,
				 "the Docker engine created a container but sent no Id");
	*id_out = xstrdup(id);
	return 0;
}

/* Rootless Podman drops the caller's groups unless asked (podman.c): a
 * container created without keeping them is replaced by one that does. On
 * failure nothing is left and *id_out is NULL. */
static int keep_groups_on_podman(struct engine *e, const char *name,
				 const struct container_spec *s, const struct podman_extras *x,
				 char **id_out, struct error *err)
{
	bool recreate = false;

	if (podman_check_created(e, s, *id_out, &recreate, err) < 0) {
		(void)engine_container_remove(e, *id_out, true, ERROR_DISCARD);
		goto fail;
	}
	if (!recreate)
		return 0;
	if (engine_container_remove(e, *id_out, true, err) < 0) {
		(void)error_prefix(err, "replacing a container that would lose your groups: ");
		goto fail;
	}
	free(*id_out);
	*id_out = NULL;
	return podman_create_keeping_groups(e, s, x, name, id_out, err);
fail:
	free(*id_out);
	*id_out = NULL;
	return -1;
}

/* Podman: its compatible create with what it needs besides, or its own
 * create built from the spec where the compatible one cannot ask. */
static int create_on_podman(struct engine *e, const char *name,
			    const struct container_spec *s, const char *seccomp, char **id_out,
			    struct error *err)
{
	struct podman_extras x;
	cleanup_cjson cJSON *body = NULL;
	int rc = -1;

	if (podman_extras_for(e, s, seccomp, &x, err) < 0)
		goto out;
	if (s->cdi_devices.n) {
		rc = podman_create_cdi(e, s, &x, name, id_out, err);
		goto out;
	}
	body = container_spec_body(s, seccomp);
	podman_body_apply(body, &x);
	rc = create_compatible(e, name, body, id_out, err);
	if (rc == 0)
		rc = keep_groups_on_podman(e, name, s, &x, id_out, err);
out:
	podman_extras_release(&x);
	return rc;
}

int engine_container_create(struct engine *e, const char *name,
			    const struct container_spec *spec, char **id_out,
			    struct error *err)
{
	cleanup_cjson cJSON *body = NULL;
	const char *seccomp = spec->seccomp_profile;
	enum engine_flavour flavour;

	/* The profile is not parsed again here: whoever made it parsed or
	 * built it (orchestrator/seccomp/ checks it against libseccomp). A
	 * word such as "unconfined" is refused now, not by the engine. */
	if (seccomp && !engine_seccomp_is_object(seccomp))
		return error_set(err, ERR_USAGE, 0,
				 "the container's seccomp profile is not a JSON object");
	if (engine_flavour(e, &flavour, err) < 0)
		return -1;
	if (flavour == ENGINE_FLAVOUR_PODMAN)
		return create_on_podman(e, name, spec, seccomp, id_out, err);
	body = container_spec_body(spec, seccomp);
	return create_compatible(e, name, body, id_out, err);
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
	if (limit < e->timeout_s)
		limit = e->timeout_s;
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

int engine_container_inspect_json(struct engine *e, const char *id, cJSON **out,
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

int engine_container_inspect(struct engine *e, const char *id,
			     struct engine_container_info *out, struct error *err)
{
	cleanup_cjson cJSON *j = NULL;

	if (out) {
		memset(out, 0, sizeof(*out));
		strvec_init(&out->device_paths);
	}
	if (engine_container_inspect_json(e, id, &j, err) < 0)
		return -1;
	return out ? engine_container_info_parse(j, out, err) : 0;
}

int engine_container_list(struct engine *e, const char *label_filter,
			  struct engine_containers *out, struct error *err)
{
	static const long ok[] = { 200, 0 };
	cleanup_strbuf struct strbuf path = STRBUF_INIT;
	cleanup_cjson cJSON *j = NULL;

	memset(out, 0, sizeof(*out));
	strbuf_addstr(&path, "/containers/json");
	engine_url_add_query(&path, "all", "1");
	if (label_filter && *label_filter)
		engine_url_add_filter(&path, "label", label_filter);
	if (engine_request_json(e, "GET", path.buf, NULL, ok, false, 0, &j, err) < 0)
		return -1;
	return engine_container_list_parse(j, out, err);
}

/* Image inspect and pull. A pull answers 200 before it knows whether it
 * will succeed, so every progress object is checked for an error. */
#include "docker/xfer.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/json.h"
#include "common/xalloc.h"

int engine_image_inspect(struct engine *e, const char *name, struct engine_image_info *out,
			 struct error *err)
{
	static const long ok[] = { 200, 0 };
	cleanup_strbuf struct strbuf path = STRBUF_INIT;
	cleanup_cjson cJSON *j = NULL;

	memset(out, 0, sizeof(*out));
	strvec_init(&out->repo_digests);
	strvec_init(&out->env);
	strvec_init(&out->layers);
	strbuf_addstr(&path, "/images/");
	engine_url_add_path(&path, name);
	strbuf_addstr(&path, "/json");
	if (engine_request_json(e, "GET", path.buf, NULL, ok, true, 0, &j, err) < 0)
		return -1;
	if (e->flavour == ENGINE_FLAVOUR_PODMAN)
		podman_image_normalize(j);
	return engine_image_info_parse(j, out, err);
}

int engine_image_history(struct engine *e, const char *name, struct engine_image_history *out,
			 struct error *err)
{
	static const long ok[] = { 200, 0 };
	cleanup_strbuf struct strbuf path = STRBUF_INIT;
	cleanup_cjson cJSON *j = NULL;

	memset(out, 0, sizeof(*out));
	strbuf_addstr(&path, "/images/");
	engine_url_add_path(&path, name);
	strbuf_addstr(&path, "/history");
	if (engine_request_json(e, "GET", path.buf, NULL, ok, true, 0, &j, err) < 0)
		return -1;
	return engine_image_history_parse(j, out, err);
}

int engine_image_remove(struct engine *e, const char *name, struct error *err)
{
	static const long ok[] = { 200, 404, 0 };
	cleanup_strbuf struct strbuf path = STRBUF_INIT;

	strbuf_addstr(&path, "/images/");
	engine_url_add_path(&path, name);
	return engine_request_json(e, "DELETE", path.buf, NULL, ok, false, 0, NULL, err);
}

void engine_image_tags_release(struct engine_image_tags *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->v[i].ref);
		free(t->v[i].id);
	}
	free(t->v);
	memset(t, 0, sizeof(*t));
}

int engine_image_list_parse(const cJSON *answer, struct engine_image_tags *out,
			    struct error *err)
{
	const cJSON *img;

	if (!cJSON_IsArray(answer))
		return error_set(err, ERR_PROTOCOL, 0, "the Docker engine's image list is not an array");
	cJSON_ArrayForEach(img, answer) {
		const cJSON *t;
		const char *id = json_str(img, "Id");
		/* dockerd sends an integer; keep -1 for anything else */
		long long created = json_int(img, "Created", 0, LLONG_MAX, -1);

		cJSON_ArrayForEach(t, json_arr(img, "RepoTags")) {
			const char *tag = json_str_of(t);

			/* "<none>:<none>": an untagged image, as older dockerd lists it */
			if (!tag || !*tag || !strcmp(tag, "<none>:<none>"))
				continue;
			out->v = xrealloc(out->v, (out->n + 1) * sizeof(*out->v));
			out->v[out->n++] = (struct engine_image_tag){
				xstrdup(tag), xstrdup(id ? id : ""), created };
		}
	}
	return 0;
}

int engine_image_list(struct engine *e, const char *reference, struct engine_image_tags *out,
		      struct error *err)
{
	static const long ok[] = { 200, 0 };
	cleanup_strbuf struct strbuf path = STRBUF_INIT;
	cleanup_cjson cJSON *answer = NULL;
	cJSON *img;

	strbuf_addstr(&path, "/images/json");
	if (reference && *reference)
		engine_url_add_filter(&path, "reference", reference);
	if (engine_request_json(e, "GET", path.buf, NULL, ok, false, 0, &answer, err) < 0)
		return error_prefix(err, "listing the images%s%s: ", reference ? " of " : "",
				    reference ? reference : "");
	if (e->flavour == ENGINE_FLAVOUR_PODMAN)
		cJSON_ArrayForEach(img, answer)
			podman_image_normalize(img);
	return engine_image_list_parse(answer, out, err);
}

int engine_image_dangling_of(struct engine *e, const char *digest_ref, struct strvec *ids,
			     struct error *err)
{
	static const long ok[] = { 200, 0 };
	cleanup_strbuf struct strbuf path = STRBUF_INIT;
	cleanup_cjson cJSON *answer = NULL;
	const cJSON *img, *d;

	strbuf_addstr(&path, "/images/json");
	engine_url_add_filter(&path, "dangling", "true");
	if (engine_request_json(e, "GET", path.buf, NULL, ok, false, 0, &answer, err) < 0)
		return error_prefix(err, "listing the untagged images: ");
	if (!cJSON_IsArray(answer))
		return error_set(err, ERR_PROTOCOL, 0, "the Docker engine's image list is not an array");
	cJSON_ArrayForEach(img, answer) {
		const char *id = json_str(img, "Id");

		cJSON_ArrayForEach(d, json_arr(img, "RepoDigests")) {
			const char *name = json_str_of(d);

			if (id && *id && name && !strcmp(name, digest_ref)) {
				strvec_push(ids, id);
				break;
			}
		}
	}
	return 0;
}

struct pull_state {
	struct engine_lines lines; /* first: engine_xfer_lines_sink() */
	engine_pull_cb cb;
	void *ud;
	char *ref;      /* for messages */
	char *registry;
};

/* One progress object; pure apart from the callback, so the fuzzer can
 * feed it. An error object after HTTP 200 is the pull failing midway. */
int engine_pull_progress_line(const char *line, size_t len, const char *ref,
			      const char *registry, engine_pull_cb cb, void *ud,
			      struct error *err)
{
	cleanup_cjson cJSON *j = cJSON_ParseWithLength(line, len);
	const cJSON *detail, *pd;
	const char *msg;
	struct engine_pull_event ev;

	if (!cJSON_IsObject(j))
		return error_set(err, ERR_PROTOCOL, 0,
				 "malformed progress object from the Docker engine");
	detail = json_get(j, "errorDetail");
	msg = json_str(detail, "message");
	if (!msg || !*msg)
		msg = json_str(j, "error");
	/* Podman reports a missing tag inside its 200 stream where dockerd
	 * answers 404 "manifest for <ref> not found": the same status here. */
	if (msg && strstr(msg, "manifest unknown"))
		return error_set(err, ERR_HTTP, 404, "manifest for %s not found in %s: %s", ref,
				 registry, msg);
	if (msg || detail)
		return error_set(err, ERR_HTTP, 200, "pulling %s from %s: %s", ref, registry,
				 msg && *msg ? msg : "the engine reported an error");
	if (!cb)
		return 0;
	pd = json_obj(j, "progressDetail");
	ev.status = json_str(j, "status");
	ev.id = json_str(j, "id");
	ev.progress = json_str(j, "progress");
	ev.current = json_int(pd, "current", 0, LLONG_MAX, -1);
	ev.total = json_int(pd, "total", 0, LLONG_MAX, -1);
	cb(&ev, ud);
	return 0;
}

static int pull_line(const char *line, size_t len, void *ud, struct error *err)
{
	struct pull_state *p = ud;

	return engine_pull_progress_line(line, len, p->ref, p->registry, p->cb, p->ud, err);
}

static void pull_release(void *state)
{
	struct pull_state *p = state;

	engine_lines_release(&p->lines);
	free(p->ref);
	free(p->registry);
	free(p);
}

static const struct engine_xfer_kind pull_kind = {
	.sink = engine_xfer_lines_sink,
	.finish = engine_xfer_lines_finish,
	.release = pull_release,
};

int engine_pull_image_opts(struct engine *e, const char *ref_s, const char *registry_auth,
			   engine_pull_cb cb, void *ud, const struct engine_call_opts *opts,
			   struct error *err)
{
	struct image_ref ref;
	cleanup_strbuf struct strbuf path = STRBUF_INIT;
	struct engine_stream *s;
	struct pull_state *p;
	int rc;

	if (image_ref_parse(&ref, ref_s, err) < 0)
		return -1;
	strbuf_addstr(&path, "/images/create");
	engine_url_add_query(&path, "fromImage", ref.name);
	/* A digest goes in "tag" (as the docker CLI sends it); without any
	 * tag the engine would pull every tag of the repository. */
	engine_url_add_query(&path, "tag", ref.digest ? ref.digest : ref.tag);
	s = engine_xfer_new(e, "POST", path.buf, false);
	s->not_found_404 = false;
	p = xcalloc(1, sizeof(*p));
	p->ref = xstrdup(ref_s);
	p->registry = xstrdup(ref.registry);
	p->cb = cb;
	p->ud = ud;
	engine_lines_init(&p->lines, ENGINE_LINE_MAX, pull_line, p);
	engine_xfer_set_kind(s, &pull_kind, p);
	/* A pull of a large image legitimately takes long: no overall limit. */
	engine_xfer_set_timeout(s, 0);
	if (registry_auth && *registry_auth) {
		cleanup_free char *h = xasprintf("X-Registry-Auth: %s", registry_auth);

		engine_xfer_add_header(s, h);
	}
	rc = engine_xfer_run(s, opts, err);
	/* A mid-stream error message was built with this context already. */
	if (rc < 0 && err && !(err->kind == ERR_HTTP && err->status == 200))
		error_prefix(err, "pulling %s from %s: ", ref_s, ref.registry);
	engine_stream_free(s);
	image_ref_release(&ref);
	return rc;
}

int engine_pull_image(struct engine *e, const char *ref, const char *registry_auth,
		      engine_pull_cb cb, void *ud, struct error *err)
{
	return engine_pull_image_opts(e, ref, registry_auth, cb, ud, NULL, err);
}

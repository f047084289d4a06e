/* Image inspect and pull. A pull answers 200 before it knows whether it
 * will succeed, so every progress object is checked for an error. */
#include "docker/internal.h"

#include <string.h>

#include "common/cleanup.h"
#include "common/xalloc.h"

int engine_image_inspect(struct engine *e, const char *name, cJSON **out,
			 struct error *err)
{
	static const long ok[] = { 200, 0 };
	cleanup_strbuf struct strbuf path = STRBUF_INIT;

	strbuf_addstr(&path, "/images/");
	engine_url_add_path(&path, name);
	strbuf_addstr(&path, "/json");
	return engine_request_json(e, "GET", path.buf, NULL, ok, true, 0, out, err);
}

static long long image_json_ll(const cJSON *obj, const char *name)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);

	return cJSON_IsNumber(v) ? (long long)v->valuedouble : -1;
}

static const char *image_json_str(const cJSON *obj, const char *name)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static int pull_line(const char *line, size_t len, void *ud, struct error *err)
{
	struct engine_stream *s = ud;
	cleanup_cjson cJSON *j = cJSON_ParseWithLength(line, len);
	const cJSON *detail, *pd;
	const char *msg;
	struct engine_pull_event ev;

	if (!cJSON_IsObject(j))
		return error_set(err, ERR_PROTOCOL, 0,
				 "malformed progress object from the Docker engine");
	detail = cJSON_GetObjectItemCaseSensitive(j, "errorDetail");
	msg = image_json_str(detail, "message");
	if (!msg || !*msg)
		msg = image_json_str(j, "error");
	if (msg || detail)
		return error_set(err, ERR_HTTP, 200, "pulling %s from %s: %s", s->pull_ref,
				 s->pull_registry, msg && *msg ? msg : "the engine reported an error");
	if (!s->pull_cb)
		return 0;
	pd = cJSON_GetObjectItemCaseSensitive(j, "progressDetail");
	ev.status = image_json_str(j, "status");
	ev.id = image_json_str(j, "id");
	ev.progress = image_json_str(j, "progress");
	ev.current = image_json_ll(pd, "current");
	ev.total = image_json_ll(pd, "total");
	s->pull_cb(&ev, s->ud);
	return 0;
}

static int pull_sink(struct engine_stream *s, const char *data, size_t len,
		     struct error *err)
{
	return engine_lines_feed(&s->lines, data, len, err) < 0 ? -1 : 0;
}

static int pull_finish(struct engine_stream *s, struct error *err)
{
	return engine_lines_finish(&s->lines, err) < 0 ? -1 : 0;
}

int engine_pull_image(struct engine *e, const char *ref_s, const char *registry_auth,
		      engine_pull_cb cb, void *ud, struct error *err)
{
	struct image_ref ref;
	cleanup_strbuf struct strbuf path = STRBUF_INIT;
	struct engine_stream *s;
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
	s->pull_ref = xstrdup(ref_s);
	s->pull_registry = xstrdup(ref.registry);
	s->pull_cb = cb;
	s->ud = ud;
	s->sink = pull_sink;
	s->finish = pull_finish;
	engine_lines_init(&s->lines, ENGINE_LINE_MAX, pull_line, s);
	s->lines_init = true;
	/* A pull of a large image legitimately takes long: no overall limit. */
	engine_xfer_set_timeout(s, 0);
	if (registry_auth && *registry_auth) {
		cleanup_free char *h = xasprintf("X-Registry-Auth: %s", registry_auth);

		engine_xfer_add_header(s, h);
	}
	rc = engine_xfer_perform(s, err);
	/* A mid-stream error message was built with this context already. */
	if (rc < 0 && err && !(err->kind == ERR_HTTP && err->status == 200))
		error_prefix(err, "pulling %s from %s: ", ref_s, ref.registry);
	engine_stream_free(s);
	image_ref_release(&ref);
	return rc;
}

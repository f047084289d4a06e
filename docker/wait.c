/* The wait endpoint, POST /containers/{id}/wait: as a stream registered
 * before start (engine_wait_stream) and as a blocking call bounded by the
 * caller's deadline and interrupt fd (engine_container_wait_opts). The
 * answer's headers come at once, its body {"StatusCode":N} at exit. */
#include "docker/xfer.h"

#include <limits.h>
#include <stdlib.h>

#include "common/cleanup.h"
#include "common/json.h"
#include "common/xalloc.h"

struct wait_state {
	struct strbuf body;
	long status_code;
	bool have_status;
};

static int wait_sink(struct engine_stream *s, const char *data, size_t len,
		     struct error *err)
{
	struct wait_state *w = s->state;

	if (len > ENGINE_SMALL_BODY_MAX - w->body.len)
		return error_set(err, ERR_LIMIT, 0, "the answer to %s exceeds %u bytes",
				 s->what, ENGINE_SMALL_BODY_MAX);
	strbuf_add(&w->body, data, len);
	return 0;
}

static int wait_finish(struct engine_stream *s, struct error *err)
{
	struct wait_state *w = s->state;
	cleanup_cjson cJSON *j = NULL;
	const cJSON *code;
	const char *m;

	if (engine_parse_json(w->body.buf, w->body.len, s->what, &j, err) < 0)
		return -1;
	m = json_str(json_obj(j, "Error"), "Message");
	if (m && *m)
		return error_set(err, ERR_HTTP, (int)s->status, "%s: %s", s->what, m);
	code = json_get(j, "StatusCode");
	if (!cJSON_IsNumber(code))
		return error_set(err, ERR_PROTOCOL, 0, "the answer to %s has no StatusCode",
				 s->what);
	w->status_code = (long)json_int_of(code, INT_MIN, INT_MAX, -1);
	/* Podman: -1 for a container that never ran; dockerd says 0 */
	if (s->podman && w->status_code == -1)
		w->status_code = 0;
	w->have_status = true;
	return 0;
}

static void wait_release(void *state)
{
	struct wait_state *w = state;

	strbuf_release(&w->body);
	free(w);
}

static const struct engine_xfer_kind wait_kind = {
	.sink = wait_sink,
	.finish = wait_finish,
	.release = wait_release,
};

static struct engine_stream *wait_new(struct engine *e, const char *id,
				      const char *condition)
{
	cleanup_strbuf struct strbuf path = STRBUF_INIT;
	struct engine_stream *s;
	struct wait_state *w = xcalloc(1, sizeof(*w));

	strbuf_init(&w->body, 0);
	strbuf_addstr(&path, "/containers/");
	engine_url_add_path(&path, id);
	strbuf_addstr(&path, "/wait");
	engine_url_add_query(&path, "condition", condition && *condition ? condition : "not-running");
	s = engine_xfer_new(e, "POST", path.buf, false);
	engine_xfer_set_kind(s, &wait_kind, w);
	/* The container may run for days: the caller's deadline bounds it. */
	engine_xfer_set_timeout(s, 0);
	return s;
}

int engine_wait_stream(struct engine *e, const char *id, const char *condition,
		       struct engine_stream **out, struct error *err)
{
	(void)err;
	*out = wait_new(e, id, condition);
	(*out)->await_headers = true;
	return 0;
}

int engine_wait_status(const struct engine_stream *s, long *status_code,
		       struct error *err)
{
	const struct wait_state *w = s->state;

	if (engine_stream_result(s, err) < 0)
		return -1;
	if (s->kind != &wait_kind || !w->have_status)
		return error_set(err, ERR_USAGE, 0, "%s is not a wait stream", s->what);
	*status_code = w->status_code;
	return 0;
}

int engine_container_wait_opts(struct engine *e, const char *id, const char *condition,
			       const struct engine_call_opts *opts, long *status_code,
			       struct error *err)
{
	struct engine_stream *s = wait_new(e, id, condition);
	int rc = engine_xfer_run(s, opts, err);

	if (rc == 0)
		rc = engine_wait_status(s, status_code, err);
	engine_stream_free(s);
	return rc;
}

int engine_container_wait(struct engine *e, const char *id, const char *condition,
			  long *status_code, struct error *err)
{
	return engine_container_wait_opts(e, id, condition, NULL, status_code, err);
}

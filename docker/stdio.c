/* A container's stdout and stderr: the attach endpoint (live, registered
 * before start), the logs endpoint (the engine's copy; as a stream or a
 * blocking call), and the stdio kind that demuxes their frames, which
 * exec's start endpoint uses too. */
#include "docker/xfer.h"

#include <stdlib.h>

#include "common/cleanup.h"
#include "common/xalloc.h"

static int stdio_sink(struct engine_stream *s, const char *data, size_t len,
		      struct error *err)
{
	return engine_demux_feed(s->state, data, len, err) < 0 ? -1 : 0;
}

static int stdio_finish(struct engine_stream *s, struct error *err)
{
	if (engine_demux_finish(s->state, err) < 0)
		return error_prefix(err, "%s: ", s->what);
	return 0;
}

static const struct engine_xfer_kind stdio_kind = {
	.sink = stdio_sink,
	.finish = stdio_finish,
	.release = free,
};

void engine_xfer_set_stdio(struct engine_stream *s, bool raw, engine_frame_cb cb, void *ud)
{
	struct engine_demux *d = xcalloc(1, sizeof(*d));

	engine_demux_init(d, raw, cb, ud);
	engine_xfer_set_kind(s, &stdio_kind, d);
	/* Output may go on as long as the process runs; cb can stop it. */
	engine_xfer_set_timeout(s, 0);
}

/* Framed unless raw: attach (method POST, query stream=1) or logs (GET,
 * follow=). */
static struct engine_stream *stdio_stream_new(struct engine *e, const char *id,
					      const char *method, const char *endpoint,
					      const char *key, const char *value, bool raw,
					      engine_frame_cb cb, void *ud)
{
	cleanup_strbuf struct strbuf path = STRBUF_INIT;
	struct engine_stream *s;

	strbuf_addstr(&path, "/containers/");
	engine_url_add_path(&path, id);
	strbuf_addstr(&path, endpoint);
	engine_url_add_query(&path, key, value);
	engine_url_add_query(&path, "stdout", "1");
	engine_url_add_query(&path, "stderr", "1");
	s = engine_xfer_new(e, method, path.buf, false);
	engine_xfer_set_stdio(s, raw, cb, ud);
	return s;
}

static struct engine_stream *logs_new(struct engine *e, const char *id, bool follow,
				      bool raw, engine_frame_cb cb, void *ud)
{
	return stdio_stream_new(e, id, "GET", "/logs", "follow", follow ? "1" : "0", raw, cb, ud);
}

int engine_logs_stream(struct engine *e, const char *id, bool follow, bool raw,
		       engine_frame_cb cb, void *ud, struct engine_stream **out,
		       struct error *err)
{
	(void)err;
	*out = logs_new(e, id, follow, raw, cb, ud);
	return 0;
}

/* Attach before start: the engine streams the container's stdio as it is
 * written, until exit. Unlike following /logs, nothing depends on the
 * engine's log file, which loses output past a rotation. */
int engine_attach_stream(struct engine *e, const char *id, bool raw, engine_frame_cb cb,
			 void *ud, struct engine_stream **out, struct error *err)
{
	(void)err;
	*out = stdio_stream_new(e, id, "POST", "/attach", "stream", "1", raw, cb, ud);
	/* The answer's headers mean the engine is attached: start may follow. */
	(*out)->await_headers = true;
	return 0;
}

int engine_container_logs_opts(struct engine *e, const char *id, bool follow,
			       engine_frame_cb cb, void *ud,
			       const struct engine_call_opts *opts, struct error *err)
{
	struct engine_container_info info;
	struct engine_stream *s;
	int rc;

	/* Whether the output is framed depends on how it was created. */
	if (engine_container_inspect(e, id, &info, err) < 0)
		return -1;
	s = logs_new(e, id, follow, info.tty, cb, ud);
	engine_container_info_release(&info);
	rc = engine_xfer_run(s, opts, err);
	engine_stream_free(s);
	return rc;
}

int engine_container_logs(struct engine *e, const char *id, bool follow,
			  engine_frame_cb cb, void *ud, struct error *err)
{
	return engine_container_logs_opts(e, id, follow, cb, ud, NULL, err);
}

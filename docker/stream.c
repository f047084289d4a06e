/* Long-lived answers (wait, logs, events) driven by one libcurl multi
 * loop, so a caller can follow logs, wait for exit and watch a signal
 * self-pipe in a single thread; plus blocking conveniences over them. */
#include "docker/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/cleanup.h"
#include "common/xalloc.h"

struct engine_loop {
	CURLM *multi;
	struct engine_stream *head;
};

int engine_loop_new(struct engine_loop **out, struct error *err)
{
	struct engine_loop *l;

	engine_curl_init();
	l = xcalloc(1, sizeof(*l));
	l->multi = curl_multi_init();
	if (!l->multi) {
		free(l);
		return error_set(err, ERR_SYSTEM, 0, "curl_multi_init failed");
	}
	*out = l;
	return 0;
}

static void loop_unlink(struct engine_stream *s)
{
	struct engine_loop *l = s->loop;

	curl_multi_remove_handle(l->multi, s->h);
	if (s->loop_prev)
		s->loop_prev->loop_next = s->loop_next;
	else
		l->head = s->loop_next;
	if (s->loop_next)
		s->loop_next->loop_prev = s->loop_prev;
	s->loop_next = s->loop_prev = NULL;
	s->loop = NULL;
}

void engine_loop_free(struct engine_loop *l)
{
	if (!l)
		return;
	while (l->head) {
		struct engine_stream *s = l->head;

		loop_unlink(s);
		if (!s->done) {
			s->done = true;
			s->rc = -1;
			error_set(&s->err, ERR_CANCELLED, 0, "%s: abandoned (its event loop was freed)",
				  s->what);
		}
	}
	curl_multi_cleanup(l->multi);
	free(l);
}

static long long loop_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void loop_reap(struct engine_loop *l)
{
	CURLMsg *msg;
	int queued;

	while ((msg = curl_multi_info_read(l->multi, &queued))) {
		struct engine_stream *s = NULL;
		CURLcode result;

		if (msg->msg != CURLMSG_DONE)
			continue;
		result = msg->data.result;
		curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&s);
		if (!s)
			continue;
		/* msg is invalid once its handle leaves the multi. */
		loop_unlink(s);
		engine_xfer_complete(s, result);
	}
}

int engine_loop_poll(struct engine_loop *l, int timeout_ms, int extra_fd,
		     struct error *err)
{
	struct curl_waitfd wfd = { .fd = extra_fd, .events = CURL_WAIT_POLLIN, .revents = 0 };
	CURLMcode mc;
	int running;

	mc = curl_multi_poll(l->multi, extra_fd >= 0 ? &wfd : NULL, extra_fd >= 0 ? 1 : 0,
			     timeout_ms < 0 ? 0 : timeout_ms, NULL);
	if (mc != CURLM_OK)
		return error_set(err, ERR_SYSTEM, 0, "waiting for the Docker engine: %s",
				 curl_multi_strerror(mc));
	mc = curl_multi_perform(l->multi, &running);
	if (mc != CURLM_OK)
		return error_set(err, ERR_SYSTEM, 0, "talking to the Docker engine: %s",
				 curl_multi_strerror(mc));
	loop_reap(l);
	return 0;
}

int engine_loop_add(struct engine_loop *l, struct engine_stream *s, struct error *err)
{
	long long deadline;
	CURLMcode mc;

	if (s->loop || s->done)
		return error_set(err, ERR_USAGE, 0, "%s: stream already started", s->what);
	mc = curl_multi_add_handle(l->multi, s->h);
	if (mc != CURLM_OK)
		return error_set(err, ERR_SYSTEM, 0, "starting %s: %s", s->what,
				 curl_multi_strerror(mc));
	s->loop = l;
	s->loop_next = l->head;
	if (l->head)
		l->head->loop_prev = s;
	l->head = s;
	if (!s->await_headers)
		return 0;
	/* The engine answers a wait's headers only once the waiter is
	 * registered: after this, a start cannot outrun it. */
	deadline = loop_now_ms() + ENGINE_CONNECT_TIMEOUT_S * 1000;
	while (!s->headers_done && !s->done) {
		long long left = deadline - loop_now_ms();

		if (left <= 0)
			return error_set(err, ERR_CONNECT, 0,
					 "the Docker engine at %s did not answer %s within %ld s",
					 s->host, s->what, ENGINE_CONNECT_TIMEOUT_S);
		if (engine_loop_poll(l, left < 100 ? (int)left : 100, -1, err) < 0)
			return -1;
	}
	if (s->done && s->rc < 0) {
		*err = s->err;
		return -1;
	}
	return 0;
}

bool engine_stream_responded(const struct engine_stream *s)
{
	return s->headers_done;
}

bool engine_stream_done(const struct engine_stream *s)
{
	return s->done;
}

int engine_stream_result(const struct engine_stream *s, struct error *err)
{
	if (!s->done)
		return error_set(err, ERR_USAGE, 0, "%s: still running", s->what);
	if (s->rc < 0) {
		if (err)
			*err = s->err;
		return -1;
	}
	return 0;
}

void engine_stream_free(struct engine_stream *s)
{
	if (!s)
		return;
	if (s->loop)
		loop_unlink(s);
	if (s->release)
		s->release(s);
	curl_easy_cleanup(s->h);
	curl_slist_free_all(s->headers);
	strbuf_release(&s->body);
	if (s->lines_init)
		engine_lines_release(&s->lines);
	if (s->tar_init)
		engine_tar_release(&s->tar);
	free(s->what);
	free(s->host);
	free(s->socket_path);
	free(s->header_value);
	free(s->pull_ref);
	free(s->pull_registry);
	free(s);
}

/* ---- wait ---- */

static int wait_sink(struct engine_stream *s, const char *data, size_t len,
		     struct error *err)
{
	if (len > ENGINE_SMALL_BODY_MAX - s->body.len)
		return error_set(err, ERR_LIMIT, 0, "the answer to %s exceeds %u bytes",
				 s->what, ENGINE_SMALL_BODY_MAX);
	strbuf_add(&s->body, data, len);
	return 0;
}

static int wait_finish(struct engine_stream *s, struct error *err)
{
	cleanup_cjson cJSON *j = NULL;
	const cJSON *code, *e, *m;

	if (engine_parse_json(s->body.buf, s->body.len, s->what, &j, err) < 0)
		return -1;
	e = cJSON_GetObjectItemCaseSensitive(j, "Error");
	m = cJSON_GetObjectItemCaseSensitive(e, "Message");
	if (cJSON_IsString(m) && m->valuestring[0])
		return error_set(err, ERR_HTTP, (int)s->status, "%s: %s", s->what, m->valuestring);
	code = cJSON_GetObjectItemCaseSensitive(j, "StatusCode");
	if (!cJSON_IsNumber(code))
		return error_set(err, ERR_PROTOCOL, 0, "the answer to %s has no StatusCode",
				 s->what);
	s->wait_status = (long)code->valuedouble;
	s->wait_have_status = true;
	return 0;
}

static struct engine_stream *wait_new(struct engine *e, const char *id,
				      const char *condition)
{
	cleanup_strbuf struct strbuf path = STRBUF_INIT;
	struct engine_stream *s;

	strbuf_addstr(&path, "/containers/");
	engine_url_add_path(&path, id);
	strbuf_addstr(&path, "/wait");
	engine_url_add_query(&path, "condition", condition && *condition ? condition : "not-running");
	s = engine_xfer_new(e, "POST", path.buf, false);
	s->sink = wait_sink;
	s->finish = wait_finish;
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
	if (engine_stream_result(s, err) < 0)
		return -1;
	if (!s->wait_have_status)
		return error_set(err, ERR_USAGE, 0, "%s is not a wait stream", s->what);
	*status_code = s->wait_status;
	return 0;
}

int engine_container_wait(struct engine *e, const char *id, const char *condition,
			  long *status_code, struct error *err)
{
	struct engine_stream *s = wait_new(e, id, condition);
	int rc = engine_xfer_perform(s, err);

	if (rc == 0)
		rc = engine_wait_status(s, status_code, err);
	engine_stream_free(s);
	return rc;
}

/* ---- logs ---- */

int engine_stream_sink_demux(struct engine_stream *s, const char *data, size_t len,
			     struct error *err)
{
	return engine_demux_feed(&s->demux, data, len, err) < 0 ? -1 : 0;
}

int engine_stream_finish_demux(struct engine_stream *s, struct error *err)
{
	if (engine_demux_finish(&s->demux, err) < 0)
		return error_prefix(err, "%s: ", s->what);
	return 0;
}

/* The container's stdout and stderr, framed unless raw: attach (live,
 * method POST, query stream=1) or logs (the engine's copy, GET, follow=). */
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
	s->sink = engine_stream_sink_demux;
	s->finish = engine_stream_finish_demux;
	engine_demux_init(&s->demux, raw, cb, ud);
	engine_xfer_set_timeout(s, 0);
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

int engine_container_logs(struct engine *e, const char *id, bool follow,
			  engine_frame_cb cb, void *ud, struct error *err)
{
	cleanup_cjson cJSON *info = NULL;
	const cJSON *tty;
	struct engine_stream *s;
	int rc;

	/* Whether the output is framed depends on how it was created. */
	if (engine_container_inspect(e, id, &info, err) < 0)
		return -1;
	tty = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(info, "Config"),
					       "Tty");
	s = logs_new(e, id, follow, cJSON_IsTrue(tty), cb, ud);
	rc = engine_xfer_perform(s, err);
	engine_stream_free(s);
	return rc;
}

/* ---- events ---- */

static int events_line(const char *line, size_t len, void *ud, struct error *err)
{
	struct engine_stream *s = ud;
	cleanup_cjson cJSON *j = cJSON_ParseWithLength(line, len);

	if (!cJSON_IsObject(j))
		return error_set(err, ERR_PROTOCOL, 0, "%s: malformed event from the Docker engine",
				 s->what);
	if (s->event_cb(j, s->ud))
		return error_set(err, ERR_CANCELLED, 0, "event stream stopped by its consumer");
	return 0;
}

static int events_sink(struct engine_stream *s, const char *data, size_t len,
		       struct error *err)
{
	return engine_lines_feed(&s->lines, data, len, err) < 0 ? -1 : 0;
}

static int events_finish(struct engine_stream *s, struct error *err)
{
	return engine_lines_finish(&s->lines, err) < 0 ? -1 : 0;
}

int engine_events_stream(struct engine *e, const char *filters_json, long long since,
			 long long until, engine_event_cb cb, void *ud,
			 struct engine_stream **out, struct error *err)
{
	cleanup_strbuf struct strbuf path = STRBUF_INIT;
	struct engine_stream *s;
	char num[32];

	(void)err;
	strbuf_addstr(&path, "/events");
	if (since > 0) {
		snprintf(num, sizeof(num), "%lld", since);
		engine_url_add_query(&path, "since", num);
	}
	if (until > 0) {
		snprintf(num, sizeof(num), "%lld", until);
		engine_url_add_query(&path, "until", num);
	}
	if (filters_json && *filters_json)
		engine_url_add_query(&path, "filters", filters_json);
	s = engine_xfer_new(e, "GET", path.buf, false);
	s->sink = events_sink;
	s->finish = events_finish;
	s->event_cb = cb;
	s->ud = ud;
	engine_lines_init(&s->lines, ENGINE_LINE_MAX, events_line, s);
	s->lines_init = true;
	engine_xfer_set_timeout(s, 0);
	*out = s;
	return 0;
}

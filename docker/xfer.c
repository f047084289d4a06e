/* The transfer (docker/xfer.h): one easy handle per request, set up for
 * the engine's unix socket or tcp(+TLS) address, with the answer either
 * captured (up to a bound) or handed to its kind's sink as it arrives; and
 * the runners (curl multi handles) that drive transfers: the engine's own,
 * for blocking calls, and the callers' loops (docker/loop.c). */
#include "docker/xfer.h"

#include <ctype.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "common/clock.h"
#include "common/cleanup.h"
#include "common/xalloc.h"

static pthread_once_t engine_curl_once = PTHREAD_ONCE_INIT;

static void engine_curl_cleanup(void)
{
	curl_global_cleanup();
}

/* At exit, the library's own allocations go too (valgrind stays quiet). */
static void engine_curl_init_once(void)
{
	if (curl_global_init(CURL_GLOBAL_ALL) != CURLE_OK)
		xdie("curl_global_init failed");
	atexit(engine_curl_cleanup);
}

void engine_curl_init(void)
{
	pthread_once(&engine_curl_once, engine_curl_init_once);
}

#define SETOPT(h, opt, val)                                                    \
	do {                                                                   \
		if (curl_easy_setopt((h), (opt), (val)) != CURLE_OK)           \
			xdie("curl_easy_setopt(%s) failed", #opt);             \
	} while (0)

static bool xfer_status_ok(long status)
{
	return status >= 200 && status < 300;
}

static bool xfer_has_sink(const struct engine_stream *s)
{
	return s->kind && s->kind->sink;
}

/* A new status line starts a new answer (after a 1xx): forget the old one. */
static void xfer_headers_reset(struct engine_stream *s)
{
	s->headers_done = false;
	free(s->header_value);
	s->header_value = NULL;
	free(s->server);
	s->server = NULL;
	free(s->libpod_version);
	s->libpod_version = NULL;
}

/* Keep a header's value in *slot when its name is name. */
static void xfer_keep_header(const char *buf, size_t n, size_t name_len, const char *name,
			     char **slot)
{
	const char *v = buf + name_len + 1;
	const char *end = buf + n;

	if (!name || name_len != strlen(name) || strncasecmp(buf, name, name_len))
		return;
	while (v < end && (*v == ' ' || *v == '\t'))
		v++;
	while (end > v && isspace((unsigned char)end[-1]))
		end--;
	free(*slot);
	*slot = xstrndup(v, (size_t)(end - v));
}

static size_t xfer_header(char *buf, size_t size, size_t nitems, void *ud)
{
	struct engine_stream *s = ud;
	size_t n = size * nitems;
	const char *colon;
	size_t name_len;

	if (n >= 5 && !memcmp(buf, "HTTP/", 5)) {
		const char *p = memchr(buf, ' ', n);
		long code = 0;

		xfer_headers_reset(s);
		for (p = p ? p + 1 : buf + n; p < buf + n && isdigit((unsigned char)*p); p++)
			code = code * 10 + (*p - '0');
		s->status = code;
		s->status_known = true;
		return n;
	}
	if ((n == 2 && buf[0] == '\r' && buf[1] == '\n') || (n == 1 && buf[0] == '\n')) {
		if (s->status >= 200) {
			s->headers_done = true;
			s->sink_active = xfer_has_sink(s) && xfer_status_ok(s->status);
		}
		return n;
	}
	colon = memchr(buf, ':', n);
	if (!colon)
		return n;
	name_len = (size_t)(colon - buf);
	xfer_keep_header(buf, n, name_len, s->want_header, &s->header_value);
	if (s->want_identity) {
		xfer_keep_header(buf, n, name_len, "Server", &s->server);
		xfer_keep_header(buf, n, name_len, "Libpod-Api-Version", &s->libpod_version);
	}
	return n;
}

/* A write callback aborts the transfer by returning anything but n. */
static size_t xfer_write_abort(size_t n)
{
	return n ? 0 : 1;
}

static size_t xfer_write(char *ptr, size_t size, size_t nmemb, void *ud)
{
	struct engine_stream *s = ud;
	size_t n = size * nmemb;
	int r;

	if (!s->headers_done) {
		/* Should not happen (curl parses headers first), but never
		 * hand a body to a sink without knowing the status. */
		long code = 0;

		curl_easy_getinfo(s->h, CURLINFO_RESPONSE_CODE, &code);
		s->status = code;
		s->status_known = true;
		s->headers_done = true;
		s->sink_active = xfer_has_sink(s) && xfer_status_ok(code);
	}
	if (s->sink_active) {
		r = s->kind->sink(s, ptr, n, &s->err);
		if (r < 0) {
			s->sink_failed = true;
			return xfer_write_abort(n);
		}
		if (r == ENGINE_SINK_STOP) {
			s->sink_stopped = true;
			return xfer_write_abort(n);
		}
		return n;
	}
	if (n > s->body_max - s->body.len) {
		s->limit_hit = true;
		return xfer_write_abort(n);
	}
	strbuf_add(&s->body, ptr, n);
	return n;
}

/* Connections outlive a request now (one per engine, kept alive): none
 * may leak into a child process (a credential helper), where a socket to
 * the engine would be root on the host. */
static curl_socket_t xfer_open_socket(void *ud, curlsocktype purpose,
				      struct curl_sockaddr *addr)
{
	(void)ud;
	(void)purpose;
	return socket(addr->family, addr->socktype | SOCK_CLOEXEC, addr->protocol);
}

struct engine_stream *engine_xfer_new(struct engine *e, const char *method,
				      const char *path, bool unversioned)
{
	struct engine_stream *s = xcalloc(1, sizeof(*s));
	cleanup_strbuf struct strbuf url = STRBUF_INIT;

	s->h = curl_easy_init();
	if (!s->h)
		xdie("curl_easy_init failed");
	strbuf_init(&s->body, 0);
	s->body_max = ENGINE_BODY_MAX;
	s->not_found_404 = true;
	s->what = xasprintf("%s %s", method, path);
	s->host = xstrdup(e->host);
	s->socket_path = xstrdup_or_null(e->socket_path);
	s->home = &e->runner;
	s->podman = e->flavour == ENGINE_FLAVOUR_PODMAN;

	strbuf_addstr(&url, e->base_url);
	if (!unversioned)
		strbuf_addf(&url, "/v%s", e->api_version);
	strbuf_addstr(&url, path);
	SETOPT(s->h, CURLOPT_URL, url.buf);
	SETOPT(s->h, CURLOPT_PRIVATE, (void *)s);
	SETOPT(s->h, CURLOPT_NOSIGNAL, 1L);
	SETOPT(s->h, CURLOPT_OPENSOCKETFUNCTION, xfer_open_socket);
	SETOPT(s->h, CURLOPT_CONNECTTIMEOUT, ENGINE_CONNECT_TIMEOUT_S);
	SETOPT(s->h, CURLOPT_ERRORBUFFER, s->errbuf);
	SETOPT(s->h, CURLOPT_WRITEFUNCTION, xfer_write);
	SETOPT(s->h, CURLOPT_WRITEDATA, (void *)s);
	SETOPT(s->h, CURLOPT_HEADERFUNCTION, xfer_header);
	SETOPT(s->h, CURLOPT_HEADERDATA, (void *)s);
	SETOPT(s->h, CURLOPT_USERAGENT, "hrr-docker-replay");
	/* The engine's hijacked streams (exec start) are HTTP/1.1 only. */
	SETOPT(s->h, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
	SETOPT(s->h, CURLOPT_FOLLOWLOCATION, 0L);
	/* A follow stream to a tcp:// engine whose host vanished would
	 * otherwise wait forever for the next byte. */
	SETOPT(s->h, CURLOPT_TCP_KEEPALIVE, 1L);
	if (e->is_unix)
		SETOPT(s->h, CURLOPT_UNIX_SOCKET_PATH, e->socket_path);
	if (e->tls) {
		SETOPT(s->h, CURLOPT_CAINFO, e->tls_ca);
		SETOPT(s->h, CURLOPT_SSLCERT, e->tls_cert);
		SETOPT(s->h, CURLOPT_SSLKEY, e->tls_key);
	}

	if (!strcmp(method, "HEAD")) {
		SETOPT(s->h, CURLOPT_NOBODY, 1L);
	} else if (!strcmp(method, "POST")) {
		/* An empty body unless engine_xfer_set_json() gives one;
		 * without POSTFIELDS curl would read stdin. */
		SETOPT(s->h, CURLOPT_POST, 1L);
		SETOPT(s->h, CURLOPT_POSTFIELDSIZE, 0L);
		SETOPT(s->h, CURLOPT_POSTFIELDS, "");
	} else if (strcmp(method, "GET")) {
		SETOPT(s->h, CURLOPT_CUSTOMREQUEST, method);
	}
	/* Never wait for a 100-continue the engine does not send. */
	engine_xfer_add_header(s, "Expect:");
	engine_xfer_set_timeout(s, e->timeout_s);
	return s;
}

void engine_xfer_set_kind(struct engine_stream *s, const struct engine_xfer_kind *kind,
			  void *state)
{
	if (s->kind && s->kind->release)
		s->kind->release(s->state);
	s->kind = kind;
	s->state = state;
}

void engine_xfer_add_header(struct engine_stream *s, const char *header)
{
	struct curl_slist *l = curl_slist_append(s->headers, header);

	if (!l)
		xdie("out of memory (curl_slist_append)");
	s->headers = l;
	SETOPT(s->h, CURLOPT_HTTPHEADER, s->headers);
}

void engine_xfer_set_json(struct engine_stream *s, const cJSON *body)
{
	char *txt = cJSON_PrintUnformatted(body);

	if (!txt)
		xdie("out of memory (cJSON_PrintUnformatted)");
	SETOPT(s->h, CURLOPT_POSTFIELDSIZE, (long)strlen(txt));
	SETOPT(s->h, CURLOPT_COPYPOSTFIELDS, txt);
	free(txt);
	engine_xfer_add_header(s, "Content-Type: application/json");
}

void engine_xfer_set_timeout(struct engine_stream *s, long seconds)
{
	s->timeout_s = seconds > 0 ? seconds : 0;
	SETOPT(s->h, CURLOPT_TIMEOUT, s->timeout_s);
}

static void xfer_complete(struct engine_stream *s, CURLcode code)
{
	s->done = true;
	s->rc = -1;
	if (s->sink_failed)
		return; /* s->err is the sink's */
	if (s->limit_hit) {
		error_set(&s->err, ERR_LIMIT, 0,
			  "the Docker engine's answer to %s exceeds %zu bytes",
			  s->what, s->body_max);
		return;
	}
	if (s->sink_stopped) {
		s->rc = 0;
		return;
	}
	if (code != CURLE_OK) {
		engine_xfer_transport_error(s, code);
		return;
	}
	if (!s->status_known) {
		curl_easy_getinfo(s->h, CURLINFO_RESPONSE_CODE, &s->status);
		s->status_known = true;
	}
	if (xfer_has_sink(s) && !xfer_status_ok(s->status)) {
		engine_xfer_http_error(s, &s->err);
		return;
	}
	if (xfer_has_sink(s) && s->kind->finish && s->kind->finish(s, &s->err) < 0)
		return;
	s->rc = 0;
}

/* ---- runners ---- */

int engine_runner_init(struct engine_runner *r, struct error *err)
{
	engine_curl_init();
	r->head = NULL;
	r->multi = curl_multi_init();
	if (!r->multi)
		return error_set(err, ERR_SYSTEM, 0, "curl_multi_init failed");
	return 0;
}

static void runner_detach(struct engine_stream *s)
{
	struct engine_runner *r = s->runner;

	curl_multi_remove_handle(r->multi, s->h);
	if (s->prev)
		s->prev->next = s->next;
	else
		r->head = s->next;
	if (s->next)
		s->next->prev = s->prev;
	s->next = s->prev = NULL;
	s->runner = NULL;
}

/* Ends an unfinished transfer without its answer; removing the handle
 * closes its connection, so nothing half-read is ever reused. */
static void runner_abandon(struct engine_stream *s, enum error_kind kind, const char *why)
{
	if (s->runner)
		runner_detach(s);
	if (s->done)
		return;
	s->done = true;
	s->rc = -1;
	error_set(&s->err, kind, 0, "%s: %s", s->what, why);
}

void engine_runner_release(struct engine_runner *r)
{
	while (r->head)
		runner_abandon(r->head, ERR_CANCELLED, "abandoned (its event loop was freed)");
	if (r->multi)
		curl_multi_cleanup(r->multi);
	r->multi = NULL;
}

int engine_runner_attach(struct engine_runner *r, struct engine_stream *s,
			 struct error *err)
{
	CURLMcode mc;

	if (s->runner || s->done)
		return error_set(err, ERR_USAGE, 0, "%s: stream already started", s->what);
	mc = curl_multi_add_handle(r->multi, s->h);
	if (mc != CURLM_OK)
		return error_set(err, ERR_SYSTEM, 0, "starting %s: %s", s->what,
				 curl_multi_strerror(mc));
	s->runner = r;
	s->next = r->head;
	if (r->head)
		r->head->prev = s;
	r->head = s;
	return 0;
}

static void runner_reap(struct engine_runner *r)
{
	CURLMsg *msg;
	int queued;

	while ((msg = curl_multi_info_read(r->multi, &queued))) {
		struct engine_stream *s = NULL;
		CURLcode result;

		if (msg->msg != CURLMSG_DONE)
			continue;
		result = msg->data.result;
		curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&s);
		if (!s)
			continue;
		/* msg is invalid once its handle leaves the multi. */
		runner_detach(s);
		xfer_complete(s, result);
	}
}

static int runner_perform(struct engine_runner *r, struct error *err)
{
	CURLMcode mc;
	int running;

	mc = curl_multi_perform(r->multi, &running);
	if (mc != CURLM_OK)
		return error_set(err, ERR_SYSTEM, 0, "talking to the Docker engine: %s",
				 curl_multi_strerror(mc));
	runner_reap(r);
	return 0;
}

int engine_runner_step(struct engine_runner *r, int timeout_ms, int extra_fd,
		       struct error *err)
{
	struct curl_waitfd wfd = { .fd = extra_fd, .events = CURL_WAIT_POLLIN, .revents = 0 };
	CURLMcode mc;

	mc = curl_multi_poll(r->multi, extra_fd >= 0 ? &wfd : NULL, extra_fd >= 0 ? 1 : 0,
			     timeout_ms < 0 ? 0 : timeout_ms, NULL);
	if (mc != CURLM_OK)
		return error_set(err, ERR_SYSTEM, 0, "waiting for the Docker engine: %s",
				 curl_multi_strerror(mc));
	return runner_perform(r, err);
}

/* ---- blocking runs ---- */

bool engine_fd_readable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN, .revents = 0 };

	return fd >= 0 && poll(&p, 1, 0) > 0 && (p.revents & (POLLIN | POLLHUP | POLLERR));
}

/* How long the next wait may be: until the deadline, at most 1 s, or -1
 * when it has passed. */
static int xfer_wait_ms(const struct engine_call_opts *opts)
{
	double left;

	if (!opts || opts->deadline <= 0)
		return 1000;
	left = opts->deadline - monotonic_now();
	if (left <= 0)
		return -1;
	return left >= 1.0 ? 1000 : (int)(left * 1000) + 1;
}

static int xfer_drive(struct engine_runner *r, struct engine_stream *s,
		      const struct engine_call_opts *opts, struct error *err)
{
	int fd = opts ? opts->interrupt_fd : -1;

	if (engine_runner_attach(r, s, err) < 0)
		return -1;
	while (!s->done) {
		int wait_ms = xfer_wait_ms(opts);

		if (engine_fd_readable(fd)) {
			runner_abandon(s, ERR_INTERRUPTED, "interrupted");
			break;
		}
		if (wait_ms < 0) {
			runner_abandon(s, ERR_TIMEOUT, "no complete answer from the Docker engine before the deadline");
			break;
		}
		if (runner_perform(r, err) < 0 ||
		    (!s->done && engine_runner_step(r, wait_ms, fd, err) < 0)) {
			runner_abandon(s, err->kind, err->msg);
			break;
		}
	}
	return 0;
}

int engine_xfer_run(struct engine_stream *s, const struct engine_call_opts *opts,
		    struct error *err)
{
	struct engine_runner nested = { 0 };
	struct error local;
	int rc;

	if (!err)
		err = &local;
	/* A callback of a running call that calls the engine again gets a
	 * runner (and a connection) of its own: curl is not re-entrant. */
	if (s->home->head) {
		if (engine_runner_init(&nested, err) < 0)
			return -1;
		rc = xfer_drive(&nested, s, opts, err);
		engine_runner_release(&nested);
	} else {
		rc = xfer_drive(s->home, s, opts, err);
	}
	if (rc < 0)
		return -1;
	if (s->rc < 0)
		*err = s->err;
	return s->rc;
}

int engine_parse_json(const char *data, size_t len, const char *what, cJSON **out,
		      struct error *err)
{
	cJSON *j = len ? cJSON_ParseWithLength(data, len) : NULL;

	if (!j)
		return error_set(err, ERR_PROTOCOL, 0,
				 "malformed JSON in the Docker engine's answer to %s", what);
	*out = j;
	return 0;
}

int engine_request_json(struct engine *e, const char *method, const char *path,
			const cJSON *body, const long *ok, bool not_found_404,
			long timeout_s, cJSON **out, struct error *err)
{
	struct engine_stream *s = engine_xfer_new(e, method, path, false);
	bool good = false;
	int rc = -1;

	s->not_found_404 = not_found_404;
	if (body)
		engine_xfer_set_json(s, body);
	if (timeout_s)
		engine_xfer_set_timeout(s, timeout_s);
	if (engine_xfer_run(s, NULL, err) < 0)
		goto out;
	for (const long *p = ok; *p; p++)
		good |= s->status == *p;
	if (!good) {
		engine_xfer_http_error(s, err);
		goto out;
	}
	if (out && engine_parse_json(s->body.buf, s->body.len, s->what, out, err) < 0)
		goto out;
	rc = 0;
out:
	engine_stream_free(s);
	return rc;
}

int engine_xfer_lines_sink(struct engine_stream *s, const char *data, size_t len,
			   struct error *err)
{
	return engine_lines_feed(s->state, data, len, err) < 0 ? -1 : 0;
}

int engine_xfer_lines_finish(struct engine_stream *s, struct error *err)
{
	return engine_lines_finish(s->state, err) < 0 ? -1 : 0;
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
	if (s->runner)
		runner_detach(s);
	if (s->kind && s->kind->release)
		s->kind->release(s->state);
	curl_easy_cleanup(s->h);
	curl_slist_free_all(s->headers);
	strbuf_release(&s->body);
	free(s->what);
	free(s->host);
	free(s->socket_path);
	free(s->header_value);
	free(s->server);
	free(s->libpod_version);
	free(s);
}

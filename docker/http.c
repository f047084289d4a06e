/* libcurl plumbing: one easy handle per request, set up for the engine's
 * unix socket or tcp(+TLS) address, with the answer either captured (up to
 * a bound) or handed to a sink as it arrives. The same object runs blocking
 * (curl_easy_perform) or inside an engine_loop (curl multi). */
#include "docker/internal.h"

#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/cleanup.h"
#include "common/xalloc.h"

static pthread_once_t engine_curl_once = PTHREAD_ONCE_INIT;

static void engine_curl_init_once(void)
{
	if (curl_global_init(CURL_GLOBAL_ALL) != CURLE_OK)
		xdie("curl_global_init failed");
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

/* A new status line starts a new answer (after a 1xx): forget the old one. */
static void xfer_headers_reset(struct engine_stream *s)
{
	s->headers_done = false;
	free(s->header_value);
	s->header_value = NULL;
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
			s->sink_active = s->sink && xfer_status_ok(s->status);
		}
		return n;
	}
	if (!s->want_header)
		return n;
	colon = memchr(buf, ':', n);
	if (!colon)
		return n;
	name_len = (size_t)(colon - buf);
	if (name_len == strlen(s->want_header) &&
	    !strncasecmp(buf, s->want_header, name_len)) {
		const char *v = colon + 1;
		const char *end = buf + n;

		while (v < end && (*v == ' ' || *v == '\t'))
			v++;
		while (end > v && isspace((unsigned char)end[-1]))
			end--;
		free(s->header_value);
		s->header_value = xstrndup(v, (size_t)(end - v));
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
		s->sink_active = s->sink && xfer_status_ok(code);
	}
	if (s->sink_active) {
		r = s->sink(s, ptr, n, &s->err);
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

struct engine_stream *engine_xfer_new(struct engine *e, const char *method,
				      const char *path, bool unversioned)
{
	struct engine_stream *s = xcalloc(1, sizeof(*s));
	cleanup_strbuf struct strbuf url = STRBUF_INIT;

	engine_curl_init();
	s->h = curl_easy_init();
	if (!s->h)
		xdie("curl_easy_init failed");
	strbuf_init(&s->body, 0);
	s->body_max = ENGINE_BODY_MAX;
	s->not_found_404 = true;
	s->what = xasprintf("%s %s", method, path);
	s->host = xstrdup(e->host);
	s->socket_path = e->socket_path ? xstrdup(e->socket_path) : NULL;

	strbuf_addstr(&url, e->base_url);
	if (!unversioned)
		strbuf_addf(&url, "/v%s", e->api_version);
	strbuf_addstr(&url, path);
	SETOPT(s->h, CURLOPT_URL, url.buf);
	SETOPT(s->h, CURLOPT_PRIVATE, (void *)s);
	SETOPT(s->h, CURLOPT_NOSIGNAL, 1L);
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
	engine_xfer_set_timeout(s, ENGINE_REQUEST_TIMEOUT_S);
	return s;
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

static bool xfer_connect_failure(CURLcode code)
{
	switch (code) {
	case CURLE_COULDNT_CONNECT:
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_RESOLVE_PROXY:
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CERTPROBLEM:
	case CURLE_SSL_CIPHER:
	case CURLE_SSL_CACERT_BADFILE:
	case CURLE_SSL_ISSUER_ERROR:
	case CURLE_SSL_CRL_BADFILE:
	case CURLE_UNSUPPORTED_PROTOCOL:
		return true;
	default:
		return false;
	}
}

static const char *xfer_curl_detail(const struct engine_stream *s, CURLcode code)
{
	return s->errbuf[0] ? s->errbuf : curl_easy_strerror(code);
}

static void xfer_transport_error(struct engine_stream *s, CURLcode code)
{
	long os_errno = 0;
	struct stat st;

	if (xfer_connect_failure(code)) {
		if (s->socket_path && stat(s->socket_path, &st) < 0) {
			error_set(&s->err, ERR_CONNECT, 0,
				  "cannot reach the Docker engine at %s: %s: %s (is dockerd running?)",
				  s->host, s->socket_path, strerror(errno));
			return;
		}
		if (s->socket_path && !S_ISSOCK(st.st_mode)) {
			error_set(&s->err, ERR_CONNECT, 0,
				  "cannot reach the Docker engine at %s: %s is not a socket",
				  s->host, s->socket_path);
			return;
		}
		curl_easy_getinfo(s->h, CURLINFO_OS_ERRNO, &os_errno);
		error_set(&s->err, ERR_CONNECT, 0, "cannot reach the Docker engine at %s: %s%s",
			  s->host, os_errno ? strerror((int)os_errno) : xfer_curl_detail(s, code),
			  code == CURLE_COULDNT_CONNECT ? " (is dockerd running?)" : "");
		return;
	}
	if (code == CURLE_OPERATION_TIMEDOUT) {
		error_set(&s->err, s->status_known ? ERR_PROTOCOL : ERR_CONNECT, 0,
			  "the Docker engine at %s did not complete %s within %ld s",
			  s->host, s->what, s->timeout_s ? s->timeout_s : ENGINE_CONNECT_TIMEOUT_S);
		return;
	}
	if (code == CURLE_GOT_NOTHING) {
		error_set(&s->err, ERR_PROTOCOL, 0,
			  "the Docker engine at %s closed the connection without answering %s",
			  s->host, s->what);
		return;
	}
	error_set(&s->err, ERR_PROTOCOL, 0,
		  "the connection to the Docker engine at %s broke during %s: %s",
		  s->host, s->what, xfer_curl_detail(s, code));
}

void engine_xfer_complete(struct engine_stream *s, CURLcode code)
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
		xfer_transport_error(s, code);
		return;
	}
	if (!s->status_known) {
		curl_easy_getinfo(s->h, CURLINFO_RESPONSE_CODE, &s->status);
		s->status_known = true;
	}
	if (s->sink && !xfer_status_ok(s->status)) {
		engine_xfer_http_error(s, &s->err);
		return;
	}
	if (s->sink && s->finish && s->finish(s, &s->err) < 0)
		return;
	s->rc = 0;
}

int engine_xfer_perform(struct engine_stream *s, struct error *err)
{
	CURLcode code = curl_easy_perform(s->h);

	engine_xfer_complete(s, code);
	if (s->rc < 0 && err)
		*err = s->err;
	return s->rc;
}

/* The engine's message, or a readable excerpt of a non-JSON body. */
static void xfer_message(const struct engine_stream *s, struct strbuf *out)
{
	cleanup_cjson cJSON *j = NULL;
	const cJSON *m;
	size_t n = 0;

	if (s->body.len) {
		j = cJSON_ParseWithLength(s->body.buf, s->body.len);
		m = cJSON_GetObjectItemCaseSensitive(j, "message");
		if (cJSON_IsString(m) && m->valuestring[0]) {
			strbuf_addstr(out, m->valuestring);
			return;
		}
	}
	strbuf_addf(out, "the Docker engine answered HTTP %ld to %s", s->status, s->what);
	for (size_t i = 0; i < s->body.len && n < 300; i++) {
		unsigned char c = (unsigned char)s->body.buf[i];

		if (!n && isspace(c))
			continue;
		if (!n)
			strbuf_addstr(out, ": ");
		strbuf_addch(out, (c < 0x20 || c == 0x7f) ? ' ' : c);
		n++;
	}
	while (out->len && isspace((unsigned char)out->buf[out->len - 1]))
		strbuf_setlen(out, out->len - 1);
}

int engine_xfer_http_error(const struct engine_stream *s, struct error *err)
{
	cleanup_strbuf struct strbuf msg = STRBUF_INIT;
	enum error_kind kind = ERR_HTTP;

	xfer_message(s, &msg);
	if (s->status == 404 && s->not_found_404)
		kind = ERR_NOT_FOUND;
	return error_set(err, kind, (int)s->status, "%s", msg.buf);
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
	if (engine_xfer_perform(s, err) < 0)
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

/* What a failed transfer says: a transport failure (no engine, refused,
 * not answering, cut off) or the engine's own error answer, always naming
 * the engine and the request. */
#include "docker/xfer.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/cleanup.h"
#include "common/json.h"

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

void engine_xfer_transport_error(struct engine_stream *s, CURLcode code)
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
		error_set(&s->err, ERR_TIMEOUT, 0,
			  "the Docker engine at %s is not answering: %s took longer than %ld s%s",
			  s->host, s->what, s->timeout_s ? s->timeout_s : ENGINE_CONNECT_TIMEOUT_S,
			  s->timeout_s ? " (" ENGINE_TIMEOUT_ENV " sets this limit)" : "");
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

/* The engine's message, or a readable excerpt of a non-JSON body. */
static void xfer_message(const struct engine_stream *s, struct strbuf *out)
{
	cleanup_cjson cJSON *j = NULL;
	const char *m;
	size_t n = 0;

	if (s->body.len) {
		j = cJSON_ParseWithLength(s->body.buf, s->body.len);
		m = json_str(j, "message");
		if (m && *m) {
			strbuf_addstr(out, m);
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
	long status = s->status;

	xfer_message(s, &msg);
	if (s->podman)
		status = podman_error_status(status, s->body.buf, s->body.len, &msg);
	if (status == 404 && s->not_found_404)
		kind = ERR_NOT_FOUND;
	engine_too_old_hint(status, getenv("DOCKER_API_VERSION"), &msg);
	return error_set(err, kind, (int)status, "%s", msg.buf);
}

/* Docker 29 refuses a client below API 1.44 with 400 "client version 1.41
 * is too old. Minimum supported API version is 1.44, ...". Negotiation
 * never asks for less than the engine's minimum; only a pin does. */
void engine_too_old_hint(long status, const char *pin, struct strbuf *msg)
{
	if (status != 400 || !strstr(msg->buf, "is too old. Minimum supported API version is"))
		return;
	if (pin && *pin)
		strbuf_addf(msg, " (DOCKER_API_VERSION=%s pins the client's: unset it, or set the engine's minimum or newer)",
			    pin);
}


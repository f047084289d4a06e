/* The engine client against a fake engine that misbehaves on purpose:
 * every fault must give a clear error, no crash and bounded memory. */
#include <criterion/criterion.h>

#include "tests/support/scratch.h"
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "common/strbuf.h"
#include "common/xalloc.h"
#include "docker/internal.h"
#include "tests/support/engine_test.h"
#include "tests/support/fake_engine.h"

static struct fake_engine *fe;
static char *saved_api_version;

static void setup(void)
{
	saved_api_version = getenv("DOCKER_API_VERSION") ? xstrdup(getenv("DOCKER_API_VERSION"))
							 : NULL;
	unsetenv("DOCKER_API_VERSION");
	fe = fake_engine_start();
}

static void teardown(void)
{
	fake_engine_stop(fe);
	fe = NULL;
	if (saved_api_version)
		setenv("DOCKER_API_VERSION", saved_api_version, 1);
	free(saved_api_version);
}

TestSuite(docker_fault, .init = setup, .fini = teardown);

static struct engine *open_fake(const char *api_version)
{
	struct engine *e = NULL;
	struct error err;
	char hdr[64];

	snprintf(hdr, sizeof(hdr), "Api-Version: %s", api_version);
	fake_engine_route_json(fe, "GET /_ping", 200, hdr, "OK");
	cr_assert_eq(engine_open(&e, fake_engine_host(fe), &err), 0, "%s", err.msg);
	return e;
}

static void assert_contains(const char *s, const char *needle)
{
	cr_assert(s && strstr(s, needle), "\"%s\" does not contain \"%s\"", s ? s : "(null)",
		  needle);
}

static void add_frame(struct strbuf *sb, int stream, const char *payload, uint32_t len)
{
	unsigned char h[8] = { (unsigned char)stream, 0, 0, 0, (unsigned char)(len >> 24),
			       (unsigned char)(len >> 16), (unsigned char)(len >> 8),
			       (unsigned char)len };

	strbuf_add(sb, h, sizeof(h));
	if (payload)
		strbuf_add(sb, payload, len);
}

/* ---- negotiation and connection ---- */

Test(docker_fault, ping_newer_than_ours_negotiates_our_max)
{
	struct engine *e = open_fake("1.52");
	struct engine_version_info v;
	struct error err;
	char *req;

	cr_assert_str_eq(engine_api_version(e), "1.51");
	cr_assert(engine_is_unix(e));
	cr_assert_str_eq(engine_host(e), fake_engine_host(fe));
	req = fake_engine_request(fe, 0);
	assert_contains(req, "GET /_ping HTTP/1.1");
	free(req);
	fake_engine_route_json(fe, "GET /v1.51/version", 200, NULL, "{\"ApiVersion\":\"1.52\"}");
	cr_assert_eq(engine_version(e, &v, &err), 0, "%s", err.msg);
	cr_assert_str_eq(v.api_version, "1.52");
	engine_version_info_release(&v);
	engine_close(e);
}

Test(docker_fault, ping_header_name_is_case_insensitive_and_older_engine_is_used_as_is)
{
	struct engine *e = NULL;
	struct error err;

	fake_engine_route_json(fe, "GET /_ping", 200, "aPi-vErSiOn:   1.42  ", "OK");
	cr_assert_eq(engine_open(&e, fake_engine_host(fe), &err), 0, "%s", err.msg);
	cr_assert_str_eq(engine_api_version(e), "1.42");
	engine_close(e);
}

Test(docker_fault, ping_older_than_min_is_refused_naming_both_versions)
{
	struct engine *e = NULL;
	struct error err;

	fake_engine_route_json(fe, "GET /_ping", 200, "Api-Version: 1.40", "OK");
	cr_assert_eq(engine_open(&e, fake_engine_host(fe), &err), -1);
	cr_assert_null(e);
	cr_assert_eq(err.kind, ERR_CONNECT);
	assert_contains(err.msg, "1.40");
	assert_contains(err.msg, ENGINE_API_VERSION_MIN);
	assert_contains(err.msg, fake_engine_host(fe));
}

Test(docker_fault, ping_without_api_version_means_1_24_and_is_refused)
{
	struct engine *e = NULL;
	struct error err;

	fake_engine_route_json(fe, "GET /_ping", 200, NULL, "OK");
	cr_assert_eq(engine_open(&e, fake_engine_host(fe), &err), -1);
	assert_contains(err.msg, "1.24");
	assert_contains(err.msg, ENGINE_API_VERSION_MIN);
}

Test(docker_fault, ping_error_status_is_reported)
{
	struct engine *e = NULL;
	struct error err;

	fake_engine_route_json(fe, "GET /_ping", 500, "Api-Version: 1.44",
			       "{\"message\":\"daemon is shutting down\"}");
	cr_assert_eq(engine_open(&e, fake_engine_host(fe), &err), -1);
	cr_assert_eq(err.kind, ERR_HTTP);
	cr_assert_eq(err.status, 500);
	assert_contains(err.msg, "daemon is shutting down");
}

Test(docker_fault, docker_api_version_pins_without_a_ping)
{
	struct engine *e = NULL;
	struct error err;
	char *req;

	setenv("DOCKER_API_VERSION", "1.43", 1);
	cr_assert_eq(engine_open(&e, fake_engine_host(fe), &err), 0, "%s", err.msg);
	cr_assert_str_eq(engine_api_version(e), "1.43");
	cr_assert_eq(fake_engine_request_count(fe), 0, "a pinned version needs no ping");
	fake_engine_route_json(fe, "DELETE /v1.43/containers/abc", 204, NULL, "");
	cr_assert_eq(engine_container_remove(e, "abc", true, &err), 0, "%s", err.msg);
	req = fake_engine_request(fe, 0);
	assert_contains(req, "DELETE /v1.43/containers/abc?force=1&v=1 HTTP/1.1");
	free(req);
	engine_close(e);

	setenv("DOCKER_API_VERSION", "1.30", 1);
	cr_assert_eq(engine_open(&e, fake_engine_host(fe), &err), -1);
	cr_assert_eq(err.kind, ERR_USAGE);
	assert_contains(err.msg, "1.30");
	assert_contains(err.msg, ENGINE_API_VERSION_MIN);
	setenv("DOCKER_API_VERSION", "latest", 1);
	cr_assert_eq(engine_open(&e, fake_engine_host(fe), &err), -1);
	cr_assert_eq(err.kind, ERR_USAGE);
}

Test(docker_fault, missing_socket_is_a_connect_error_naming_the_host)
{
	struct engine *e = NULL;
	struct error err;

	cr_assert_eq(engine_open(&e, "unix:///tmp/hrr-no-such-dir/docker.sock", &err), -1);
	cr_assert_eq(err.kind, ERR_CONNECT);
	assert_contains(err.msg, "unix:///tmp/hrr-no-such-dir/docker.sock");
	assert_contains(err.msg, "No such file or directory");
	assert_contains(err.msg, "is dockerd running?");
}

Test(docker_fault, refused_socket_is_a_connect_error)
{
	char *dir = scratch_dir("engine-test");
	char *path = xasprintf("%s/dead.sock", dir);
	char *host = xasprintf("unix://%s", path);
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);
	struct engine *e = NULL;
	struct error err;

	/* Bound but never listening: connect() is refused, as with a stale
	 * socket left by a dead dockerd. */
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	cr_assert_eq(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	cr_assert_eq(engine_open(&e, host, &err), -1);
	cr_assert_eq(err.kind, ERR_CONNECT);
	assert_contains(err.msg, host);
	assert_contains(err.msg, "Connection refused");
	close(fd);
	scratch_remove(dir);
	free(dir);
	free(path);
	free(host);
}

Test(docker_fault, refused_tcp_is_a_connect_error)
{
	struct engine *e = NULL;
	struct error err;

	unsetenv("DOCKER_TLS_VERIFY");
	cr_assert_eq(engine_open(&e, "tcp://127.0.0.1:1", &err), -1);
	cr_assert_eq(err.kind, ERR_CONNECT);
	assert_contains(err.msg, "tcp://127.0.0.1:1");
}

Test(docker_fault, unsupported_hosts_are_refused_clearly)
{
	struct engine *e = NULL;
	struct error err;
	char longpath[200];

	cr_assert_eq(engine_open(&e, "ssh://user@host", &err), -1);
	cr_assert_eq(err.kind, ERR_USAGE);
	assert_contains(err.msg, "not supported");
	cr_assert_eq(engine_open(&e, "npipe:////./pipe/docker_engine", &err), -1);
	cr_assert_eq(err.kind, ERR_USAGE);
	memset(longpath, 'a', sizeof(longpath));
	memcpy(longpath, "unix:///", 8);
	longpath[sizeof(longpath) - 1] = '\0';
	cr_assert_eq(engine_open(&e, longpath, &err), -1);
	cr_assert_eq(err.kind, ERR_USAGE);
	assert_contains(err.msg, "107");
	cr_assert_eq(engine_open(&e, "tcp://h:2375/path", &err), -1);
	cr_assert_eq(err.kind, ERR_USAGE);
}

Test(docker_fault, tls_needs_its_certificate_files)
{
	struct engine *e = NULL;
	struct error err;
	char *dir = scratch_dir("engine-test");

	setenv("DOCKER_TLS_VERIFY", "1", 1);
	setenv("DOCKER_CERT_PATH", dir, 1);
	cr_assert_eq(engine_open(&e, "tcp://127.0.0.1:2376", &err), -1);
	cr_assert_eq(err.kind, ERR_USAGE);
	assert_contains(err.msg, "ca.pem");
	unsetenv("DOCKER_TLS_VERIFY");
	unsetenv("DOCKER_CERT_PATH");
	scratch_remove(dir);
	free(dir);
}

/* ---- malformed answers ---- */

Test(docker_fault, truncated_body_is_a_protocol_error)
{
	struct engine *e = open_fake("1.41");
	struct engine_container_info j;
	struct error err;

	fake_engine_route_str(fe, "GET /v1.41/containers/abc/json",
			      "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
			      "Content-Length: 100\r\n\r\n{\"Id\":\"abc\",");
	cr_assert_eq(engine_container_inspect(e, "abc", &j, &err), -1);
	cr_assert_null(j.id);
	cr_assert_eq(err.kind, ERR_PROTOCOL);
	assert_contains(err.msg, fake_engine_host(fe));
	engine_close(e);
}

Test(docker_fault, malformed_json_is_a_protocol_error)
{
	struct engine *e = open_fake("1.41");
	struct engine_container_info j;
	struct engine_containers l;
	struct error err;

	fake_engine_route_json(fe, "GET /v1.41/containers/abc/json", 200, NULL, "{\"Id\": nope");
	cr_assert_eq(engine_container_inspect(e, "abc", &j, &err), -1);
	cr_assert_eq(err.kind, ERR_PROTOCOL);
	assert_contains(err.msg, "malformed JSON");
	fake_engine_route_json(fe, "GET /v1.41/containers/json", 200, NULL, "{}");
	cr_assert_eq(engine_container_list(e, "a=b", &l, &err), -1);
	cr_assert_eq(err.kind, ERR_PROTOCOL);
	engine_close(e);
}

Test(docker_fault, no_answer_at_all_is_a_protocol_error)
{
	struct engine *e = open_fake("1.41");
	struct error err;

	fake_engine_route_str(fe, "POST /v1.41/containers/abc/start", "");
	cr_assert_eq(engine_container_start(e, "abc", &err), -1);
	cr_assert_eq(err.kind, ERR_PROTOCOL, "%s", err.msg);
	assert_contains(err.msg, "without answering");
	engine_close(e);
}

Test(docker_fault, oversized_body_is_refused_at_the_bound)
{
	struct engine *e = open_fake("1.41");
	struct strbuf raw = STRBUF_INIT;
	size_t big = ENGINE_BODY_MAX + 4096;
	struct engine_containers j;
	struct error err;

	strbuf_addf(&raw, "HTTP/1.1 200 OK\r\nContent-Length: %zu\r\n\r\n[", big);
	strbuf_grow(&raw, big);
	memset(raw.buf + raw.len, ' ', big - 2);
	strbuf_setlen(&raw, raw.len + big - 2);
	strbuf_addch(&raw, ']');
	fake_engine_route(fe, "GET /v1.41/containers/json", raw.buf, raw.len);
	strbuf_release(&raw);
	cr_assert_eq(engine_container_list(e, NULL, &j, &err), -1);
	cr_assert_eq(err.kind, ERR_LIMIT);
	assert_contains(err.msg, "exceeds");
	engine_close(e);
}

/* ---- HTTP statuses ---- */

Test(docker_fault, engine_errors_carry_status_and_message)
{
	struct engine *e = open_fake("1.41");
	struct engine_container_info j;
	struct engine_image_info img;
	struct error err;

	fake_engine_route_json(fe, "GET /v1.41/containers/gone/json", 404, NULL,
			       "{\"message\":\"No such container: gone\"}");
	cr_assert_eq(engine_container_inspect(e, "gone", &j, &err), -1);
	cr_assert_eq(err.kind, ERR_NOT_FOUND);
	cr_assert_eq(err.status, 404);
	cr_assert_str_eq(err.msg, "No such container: gone");

	fake_engine_route_json(fe, "POST /v1.41/containers/idle/kill", 409, NULL,
			       "{\"message\":\"Container idle is not running\"}");
	cr_assert_eq(engine_container_kill(e, "idle", "SIGTERM", &err), -1);
	cr_assert_eq(err.kind, ERR_HTTP);
	cr_assert_eq(err.status, 409);
	assert_contains(err.msg, "is not running");

	fake_engine_route_str(fe, "GET /v1.41/images/",
			      "HTTP/1.1 500 Internal Server Error\r\nContent-Type: text/plain\r\n"
			      "Content-Length: 17\r\n\r\nsomething\001broke\n\n");
	cr_assert_eq(engine_image_inspect(e, "img", &img, &err), -1);
	cr_assert_eq(err.kind, ERR_HTTP);
	cr_assert_eq(err.status, 500);
	assert_contains(err.msg, "HTTP 500");
	assert_contains(err.msg, "something broke");
	engine_close(e);
}

Test(docker_fault, start_and_stop_accept_304)
{
	struct engine *e = open_fake("1.41");
	struct error err;
	char *req;

	fake_engine_route_json(fe, "POST /v1.41/containers/c1/start", 304, NULL, "");
	fake_engine_route_json(fe, "POST /v1.41/containers/c1/stop", 304, NULL, "");
	cr_assert_eq(engine_container_start(e, "c1", &err), 0, "%s", err.msg);
	cr_assert_eq(engine_container_stop(e, "c1", 7, &err), 0, "%s", err.msg);
	req = fake_engine_find_request(fe, "POST /v1.41/containers/c1/stop");
	assert_contains(req, "stop?t=7 ");
	free(req);
	engine_close(e);
}

/* ---- pull ---- */

struct pull_seen {
	int events;
	int with_progress;
	char last_status[64];
};

static void on_pull(const struct engine_pull_event *ev, void *ud)
{
	struct pull_seen *p = ud;

	p->events++;
	if (ev->total > 0 && ev->current >= 0)
		p->with_progress++;
	snprintf(p->last_status, sizeof(p->last_status), "%s", ev->status ? ev->status : "");
}

Test(docker_fault, pull_error_after_http_200_is_found)
{
	struct engine *e = open_fake("1.41");
	struct pull_seen seen = { 0 };
	struct error err;
	char *req;

	fake_engine_route_str(fe, "POST /v1.41/images/create",
			      "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n"
			      "{\"status\":\"Pulling from x/y\",\"id\":\"t\"}\r\n"
			      "{\"status\":\"Downloading\",\"progressDetail\":{\"current\":10,\"total\":100},"
			      "\"progress\":\"[=>  ]\",\"id\":\"abc\"}\r\n"
			      "{\"errorDetail\":{\"message\":\"x\"},\"error\":\"x\"}\r\n"
			      "{\"status\":\"never seen\"}\r\n");
	cr_assert_eq(engine_pull_image(e, "127.0.0.1:5000/x/y:t", "QUJD", on_pull, &seen, &err), -1);
	cr_assert_eq(err.kind, ERR_HTTP);
	cr_assert_eq(err.status, 200);
	assert_contains(err.msg, ": x");
	assert_contains(err.msg, "127.0.0.1:5000");
	cr_assert_eq(seen.events, 2);
	cr_assert_eq(seen.with_progress, 1);
	cr_assert_str_eq(seen.last_status, "Downloading");
	req = fake_engine_find_request(fe, "POST /v1.41/images/create");
	assert_contains(req, "fromImage=127.0.0.1%3A5000%2Fx%2Fy&tag=t ");
	assert_contains(req, "\r\nX-Registry-Auth: QUJD\r\n");
	free(req);
	engine_close(e);
}

Test(docker_fault, pull_error_in_an_unterminated_last_line_is_found)
{
	struct engine *e = open_fake("1.41");
	struct error err;

	fake_engine_route_str(fe, "POST /v1.41/images/create",
			      "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n"
			      "{\"status\":\"a\"}\n{\"error\":\"unexpected EOF\"}");
	cr_assert_eq(engine_pull_image(e, "busybox", NULL, NULL, NULL, &err), -1);
	cr_assert_eq(err.status, 200);
	assert_contains(err.msg, "unexpected EOF");
	assert_contains(err.msg, "docker.io");
	engine_close(e);
}

/* Podman answers a missing tag with 200 and the error in the stream, where
 * dockerd answers 404: both are a 404 here. */
Test(docker_fault, a_missing_tag_in_the_stream_is_a_404)
{
	struct engine *e = open_fake("1.41");
	struct error err;

	fake_engine_route_str(fe, "POST /v1.41/images/create",
			      "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n"
			      "{\"progressDetail\":{},\"errorDetail\":{\"message\":\"reading manifest "
			      "t in 127.0.0.1:5000/x: manifest unknown: manifest unknown\"},"
			      "\"error\":\"manifest unknown\"}\n");
	cr_assert_eq(engine_pull_image(e, "127.0.0.1:5000/x:t", NULL, NULL, NULL, &err), -1);
	cr_assert_eq(err.kind, ERR_HTTP);
	cr_assert_eq(err.status, 404);
	assert_contains(err.msg, "not found");
	assert_contains(err.msg, "127.0.0.1:5000");
	engine_close(e);
}

Test(docker_fault, pull_refused_before_streaming_and_by_digest)
{
	struct engine *e = open_fake("1.41");
	struct error err;
	char *req;

	fake_engine_route_json(fe, "POST /v1.41/images/create", 404, NULL,
			       "{\"message\":\"manifest for nope:latest not found\"}");
	cr_assert_eq(engine_pull_image(e, "nope@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
				       NULL, NULL, NULL, &err), -1);
	cr_assert_eq(err.kind, ERR_HTTP);
	cr_assert_eq(err.status, 404);
	assert_contains(err.msg, "manifest for nope:latest not found");
	req = fake_engine_request(fe, 1);
	assert_contains(req, "fromImage=nope&tag=sha256%3A0123456789abcdef");
	cr_assert_null(strstr(req, "X-Registry-Auth"));
	free(req);
	cr_assert_eq(engine_pull_image(e, "Bad Ref", NULL, NULL, NULL, &err), -1);
	cr_assert_eq(err.kind, ERR_USAGE);
	engine_close(e);
}

Test(docker_fault, pull_with_a_malformed_or_oversized_progress_line)
{
	struct engine *e = open_fake("1.41");
	struct strbuf raw = STRBUF_INIT;
	struct error err;

	fake_engine_route_str(fe, "POST /v1.41/images/create",
			      "HTTP/1.1 200 OK\r\n\r\n{\"status\":\"a\"}\n{oops\n");
	cr_assert_eq(engine_pull_image(e, "busybox", NULL, NULL, NULL, &err), -1);
	cr_assert_eq(err.kind, ERR_PROTOCOL);
	assert_contains(err.msg, "malformed progress");

	strbuf_addstr(&raw, "HTTP/1.1 200 OK\r\n\r\n{\"status\":\"");
	for (size_t i = 0; i < ENGINE_LINE_MAX / 8 + 1; i++)
		strbuf_addstr(&raw, "xxxxxxxx");
	fake_engine_route(fe, "POST /v1.41/images/create", raw.buf, raw.len);
	strbuf_release(&raw);
	cr_assert_eq(engine_pull_image(e, "busybox", NULL, NULL, NULL, &err), -1);
	cr_assert_eq(err.kind, ERR_LIMIT);
	engine_close(e);
}

/* ---- streams ---- */

struct log_seen {
	struct strbuf out[3];
	int stop_after;
	int calls;
};

static int on_log(enum engine_stream_id stream, const char *data, size_t len, void *ud)
{
	struct log_seen *s = ud;

	strbuf_add(&s->out[stream], data, len);
	s->calls++;
	return s->stop_after && s->calls >= s->stop_after;
}

static void log_seen_release(struct log_seen *s)
{
	for (int i = 0; i < 3; i++)
		strbuf_release(&s->out[i]);
}

Test(docker_fault, log_stream_dropped_mid_chunk_is_a_protocol_error)
{
	struct engine *e = open_fake("1.41");
	struct strbuf frames = STRBUF_INIT, raw = STRBUF_INIT;
	struct log_seen seen = { { STRBUF_INIT, STRBUF_INIT, STRBUF_INIT }, 0, 0 };
	struct engine_stream *s = NULL;
	struct error err;

	add_frame(&frames, 1, "out\n", 4);
	add_frame(&frames, 2, "err\n", 4);
	strbuf_addf(&raw, "HTTP/1.1 200 OK\r\nContent-Type: application/vnd.docker.raw-stream\r\n"
			  "Transfer-Encoding: chunked\r\n\r\n%zx\r\n", frames.len + 100);
	strbuf_add(&raw, frames.buf, frames.len);
	fake_engine_route(fe, "GET /v1.41/containers/c/logs", raw.buf, raw.len);
	cr_assert_eq(engine_logs_stream(e, "c", true, false, on_log, &seen, &s, &err), 0);
	cr_assert_eq(et_run_stream(s, &err), -1);
	cr_assert_eq(err.kind, ERR_PROTOCOL);
	assert_contains(err.msg, "broke");
	assert_contains(err.msg, "/containers/c/logs");
	cr_assert_str_eq(seen.out[1].buf, "out\n");
	cr_assert_str_eq(seen.out[2].buf, "err\n");
	engine_stream_free(s);
	log_seen_release(&seen);
	strbuf_release(&frames);
	strbuf_release(&raw);
	engine_close(e);
}

Test(docker_fault, log_frame_announcing_4gib_then_eof)
{
	struct engine *e = open_fake("1.41");
	struct strbuf raw = STRBUF_INIT;
	struct log_seen seen = { { STRBUF_INIT, STRBUF_INIT, STRBUF_INIT }, 0, 0 };
	struct engine_stream *s = NULL;
	struct error err;

	strbuf_addstr(&raw, "HTTP/1.1 200 OK\r\nContent-Type: application/vnd.docker.raw-stream\r\n"
			    "Connection: close\r\n\r\n");
	add_frame(&raw, 1, "ok\n", 3);
	add_frame(&raw, 1, NULL, 0xffffffffu);
	strbuf_addstr(&raw, "partial payload");
	fake_engine_route(fe, "GET /v1.41/containers/c/logs", raw.buf, raw.len);
	cr_assert_eq(engine_logs_stream(e, "c", false, false, on_log, &seen, &s, &err), 0);
	cr_assert_eq(et_run_stream(s, &err), -1);
	cr_assert_eq(err.kind, ERR_PROTOCOL);
	assert_contains(err.msg, "inside a frame");
	cr_assert_str_eq(seen.out[1].buf, "ok\npartial payload");
	engine_stream_free(s);

	/* The blocking convenience reports the same. */
	fake_engine_route_json(fe, "GET /v1.41/containers/c/json", 200, NULL,
			       "{\"Config\":{\"Tty\":false},\"State\":{\"Status\":\"exited\"}}");
	cr_assert_eq(engine_container_logs(e, "c", false, on_log, &seen, &err), -1);
	cr_assert_eq(err.kind, ERR_PROTOCOL);
	assert_contains(err.msg, "inside a frame");
	log_seen_release(&seen);
	strbuf_release(&raw);
	engine_close(e);
}

Test(docker_fault, log_callback_stop_cancels_and_bad_stream_byte_fails)
{
	struct engine *e = open_fake("1.41");
	struct strbuf raw = STRBUF_INIT;
	struct log_seen seen = { { STRBUF_INIT, STRBUF_INIT, STRBUF_INIT }, 1, 0 };
	struct engine_stream *s = NULL;
	struct error err;

	strbuf_addstr(&raw, "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n");
	add_frame(&raw, 1, "a", 1);
	add_frame(&raw, 1, "b", 1);
	fake_engine_route(fe, "GET /v1.41/containers/c/logs", raw.buf, raw.len);
	cr_assert_eq(engine_logs_stream(e, "c", true, false, on_log, &seen, &s, &err), 0);
	cr_assert_eq(et_run_stream(s, &err), -1);
	cr_assert_eq(err.kind, ERR_CANCELLED);
	cr_assert_eq(seen.calls, 1);
	engine_stream_free(s);

	strbuf_reset(&raw);
	strbuf_addstr(&raw, "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n");
	add_frame(&raw, 7, "a", 1);
	fake_engine_route(fe, "GET /v1.41/containers/c/logs", raw.buf, raw.len);
	seen.stop_after = 0;
	cr_assert_eq(engine_logs_stream(e, "c", true, false, on_log, &seen, &s, &err), 0);
	cr_assert_eq(et_run_stream(s, &err), -1);
	cr_assert_eq(err.kind, ERR_PROTOCOL);
	assert_contains(err.msg, "stream byte 7");
	engine_stream_free(s);
	log_seen_release(&seen);
	strbuf_release(&raw);
	engine_close(e);
}

Test(docker_fault, wait_stream_reads_status_and_errors)
{
	struct engine *e = open_fake("1.41");
	struct engine_stream *s = NULL;
	struct error err;
	long code = -1;
	char *req;

	fake_engine_route_json(fe, "POST /v1.41/containers/c/wait", 200, NULL,
			       "{\"StatusCode\":3,\"Error\":null}");
	cr_assert_eq(engine_wait_stream(e, "c", "next-exit", &s, &err), 0);
	cr_assert_eq(engine_wait_status(s, &code, &err), -1, "not done yet");
	cr_assert_eq(et_run_stream(s, &err), 0, "%s", err.msg);
	cr_assert(engine_stream_responded(s));
	cr_assert_eq(engine_wait_status(s, &code, &err), 0, "%s", err.msg);
	cr_assert_eq(code, 3);
	engine_stream_free(s);
	req = fake_engine_find_request(fe, "POST /v1.41/containers/c/wait");
	assert_contains(req, "wait?condition=next-exit ");
	free(req);

	fake_engine_route_json(fe, "POST /v1.41/containers/c/wait", 200, NULL,
			       "{\"StatusCode\":-1,\"Error\":{\"Message\":\"boom\"}}");
	cr_assert_eq(engine_container_wait(e, "c", "not-running", &code, &err), -1);
	assert_contains(err.msg, "boom");

	fake_engine_route_json(fe, "POST /v1.41/containers/c/wait", 200, NULL, "{\"Status");
	cr_assert_eq(engine_container_wait(e, "c", NULL, &code, &err), -1);
	cr_assert_eq(err.kind, ERR_PROTOCOL);

	fake_engine_route_json(fe, "POST /v1.41/containers/c/wait", 404, NULL,
			       "{\"message\":\"No such container: c\"}");
	cr_assert_eq(engine_wait_stream(e, "c", "next-exit", &s, &err), 0);
	{
		struct engine_loop *l = NULL;

		/* Adding a wait stream waits for the engine's answer, so a
		 * refused wait fails right there. */
		cr_assert_eq(engine_loop_new(&l, &err), 0);
		cr_assert_eq(engine_loop_add(l, s, &err), -1);
		cr_assert_eq(err.kind, ERR_NOT_FOUND);
		cr_assert_eq(err.status, 404);
		assert_contains(err.msg, "No such container: c");
		engine_stream_free(s);
		engine_loop_free(l);
	}
	engine_close(e);
}

struct ev_seen {
	int n;
	int stop_at;
	char actions[256];
};

static int on_event(const struct engine_event *ev, void *ud)
{
	struct ev_seen *s = ud;

	s->n++;
	if (ev->action)
		snprintf(s->actions + strlen(s->actions), sizeof(s->actions) - strlen(s->actions),
			 "%s,", ev->action);
	return s->stop_at && s->n >= s->stop_at;
}

Test(docker_fault, events_are_split_and_stoppable)
{
	struct engine *e = open_fake("1.41");
	static const char body[] =
		"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n"
		"{\"Type\":\"container\",\"Action\":\"create\"}\n"
		"{\"Type\":\"container\",\"Action\":\"start\"}\n"
		"{\"Type\":\"container\",\"Action\":\"die\"}\n";
	struct ev_seen seen = { 0 };
	struct engine_stream *s = NULL;
	struct error err;
	char *req;

	fake_engine_route_str(fe, "GET /v1.41/events", body);
	cr_assert_eq(engine_events_stream(e, "{\"type\":[\"container\"]}", 100, 200, on_event,
					  &seen, &s, &err), 0);
	cr_assert_eq(et_run_stream(s, &err), 0, "%s", err.msg);
	cr_assert_str_eq(seen.actions, "create,start,die,");
	engine_stream_free(s);
	req = fake_engine_request(fe, 1);
	assert_contains(req, "GET /v1.41/events?since=100&until=200&filters=%7B%22type%22");
	free(req);

	memset(&seen, 0, sizeof(seen));
	seen.stop_at = 2;
	cr_assert_eq(engine_events_stream(e, NULL, 0, 0, on_event, &seen, &s, &err), 0);
	cr_assert_eq(et_run_stream(s, &err), -1);
	cr_assert_eq(err.kind, ERR_CANCELLED);
	cr_assert_str_eq(seen.actions, "create,start,");
	engine_stream_free(s);
	engine_close(e);
}

Test(docker_fault, loop_poll_wakes_on_the_extra_fd)
{
	struct engine_loop *l = NULL;
	struct error err;
	int p[2];
	long long t0;

	cr_assert_eq(pipe(p), 0);
	cr_assert_eq(engine_loop_new(&l, &err), 0);
	cr_assert_eq(write(p[1], "x", 1), 1);
	t0 = et_now_ms();
	cr_assert_eq(engine_loop_poll(l, 10000, p[0], &err), 0, "%s", err.msg);
	cr_assert_lt(et_now_ms() - t0, 5000, "poll did not wake on the extra fd");
	engine_loop_free(l);
	close(p[0]);
	close(p[1]);
}

Test(docker_fault, freeing_a_stream_inside_its_loop_is_safe)
{
	struct engine *e = open_fake("1.41");
	struct engine_loop *l = NULL;
	struct engine_stream *s1 = NULL, *s2 = NULL;
	struct log_seen seen = { { STRBUF_INIT, STRBUF_INIT, STRBUF_INIT }, 0, 0 };
	struct error err;

	cr_assert_eq(engine_loop_new(&l, &err), 0);
	cr_assert_eq(engine_logs_stream(e, "a", true, false, on_log, &seen, &s1, &err), 0);
	cr_assert_eq(engine_logs_stream(e, "b", true, false, on_log, &seen, &s2, &err), 0);
	cr_assert_eq(engine_loop_add(l, s1, &err), 0);
	cr_assert_eq(engine_loop_add(l, s2, &err), 0);
	cr_assert_eq(engine_loop_add(l, s2, &err), -1, "added twice");
	engine_stream_free(s1);
	/* The loop goes before the stream it still holds. */
	engine_loop_free(l);
	cr_assert(engine_stream_done(s2));
	cr_assert_eq(engine_stream_result(s2, &err), -1);
	cr_assert_eq(err.kind, ERR_CANCELLED);
	engine_stream_free(s2);
	log_seen_release(&seen);
	engine_close(e);
}

Test(docker_fault, path_stat_decodes_the_header)
{
	struct engine *e = open_fake("1.41");
	const char *stat_json = "{\"name\":\"sh\",\"size\":7,\"mode\":134218239,"
				"\"mtime\":\"2026-01-01T00:00:00Z\",\"linkTarget\":\"/bin/busybox\"}";
	char *b = engine_base64_encode(stat_json, strlen(stat_json));
	char *hdr = xasprintf("X-Docker-Container-Path-Stat: %s", b);
	struct engine_path_stat st;
	struct error err;

	fake_engine_route_json(fe, "HEAD /v1.41/containers/c/archive", 200, hdr, "");
	cr_assert_eq(engine_container_path_stat(e, "c", "/bin/sh", &st, &err), 0, "%s", err.msg);
	cr_assert_str_eq(st.link_target, "/bin/busybox");
	cr_assert_str_eq(st.name, "sh");
	cr_assert_eq(st.size, 7);
	cr_assert(st.has_mode && (st.mode & ENGINE_MODE_SYMLINK));
	engine_path_stat_release(&st);
	fake_engine_route_json(fe, "HEAD /v1.41/containers/c/archive", 404, NULL, "");
	cr_assert_eq(engine_container_path_stat(e, "c", "/nope", &st, &err), -1);
	cr_assert_eq(err.kind, ERR_NOT_FOUND);
	cr_assert_eq(err.status, 404);
	assert_contains(err.msg, "/nope");
	free(hdr);
	free(b);
	engine_close(e);
}

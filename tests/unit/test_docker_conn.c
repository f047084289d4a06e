/* The engine client's connection and bounds, against the fake engine: one
 * kept-alive connection and one /_ping per engine, request/response calls
 * bounded by HRR_ENGINE_TIMEOUT, waiting calls by the caller's deadline and
 * interrupt fd, and the seccomp profile in the engine's flavour. */
#include <criterion/criterion.h>

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "common/xalloc.h"
#include "docker/internal.h"
#include "tests/support/fake_engine.h"

static struct fake_engine *fe;

static void setup(void)
{
	unsetenv("DOCKER_API_VERSION");
	unsetenv("HRR_ENGINE_TIMEOUT");
	fe = fake_engine_start();
}

static void teardown(void)
{
	fake_engine_stop(fe);
	fe = NULL;
	unsetenv("HRR_ENGINE_TIMEOUT");
}

TestSuite(docker_conn, .init = setup, .fini = teardown);

static struct engine *open_fake(void)
{
	struct engine *e = NULL;
	struct error err;

	fake_engine_route_json(fe, "GET /_ping", 200, "Api-Version: 1.44", "OK");
	cr_assert_eq(engine_open(&e, fake_engine_host(fe), &err), 0, "%s", err.msg);
	return e;
}

static size_t count_requests(const char *prefix)
{
	size_t n = 0;

	for (size_t i = 0; i < fake_engine_request_count(fe); i++) {
		char *r = fake_engine_request(fe, i);

		n += !strncmp(r, prefix, strlen(prefix));
		free(r);
	}
	return n;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- one connection, one ping ---- */

Test(docker_conn, sequential_requests_share_one_connection_and_one_ping)
{
	enum { N = 8 };
	struct engine *e;
	struct error err;

	fake_engine_keep_alive(fe);
	e = open_fake();
	fake_engine_route_json(fe, "GET /v1.44/containers/c/json", 200, NULL,
			       "{\"Id\":\"c\",\"State\":{\"Status\":\"running\"}}");
	fake_engine_route_json(fe, "POST /v1.44/containers/c/start", 204, NULL, "");
	fake_engine_route_json(fe, "POST /v1.44/containers/c/wait", 200, NULL,
			       "{\"StatusCode\":0}");
	for (int i = 0; i < N; i++) {
		struct engine_container_info j;
		long code = -1;

		cr_assert_eq(engine_container_inspect(e, "c", &j, &err), 0, "%s", err.msg);
		engine_container_info_release(&j);
		cr_assert_eq(engine_container_start(e, "c", &err), 0, "%s", err.msg);
		cr_assert_eq(engine_container_wait(e, "c", "not-running", &code, &err), 0, "%s",
			     err.msg);
		cr_assert_eq(code, 0);
	}
	cr_assert_eq(fake_engine_request_count(fe), 1 + 3 * N);
	cr_assert_eq(count_requests("GET /_ping"), 1, "the version is negotiated once");
	cr_assert_eq(fake_engine_connection_count(fe), 1,
		     "%zu connections for %d sequential requests",
		     fake_engine_connection_count(fe), 1 + 3 * N);
	engine_close(e);
}

Test(docker_conn, a_connection_the_engine_closed_is_replaced)
{
	struct engine *e = open_fake(); /* this fake closes after each answer */
	struct error err;

	fake_engine_route_json(fe, "POST /v1.44/containers/c/start", 204, NULL, "");
	for (int i = 0; i < 3; i++)
		cr_assert_eq(engine_container_start(e, "c", &err), 0, "%s", err.msg);
	cr_assert_eq(fake_engine_request_count(fe), 4);
	cr_assert_eq(fake_engine_connection_count(fe), 4);
	engine_close(e);
}

/* Whether fd is a connection to the fake engine's socket. */
static bool connected_to_fake(int fd)
{
	struct sockaddr_un sa;
	socklen_t len = sizeof(sa);
	const char *path = fake_engine_host(fe) + strlen("unix://");

	memset(&sa, 0, sizeof(sa));
	return getpeername(fd, (struct sockaddr *)&sa, &len) == 0 && sa.sun_family == AF_UNIX &&
	       !strcmp(sa.sun_path, path);
}

Test(docker_conn, the_kept_connection_does_not_leak_into_children)
{
	struct engine *e;
	struct error err;
	int found = 0;

	fake_engine_keep_alive(fe);
	e = open_fake();
	fake_engine_route_json(fe, "POST /v1.44/containers/c/start", 204, NULL, "");
	cr_assert_eq(engine_container_start(e, "c", &err), 0, "%s", err.msg);
	for (int fd = 0; fd < 1024; fd++) {
		if (!connected_to_fake(fd))
			continue;
		found++;
		cr_assert(fcntl(fd, F_GETFD) & FD_CLOEXEC, "socket fd %d is inherited by exec", fd);
	}
	cr_assert_geq(found, 1, "the engine's connection is open");
	engine_close(e);
}

/* ---- request/response calls: HRR_ENGINE_TIMEOUT ---- */

Test(docker_conn, a_stopped_engine_times_out_and_the_engine_stays_usable)
{
	struct engine *e;
	struct engine_container_info j;
	struct error err;

	setenv("HRR_ENGINE_TIMEOUT", "1", 1);
	fake_engine_keep_alive(fe);
	e = open_fake();
	fake_engine_route_hang(fe, "GET /v1.44/containers/c/json");
	cr_assert_eq(engine_container_inspect(e, "c", &j, &err), -1);
	cr_assert_eq(err.kind, ERR_TIMEOUT, "%s", err.msg);
	cr_assert(strstr(err.msg, "not answering") && strstr(err.msg, "HRR_ENGINE_TIMEOUT"),
		  "%s", err.msg);
	fake_engine_route_json(fe, "GET /v1.44/containers/c/json", 200, NULL, "{\"Id\":\"c\"}");
	cr_assert_eq(engine_container_inspect(e, "c", &j, &err), 0, "%s", err.msg);
	engine_container_info_release(&j);
	engine_close(e);
}

Test(docker_conn, a_bad_engine_timeout_is_a_usage_error)
{
	struct engine *e = NULL;
	struct error err;

	setenv("HRR_ENGINE_TIMEOUT", "soon", 1);
	cr_assert_eq(engine_open(&e, fake_engine_host(fe), &err), -1);
	cr_assert_eq(err.kind, ERR_USAGE);
	cr_assert(strstr(err.msg, "HRR_ENGINE_TIMEOUT=soon"), "%s", err.msg);
	setenv("HRR_ENGINE_TIMEOUT", "0", 1);
	cr_assert_eq(engine_open(&e, fake_engine_host(fe), &err), -1);
	cr_assert_eq(err.kind, ERR_USAGE);
	cr_assert_eq(fake_engine_request_count(fe), 0);
}

/* ---- waiting calls: deadline and interrupt fd ---- */

Test(docker_conn, wait_ends_at_its_deadline)
{
	struct engine *e = open_fake();
	struct engine_call_opts opts = { .deadline = now_s() + 0.3, .interrupt_fd = -1 };
	struct error err;
	long code = -1;

	fake_engine_route_hang(fe, "POST /v1.44/containers/c/wait");
	cr_assert_eq(engine_container_wait_opts(e, "c", "not-running", &opts, &code, &err), -1);
	cr_assert_eq(err.kind, ERR_TIMEOUT, "%s", err.msg);
	cr_assert(strstr(err.msg, "/containers/c/wait"), "%s", err.msg);
	cr_assert_eq(code, -1);
	engine_close(e);
}

Test(docker_conn, a_readable_interrupt_fd_stops_before_asking)
{
	struct engine *e = open_fake();
	struct engine_call_opts opts = { .deadline = 0, .interrupt_fd = -1 };
	struct error err;
	long code = -1;
	int p[2];

	cr_assert_eq(pipe(p), 0);
	cr_assert_eq(write(p[1], "x", 1), 1);
	opts.interrupt_fd = p[0];
	fake_engine_route_hang(fe, "POST /v1.44/containers/c/wait");
	cr_assert_eq(engine_container_wait_opts(e, "c", NULL, &opts, &code, &err), -1);
	cr_assert_eq(err.kind, ERR_INTERRUPTED, "%s", err.msg);
	cr_assert_eq(count_requests("POST"), 0, "nothing is sent once interrupted");
	close(p[0]);
	close(p[1]);
	engine_close(e);
}

static void *write_later(void *arg)
{
	int fd = *(int *)arg;
	struct timespec pause = { 0, 200 * 1000 * 1000 };

	nanosleep(&pause, NULL);
	(void)!write(fd, "x", 1);
	return NULL;
}

Test(docker_conn, a_signal_during_a_wait_interrupts_it)
{
	struct engine *e = open_fake();
	struct engine_call_opts opts = { .deadline = 0, .interrupt_fd = -1 };
	struct error err;
	pthread_t t;
	long code = -1;
	int p[2];

	cr_assert_eq(pipe(p), 0);
	opts.interrupt_fd = p[0];
	fake_engine_route_hang(fe, "POST /v1.44/containers/c/wait");
	cr_assert_eq(pthread_create(&t, NULL, write_later, &p[1]), 0);
	cr_assert_eq(engine_container_wait_opts(e, "c", NULL, &opts, &code, &err), -1);
	pthread_join(t, NULL);
	cr_assert_eq(err.kind, ERR_INTERRUPTED, "%s", err.msg);
	cr_assert_eq(count_requests("POST /v1.44/containers/c/wait"), 1);
	close(p[0]);
	close(p[1]);
	engine_close(e);
}

Test(docker_conn, logs_pull_and_archive_take_a_deadline_too)
{
	struct engine *e = open_fake();
	struct engine_call_opts opts = { .deadline = now_s() + 0.2, .interrupt_fd = -1 };
	struct error err;

	fake_engine_route_json(fe, "GET /v1.44/containers/c/json", 200, NULL,
			       "{\"Config\":{\"Tty\":false}}");
	fake_engine_route_hang(fe, "GET /v1.44/containers/c/logs");
	cr_assert_eq(engine_container_logs_opts(e, "c", true, NULL, NULL, &opts, &err), -1);
	cr_assert_eq(err.kind, ERR_TIMEOUT, "%s", err.msg);

	opts.deadline = now_s() + 0.2;
	fake_engine_route_hang(fe, "POST /v1.44/images/create");
	cr_assert_eq(engine_pull_image_opts(e, "busybox", NULL, NULL, NULL, &opts, &err), -1);
	cr_assert_eq(err.kind, ERR_TIMEOUT, "%s", err.msg);
	cr_assert(strstr(err.msg, "pulling busybox"), "%s", err.msg);

	opts.deadline = now_s() + 0.2;
	fake_engine_route_hang(fe, "GET /v1.44/containers/c/archive");
	cr_assert_eq(engine_container_get_archive_opts(e, "c", "/x", NULL, NULL, &opts, &err), -1);
	cr_assert_eq(err.kind, ERR_TIMEOUT, "%s", err.msg);
	engine_close(e);
}

Test(docker_conn, registering_a_wait_in_a_loop_is_bounded_and_interruptible)
{
	struct engine *e = open_fake();
	struct engine_call_opts opts = { .deadline = now_s() + 0.2, .interrupt_fd = -1 };
	struct engine_loop *l = NULL;
	struct engine_stream *s = NULL;
	struct error err;
	int p[2];

	fake_engine_route_hang(fe, "POST /v1.44/containers/c/wait");
	cr_assert_eq(engine_loop_new(&l, &err), 0);
	cr_assert_eq(engine_wait_stream(e, "c", "next-exit", &s, &err), 0);
	cr_assert_eq(engine_loop_add_opts(l, s, &opts, &err), -1);
	cr_assert_eq(err.kind, ERR_TIMEOUT, "%s", err.msg);
	engine_stream_free(s);

	cr_assert_eq(pipe(p), 0);
	cr_assert_eq(write(p[1], "x", 1), 1);
	opts = (struct engine_call_opts){ .deadline = 0, .interrupt_fd = p[0] };
	cr_assert_eq(engine_wait_stream(e, "c", "next-exit", &s, &err), 0);
	cr_assert_eq(engine_loop_add_opts(l, s, &opts, &err), -1);
	cr_assert_eq(err.kind, ERR_INTERRUPTED, "%s", err.msg);
	engine_stream_free(s);
	engine_loop_free(l);
	close(p[0]);
	close(p[1]);
	engine_close(e);
}

/* ---- the seccomp profile and the engine's flavour ---- */

/* Compact, as orchestrator/seccomp/ prints it: docker/ sends the text as
 * it is given, parsing it no more. */
static const char profile[] = "{\"defaultAction\":\"SCMP_ACT_ERRNO\","
			      "\"syscalls\":[{\"names\":[\"mbind\"],\"action\":\"SCMP_ACT_ALLOW\"}]}";

static void seccomp_spec(struct container_spec *s)
{
	container_spec_init(s);
	s->image = xstrdup("img");
	s->seccomp_profile = xstrdup(profile);
}

Test(docker_conn, dockerd_gets_the_profile_inline_and_version_is_asked_once)
{
	struct engine *e = open_fake();
	struct container_spec s;
	struct error err;
	char *id = NULL, *req;

	fake_engine_route_json(fe, "GET /v1.44/version", 200, NULL,
			       "{\"Platform\":{\"Name\":\"Docker Engine - Community\"},"
			       "\"Components\":[{\"Name\":\"Engine\"}]}");
	fake_engine_route_json(fe, "POST /v1.44/containers/create", 201, NULL, "{\"Id\":\"new\"}");
	seccomp_spec(&s);
	for (int i = 0; i < 2; i++) {
		cr_assert_eq(engine_container_create(e, NULL, &s, &id, &err), 0, "%s", err.msg);
		cr_assert_str_eq(id, "new");
		free(id);
	}
	cr_assert_eq(count_requests("GET /v1.44/version"), 1);
	req = fake_engine_find_request(fe, "POST /v1.44/containers/create");
	cr_assert(strstr(req, "\"SecurityOpt\":[\"seccomp={\\\"defaultAction\\\":\\\"SCMP_ACT_ERRNO\\\","),
		  "%s", req);
	free(req);
	container_spec_release(&s);
	engine_close(e);
}

static int system_rm_rf(const char *dir)
{
	char *cmd = xasprintf("rm -rf '%s'", dir);
	int rc = system(cmd);

	free(cmd);
	return rc;
}

static struct engine *open_fake_podman(void)
{
	struct engine *e = NULL;
	struct error err;

	fake_engine_route_json(fe, "GET /_ping", 200,
			       "Api-Version: 1.41\r\nLibpod-Api-Version: 4.3.1\r\n"
			       "Server: Libpod/4.3.1 (linux)",
			       "OK");
	cr_assert_eq(engine_open(&e, fake_engine_host(fe), &err), 0, "%s", err.msg);
	return e;
}

/* The path after "seccomp=" in a request, up to its closing quote. */
static char *sent_profile_path(const char *req)
{
	const char *p = strstr(req, "\"seccomp=/");
	const char *end;

	cr_assert_not_null(p, "%s", req);
	p += strlen("\"seccomp=");
	end = strchr(p, '"');
	cr_assert_not_null(end);
	return xstrndup(p, (size_t)(end - p));
}

Test(docker_conn, podman_is_told_apart_by_the_ping_and_gets_the_profile_as_a_file)
{
	char cache[] = "/tmp/hrr-unit-cache-XXXXXX";
	struct engine *e;
	struct container_spec s;
	struct error err;
	struct stat st;
	char *id = NULL, *req, *path, *dir, *text;
	FILE *f;

	cr_assert_not_null(mkdtemp(cache));
	setenv("XDG_CACHE_HOME", cache, 1);
	e = open_fake_podman();
	cr_assert_str_eq(engine_name(e), "podman");
	cr_assert_str_eq(engine_server_version(e), "4.3.1");
	fake_engine_route_json(fe, "POST /v1.41/containers/create", 201, NULL, "{\"Id\":\"p\"}");
	seccomp_spec(&s);
	for (int i = 0; i < 2; i++) {
		cr_assert_eq(engine_container_create(e, NULL, &s, &id, &err), 0, "%s", err.msg);
		free(id);
	}
	cr_assert_eq(count_requests("GET /v1.41/version"), 0, "the ping told");
	req = fake_engine_find_request(fe, "POST /v1.41/containers/create");
	path = sent_profile_path(req);
	dir = xasprintf("%s/hrr-docker-replay/seccomp/", cache);
	cr_assert(!strncmp(path, dir, strlen(dir)), "%s", path);
	cr_assert_eq(stat(path, &st), 0, "%s", path);
	cr_assert_eq(st.st_mode & 0777, 0644, "the engine's user must read it");
	text = xcalloc(1, sizeof(profile));
	f = fopen(path, "r");
	cr_assert_not_null(f);
	cr_assert_gt(fread(text, 1, sizeof(profile) - 1, f), 0);
	fclose(f);
	{
		cJSON *want = cJSON_Parse(profile), *got = cJSON_Parse(text);

		cr_assert(cJSON_Compare(want, got, true), "the file holds the profile: %s", text);
		cJSON_Delete(want);
		cJSON_Delete(got);
	}
	/* root Podman's 1048576 for unnamed limits would fail the start */
	cr_assert(strstr(req, "\"Name\":\"nofile\"") && strstr(req, "\"Name\":\"nproc\""), "%s",
		  req);
	free(text);
	free(dir);
	free(path);
	free(req);
	container_spec_release(&s);
	engine_close(e);
	unsetenv("XDG_CACHE_HOME");
	cr_assert_eq(system_rm_rf(cache), 0);
}

Test(docker_conn, podman_kill_of_a_stopped_container_is_dockerds_409)
{
	struct engine *e = open_fake_podman();
	struct error err;

	fake_engine_route_json(fe, "POST /v1.41/containers/c/kill", 500, NULL,
			       "{\"cause\":\"container state improper\",\"message\":\"can only kill "
			       "running containers. c is in state exited: container state improper\","
			       "\"response\":500}");
	cr_assert_eq(engine_container_kill(e, "c", "SIGKILL", &err), -1);
	cr_assert_eq(err.kind, ERR_HTTP);
	cr_assert_eq(err.status, 409);
	cr_assert(strstr(err.msg, "not running"), "%s", err.msg);
	engine_close(e);
}

Test(docker_conn, a_profile_that_is_not_json_is_refused_before_asking)
{
	struct engine *e = open_fake();
	struct container_spec s;
	struct error err;
	char *id = NULL;

	container_spec_init(&s);
	s.image = xstrdup("img");
	s.seccomp_profile = xstrdup("unconfined");
	cr_assert_eq(engine_container_create(e, NULL, &s, &id, &err), -1);
	cr_assert_eq(err.kind, ERR_USAGE);
	cr_assert_eq(fake_engine_request_count(fe), 1, "only the ping");
	container_spec_release(&s);
	engine_close(e);
}

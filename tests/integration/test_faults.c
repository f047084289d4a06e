/* Faults of the real components (docs/engine.md): the engine stopped or
 * killed mid-replay, the workdir's filesystem full. Engine faults are
 * played on a private dockerd (tests/private-dockerd.sh), so stopping or
 * killing it never disturbs the other suites. */
#include <criterion/criterion.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "docker/engine.h"
#include "tests/support/private_engine.h"
#include "tests/support/run_support.h"

TestSuite(faults, .init = tenv_init, .fini = tenv_fini, .timeout = 180);

#define REPLAY_ARGS(pid_dir, workdir, ...)                                             \
	((const char *const[]){ "--image", SIM_IMAGE, "--archive", pid_dir, "--workdir", \
				workdir, "--device-root", tenv.devroot, "--sysfs-root",  \
				tenv.sysfs, "-q", __VA_ARGS__ })

Test(faults, a_full_workdir_stops_the_replay_with_exit_5_naming_the_path)
{
	cleanup_free char *pid_dir = fixture_pid_dir("flood");
	char *fs = tmpfs_scratch("full", 256 * 1024);
	cleanup_free char *workdir = xasprintf("%s/work", fs);
	cleanup_strbuf struct strbuf log = STRBUF_INIT;
	cleanup_free char *log_path = NULL;
	struct tool_run r;

	tool_run(&r, REPLAY_ARGS(pid_dir, workdir, NULL), NULL);
	cr_assert_eq(r.status, 5, "exit %d, want 5:\n%s", r.status, r.err.buf);
	cr_assert_not_null(r.run_dir, "%s", r.err.buf);
	log_path = xasprintf("%s/replay.log", r.run_dir);
	cr_assert(strstr(r.err.buf, log_path), "the message names %s:\n%s", log_path, r.err.buf);
	cr_assert(strstr(r.err.buf, "No space left"), "%s", r.err.buf);
	cr_assert(read_text(log_path, &log) && log.len > 0, "what was written is kept");
	cr_assert_eq(count_tool_containers(workdir), 0, "the replay was stopped and removed");
	tool_run_release(&r);
	tmpfs_scratch_remove(fs);
}

/* ---- the engine itself ---- */

static struct private_engine pe;

static void engine_up(void)
{
	const char *images[] = { SIM_IMAGE, NULL };

	tenv_init();
	private_engine_start(&pe, images);
}

static void engine_down(void)
{
	private_engine_destroy(&pe);
	tenv_fini();
}

/* The tool's containers on the private engine: all of them, or only the
 * running ones. */
static int private_containers_in(bool running_only)
{
	struct engine *e = NULL;
	struct error err = { 0 };
	struct engine_containers list;
	int n = 0;

	cr_assert_eq(engine_open(&e, pe.host, &err), 0, "%s", err.msg);
	cr_assert_eq(engine_container_list(e, "hrr-docker-replay.owner", &list, &err), 0, "%s",
		     err.msg);
	for (size_t i = 0; i < list.n; i++) {
		const char *state = list.v[i].state;

		if (!running_only || (state && !strcmp(state, "running")))
			n++;
	}
	engine_containers_release(&list);
	engine_close(e);
	return n;
}

static int private_containers(void)
{
	return private_containers_in(false);
}

/* Start a replay of the hang fixture on the private engine; returns once
 * its container exists. */
static pid_t hang_on_private_engine(const char *dir, const char *timeout)
{
	cleanup_free char *pid_dir = fixture_pid_dir("hang");
	cleanup_free char *host = xasprintf("DOCKER_HOST=%s", pe.host);
	/* Each engine call gives up after 5 s: a stopped engine costs a few. */
	const char *env[] = { host, "HRR_ENGINE_TIMEOUT=5", NULL };
	pid_t pid = tool_spawn(REPLAY_ARGS(pid_dir, tenv.workdir, "--timeout", timeout,
					   "--stop-grace", "2", NULL), env, dir);

	for (int i = 0; i < 300 && private_containers_in(true) == 0; i++) {
		int status;

		/* A tool that ended before its replay ran says why on stderr. */
		if (waitpid(pid, &status, WNOHANG) == pid) {
			struct strbuf why = STRBUF_INIT, log = STRBUF_INIT;
			cleanup_free char *err_path = xasprintf("%s/stderr", dir);
			cleanup_free char *log_path = xasprintf("%s/dockerd.log", pe.dir);

			read_text(err_path, &why);
			read_text(log_path, &log);
			cr_assert_fail("the tool ended (status %d) before its replay ran:\n%s\n"
				       "private dockerd's log:\n%s", status, why.buf, log.buf);
		}
		usleep(100 * 1000);
	}
	cr_assert_gt(private_containers_in(true), 0, "the replay's container never ran");
	sleep(1);
	return pid;
}

/* Replay the hang fixture on the private engine with --timeout timeout,
 * send dockerd `sig` once the container runs, and wait for the tool:
 * its exit status, and its stderr in *err. SIGSTOP is undone (SIGCONT)
 * after the tool ended or was given up on. */
static int replay_through_fault(const char *timeout, int sig, struct strbuf *err)
{
	char dir[] = "/tmp/hrr-fault-XXXXXX";
	cleanup_free char *out_path = NULL, *err_path = NULL;
	pid_t pid;
	int status;

	cr_assert_not_null(mkdtemp(dir));
	out_path = xasprintf("%s/stdout", dir);
	err_path = xasprintf("%s/stderr", dir);
	pid = hang_on_private_engine(dir, timeout);
	private_engine_signal(&pe, sig);
	status = tool_wait(pid, 60);
	if (sig == SIGSTOP)
		private_engine_signal(&pe, SIGCONT);
	read_text(err_path, err);
	unlink(out_path);
	unlink(err_path);
	rmdir(dir);
	return status;
}

/* Disabled until every engine call that can wait has a deadline (the engine
 * client's rework): today a stop request to a stopped engine waits forever
 * and tool_wait gives up after 60 s. */
Test(faults, a_stopped_engine_is_reported_within_the_timeout_plus_grace, .init = engine_up,
     .fini = engine_down)
{
	cleanup_strbuf struct strbuf err = STRBUF_INIT;
	/* 4 s timeout + 2 s grace, and the engine calls' own deadlines: well
	 * within tool_wait's 60 s, which kills a tool that hangs. */
	int status = replay_through_fault("4", SIGSTOP, &err);

	cr_assert_eq(status, 5, "exit %d:\n%s", status, err.buf);
	cr_assert(strstr(err.buf, "not answering"), "%s", err.buf);
}

Test(faults, a_killed_engine_is_exit_5_and_gc_cleans_up_after_its_restart,
     .init = engine_up, .fini = engine_down)
{
	cleanup_strbuf struct strbuf err = STRBUF_INIT, log = STRBUF_INIT;
	cleanup_free char *host = xasprintf("DOCKER_HOST=%s", pe.host);
	cleanup_free char *log_path = NULL;
	const char *env[] = { host, NULL };
	struct tool_run r;
	const char *p;
	int status = replay_through_fault("0", SIGKILL, &err);

	cr_assert_eq(status, 5, "exit %d:\n%s", status, err.buf);
	p = strstr(err.buf, "run folder: ");
	cr_assert_not_null(p, "%s", err.buf);
	log_path = xasprintf("%.*s/replay.log", (int)strcspn(p + 12, "\n"), p + 12);
	cr_assert(read_text(log_path, &log), "the partial log is kept");
	cr_assert(strstr(log.buf, "[HRR] Archive"), "%s", log.buf);
	cr_assert(strstr(log.buf, "[hrr-docker-replay]"), "the partial log is marked:\n%s", log.buf);

	private_engine_restart(&pe);
	tool_run(&r, (const char *const[]){ "gc", NULL }, env);
	cr_assert_eq(r.status, 0, "%s", r.err.buf);
	cr_assert_eq(private_containers(), 0, "gc left the dead run's container:\n%s%s",
		     r.out.buf, r.err.buf);
	tool_run_release(&r);
}

/* An overlay hrr-playback that prints the archive line and then holds ever
 * more memory, as a leaking replay would. */
static void memory_hog_env(struct strvec *env)
{
	cleanup_free char *script = xasprintf("%s/hog.sh", tenv.root);
	cleanup_free char *clr = xasprintf("%s/clr-lib", tenv.root);
	cleanup_free char *lib = xasprintf("%s/libamdhip64.so.7.13.0-overlay", clr);
	static const char text[] = "#!/bin/sh\necho '[HRR] Archive: hog'\n"
				   "x=$(head -c 400000000 /dev/zero | tr '\\0' a)\necho done\n";
	FILE *f;

	mkdir(clr, 0755);
	f = fopen(lib, "w");
	cr_assert_not_null(f);
	fclose(f);
	f = fopen(script, "w");
	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
	cr_assert_eq(chmod(script, 0755), 0);
	strvec_pushf(env, "HRR_PLAYBACK=%s", script);
	strvec_pushf(env, "CLR_LIB=%s", clr);
}

Test(faults, a_replay_over_its_memory_limit_is_oom_killed_and_says_so)
{
	cleanup_free char *pid_dir = fixture_pid_dir("pass");
	cleanup_strbuf struct strbuf log = STRBUF_INIT;
	cleanup_free char *log_path = NULL;
	cleanup_cjson cJSON *finding = NULL;
	struct strvec env = STRVEC_INIT;
	struct tool_run r;

	memory_hog_env(&env);
	tool_run(&r, REPLAY_ARGS(pid_dir, tenv.workdir, "--mount-clr", "--memory", "32m", NULL),
		 (const char *const *)env.v);
	cr_assert_eq(r.status, 1, "exit %d:\n%s", r.status, r.err.buf);
	log_path = xasprintf("%s/replay.log", r.run_dir);
	cr_assert(read_text(log_path, &log));
	cr_assert(strstr(log.buf, "[hrr-docker-replay]") && strstr(log.buf, "out of memory"),
		  "no OOM marker:\n%s", log.buf);
	finding = read_json(r.run_dir, "finding.json");
	cr_assert_not_null(finding);
	cr_assert_str_eq(cJSON_GetObjectItem(finding, "outcome")->valuestring, "ABORT");
	tool_run_release(&r);
	strvec_clear(&env);
}

/* ---- a registry that drops the connection ---- */

/* A TCP server on 127.0.0.1 that answers the registry's API check and then
 * closes every other request's connection without a word, the way a
 * registry behind a failing proxy does mid-pull. */
struct dropping_registry {
	int fd;
	int port;
	pthread_t thread;
};

static void *drop_loop(void *ud)
{
	struct dropping_registry *d = ud;

	for (;;) {
		char buf[4096];
		ssize_t n;
		int c = accept(d->fd, NULL, NULL);

		if (c < 0)
			return NULL;
		n = read(c, buf, sizeof(buf) - 1);
		if (n > 0) {
			buf[n] = '\0';
			if (!strncmp(buf, "GET /v2/ ", 9)) {
				static const char ok[] = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n"
							 "Docker-Distribution-Api-Version: registry/2.0\r\n"
							 "Connection: close\r\n\r\n{}";
				(void)!write(c, ok, sizeof(ok) - 1);
			}
		}
		close(c);
	}
}

static void dropping_registry_start(struct dropping_registry *d)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sa);

	d->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	cr_assert_geq(d->fd, 0);
	cr_assert_eq(bind(d->fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	cr_assert_eq(listen(d->fd, 16), 0);
	cr_assert_eq(getsockname(d->fd, (struct sockaddr *)&sa, &len), 0);
	d->port = ntohs(sa.sin_port);
	cr_assert_eq(pthread_create(&d->thread, NULL, drop_loop, d), 0);
}

Test(faults, a_registry_dropping_the_connection_is_a_clear_error_naming_it)
{
	cleanup_free char *pid_dir = fixture_pid_dir("pass");
	cleanup_free char *image = NULL, *registry = NULL;
	struct dropping_registry d;
	struct tool_run r;

	dropping_registry_start(&d);
	registry = xasprintf("127.0.0.1:%d", d.port);
	image = xasprintf("%s/hrr/dropped:1", registry);
	tool_run(&r, REPLAY_ARGS(pid_dir, tenv.workdir, "--image", image, "--pull", "always", NULL),
		 NULL);
	shutdown(d.fd, SHUT_RDWR);
	close(d.fd);
	pthread_join(d.thread, NULL);
	cr_assert_eq(r.status, 5, "exit %d:\n%s", r.status, r.err.buf);
	cr_assert(strstr(r.err.buf, registry), "the error names the registry:\n%s", r.err.buf);
	cr_assert_null(r.run_dir, "no run folder for an image that never came");
	tool_run_release(&r);
}

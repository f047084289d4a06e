/* A private rootless Podman service for one invocation (--engine
 * podman-service): started before the command, stopped after it. */
#include "docker/engine_service.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/clock.h"
#include "common/fsutil.h"
#include "common/xalloc.h"
#include "docker/engine.h"

#define SOCKET_NAME "podman.sock"
#define LOG_NAME "service.log"
#define LOG_TAIL 600

static void nap_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* A short directory: a unix socket path holds at most 107 bytes. */
static char *service_dir(struct error *err)
{
	const char *bases[] = { getenv("XDG_RUNTIME_DIR"), getenv("TMPDIR"), "/tmp" };

	for (size_t i = 0; i < sizeof(bases) / sizeof(bases[0]); i++) {
		char *dir;

		if (!bases[i] || *bases[i] != '/' || strlen(bases[i]) > 60)
			continue;
		dir = xasprintf("%s/hrr-podman-XXXXXX", bases[i]);
		if (mkdtemp(dir))
			return dir;
		free(dir);
	}
	error_errno(err, "making a directory for the private Podman service");
	return NULL;
}

/* The child: its own process group (a terminal's Ctrl-C is for the
 * replay, which must still be stopped through this engine), ended with
 * us if we die first, output to the log. */
static void service_exec(const char *dir, const char *host)
{
	const char *podman = getenv("HRR_PODMAN");
	char *log = xasprintf("%s/" LOG_NAME, dir);
	int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	int null = open("/dev/null", O_RDONLY | O_CLOEXEC);

	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (fd < 0 || null < 0 || dup2(null, 0) < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
		_exit(127);
	if (!podman || !*podman)
		podman = "podman";
	execlp(podman, podman, "system", "service", "--time=0", host, (char *)NULL);
	/* Into the service's log, which service_failed() quotes. */
	dprintf(fd, "cannot run %s: %s\n", podman, strerror(errno));
	_exit(127);
}

static int service_failed(struct engine_service *s, const char *why, struct error *err)
{
	cleanup_free char *log = xasprintf("%s/" LOG_NAME, s->dir);
	cleanup_strbuf struct strbuf text = STRBUF_INIT;
	const char *tail;

	(void)fs_read_small_file(log, 1u << 20, &text, ERROR_DISCARD);
	while (text.len && (text.buf[text.len - 1] == '\n'))
		strbuf_setlen(&text, text.len - 1);
	tail = text.len > LOG_TAIL ? text.buf + text.len - LOG_TAIL : text.buf;
	error_set(err, ERR_CONNECT, 0, "--engine podman-service: the private Podman service %s%s%s",
		  why, *tail ? ": " : "", tail);
	engine_service_stop(s);
	return -1;
}

/* Until it answers /_ping, exits, or ENGINE_SERVICE_START_S pass. */
static int service_wait(struct engine_service *s, struct error *err)
{
	double deadline = monotonic_now() + ENGINE_SERVICE_START_S;
	int status;

	for (;;) {
		struct engine *e = NULL;
		struct error again;

		if (waitpid(s->pid, &status, WNOHANG) == s->pid) {
			s->pid = 0;
			return service_failed(s, "exited at start", err);
		}
		if (engine_open(&e, s->host, &again) == 0) {
			engine_close(e);
			return 0;
		}
		if (monotonic_now() > deadline)
			return service_failed(s, "did not answer in time", err);
		nap_ms(100);
	}
}

int engine_service_start(struct engine_service *s, const struct job_events *ev, int verbosity,
			 struct error *err)
{
	memset(s, 0, sizeof(*s));
	s->dir = service_dir(err);
	if (!s->dir)
		return -1;
	s->host = xasprintf("unix://%s/" SOCKET_NAME, s->dir);
	s->pid = fork();
	if (s->pid < 0) {
		s->pid = 0;
		error_errno(err, "starting the private Podman service");
		engine_service_stop(s);
		return -1;
	}
	if (s->pid == 0)
		service_exec(s->dir, s->host);
	if (service_wait(s, err) < 0)
		return -1;
	if (setenv("DOCKER_HOST", s->host, 1) < 0) {
		error_errno(err, "setting DOCKER_HOST");
		engine_service_stop(s);
		return -1;
	}
	if (verbosity > 0)
		events_info(ev, verbosity, "started a private Podman service (pid %ld) on %s",
			    (long)s->pid, s->host);
	return 0;
}

static bool service_reaped(pid_t pid, double seconds)
{
	double deadline = monotonic_now() + seconds;
	int status;

	do {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid || (r < 0 && errno == ECHILD))
			return true;
		nap_ms(50);
	} while (monotonic_now() < deadline);
	return false;
}

void engine_service_stop(struct engine_service *s)
{
	if (s->pid > 0) {
		kill(s->pid, SIGTERM);
		if (!service_reaped(s->pid, ENGINE_SERVICE_STOP_S)) {
			kill(s->pid, SIGKILL);
			(void)service_reaped(s->pid, ENGINE_SERVICE_STOP_S);
		}
		s->pid = 0;
	}
	if (s->dir) {
		cleanup_free char *sock = xasprintf("%s/" SOCKET_NAME, s->dir);
		cleanup_free char *log = xasprintf("%s/" LOG_NAME, s->dir);

		unlink(sock);
		unlink(log);
		rmdir(s->dir);
	}
	free(s->dir);
	free(s->host);
	memset(s, 0, sizeof(*s));
}

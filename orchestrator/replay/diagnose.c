/* The GPU debuggers around a replay (see diagnose.h). */
#include "orchestrator/replay/diagnose.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/cleanup.h"
#include "common/fsutil.h"
#include "common/xalloc.h"
#include "docker/engine.h"

static int status_code(int st)
{
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int diagnose_bounded(int (*fn)(void *ctx), void *ctx, double timeout_s, int *status,
		     struct error *err)
{
	double deadline = monotonic_now() + timeout_s;
	pid_t child;
	int st;

	fflush(NULL);
	child = fork();
	if (child < 0)
		return error_errno(err, "fork");
	if (child == 0)
		_exit(fn(ctx));
	for (;;) {
		pid_t w = waitpid(child, &st, timeout_s > 0 ? WNOHANG : 0);

		if (w == child) {
			*status = status_code(st);
			return 0;
		}
		if (w < 0 && errno != EINTR)
			return error_errno(err, "waitpid");
		if (timeout_s > 0 && monotonic_now() >= deadline) {
			kill(child, SIGKILL);
			while (waitpid(child, &st, 0) < 0 && errno == EINTR)
				;
			return 1;
		}
		/* A debugger answers in seconds: polling at 20 ms costs nothing. */
		nanosleep(&(struct timespec){ 0, 20 * 1000 * 1000 }, NULL);
	}
}

/* ---- rocgdb in the running container ---- */

/* The pid of hrr-playback inside the container, without pidof or cat:
 * the container runs an init, so it is not pid 1. */
static const char find_playback_sh[] =
	"for d in /proc/[0-9]*; do read -r c < \"$d/comm\" 2>/dev/null && "
	"[ \"$c\" = hrr-playback ] && echo \"${d#/proc/}\"; done; true";

/* What the child learnt, in memory shared with the parent (the child
 * leaves with _exit, its exit status says only which step it reached). */
struct hang_seen {
	long rocgdb_exit;        /* -1: rocgdb was not started */
	char stderr_line[512];   /* rocgdb's last non-empty stderr line */
	char why[ERROR_MSG_MAX]; /* why it was not started */
};

struct hang_child {
	const struct diagnose_hang_in *in;
	int fd;                  /* the transcript */
	struct strbuf pid_out;
	struct hang_seen *seen;
	struct strbuf err_tail;  /* the stderr line being written */
};

/* The last non-empty line of a stream, kept in seen->stderr_line. */
static void keep_last_line(struct hang_child *c, const char *data, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (data[i] != '\n') {
			if (c->err_tail.len < sizeof(c->seen->stderr_line) - 1)
				strbuf_addch(&c->err_tail, data[i]);
			continue;
		}
		if (c->err_tail.len)
			snprintf(c->seen->stderr_line, sizeof(c->seen->stderr_line), "%s",
				 c->err_tail.buf);
		strbuf_reset(&c->err_tail);
	}
}

static int to_transcript(enum engine_stream_id s, const char *data, size_t len, void *ud)
{
	struct hang_child *c = ud;

	if (s == ENGINE_STDERR)
		keep_last_line(c, data, len);
	return fs_write_all(c->fd, data, len) < 0 ? -1 : 0;
}

static int to_pid_out(enum engine_stream_id s, const char *data, size_t len, void *ud)
{
	struct hang_child *c = ud;

	if (s == ENGINE_STDOUT && c->pid_out.len < 4096)
		strbuf_add(&c->pid_out, data, len);
	return 0;
}

static void note(struct hang_child *c, const char *fmt, const char *arg)
{
	char line[ERROR_MSG_MAX + 128];
	int n = snprintf(line, sizeof(line), fmt, arg);

	snprintf(c->seen->why, sizeof(c->seen->why), fmt, arg);
	c->seen->why[strcspn(c->seen->why, "\n")] = '\0';
	if (n > 0)
		(void)fs_write_all(c->fd, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
}

/* Exit 0: rocgdb ran (its transcript says how it went); 3: no hrr-playback
 * process; 4: the engine or the exec failed. */
static int hang_child_run(void *ctx)
{
	struct hang_child *c = ctx;
	cleanup_strvec struct strvec sh = STRVEC_INIT, argv = STRVEC_INIT;
	struct engine *e = NULL;
	struct error err = { 0 };
	long code = -1, pid;

	if (engine_open(&e, c->in->docker_host, &err) < 0) {
		note(c, "hrr-docker-replay: %s\n", err.msg);
		return 4;
	}
	strvec_push(&sh, "sh");
	strvec_push(&sh, "-c");
	strvec_push(&sh, find_playback_sh);
	if (engine_exec(e, c->in->container_id, &sh, NULL, false, to_pid_out, c, &code, &err) < 0) {
		note(c, "hrr-docker-replay: finding hrr-playback: %s\n", err.msg);
		engine_close(e);
		return 4;
	}
	pid = strtol(c->pid_out.buf, NULL, 10);
	if (pid <= 0) {
		note(c, "hrr-docker-replay: %s\n", "no hrr-playback process in the container");
		engine_close(e);
		return 3;
	}
	diagnose_rocgdb_argv(&argv, c->in->rocgdb, pid);
	if (engine_exec(e, c->in->container_id, &argv, NULL, false, to_transcript, c, &code,
			&err) < 0) {
		note(c, "hrr-docker-replay: running rocgdb: %s\n", err.msg);
		engine_close(e);
		return 4;
	}
	keep_last_line(c, "\n", 1);
	c->seen->rocgdb_exit = code;
	engine_close(e);
	return 0;
}

/* A timed-out rocgdb holds the process stopped: kill it (the kernel then
 * detaches it) so the replay's SIGTERM is not left pending until SIGKILL. */
static const char kill_rocgdb_sh[] =
	"for d in /proc/[0-9]*; do read -r c < \"$d/comm\" 2>/dev/null && "
	"[ \"$c\" = rocgdb ] && kill -9 \"${d#/proc/}\"; done; true";

static int kill_rocgdb_run(void *ctx)
{
	const struct diagnose_hang_in *in = ctx;
	cleanup_strvec struct strvec sh = STRVEC_INIT;
	struct engine *e = NULL;
	struct error err = { 0 };
	long code = -1;
	int rc;

	if (engine_open(&e, in->docker_host, &err) < 0)
		return 4;
	strvec_push(&sh, "sh");
	strvec_push(&sh, "-c");
	strvec_push(&sh, kill_rocgdb_sh);
	rc = engine_exec(e, in->container_id, &sh, NULL, false, NULL, NULL, &code, &err);
	engine_close(e);
	return rc < 0 ? 4 : 0;
}

/* Feed a file to a line parser in pieces: bounded memory whatever its size. */
static int feed_file(const char *path, void (*feed)(void *p, const char *d, size_t n), void *p)
{
	char buf[65536];
	size_t total = 0;
	ssize_t n;
	cleanup_close int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	while (total < DIAGNOSE_FILES_MAX && (n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		feed(p, buf, (size_t)n);
		total += (size_t)n;
	}
	return 0;
}

static void mi_feed(void *p, const char *d, size_t n)
{
	diag_mi_feed(p, d, n);
}

static void agent_feed(void *p, const char *d, size_t n)
{
	diag_agent_feed(p, d, n);
}

static void hang_verdict(struct diagnosis *d, const char *transcript, int status,
			 const struct hang_seen *seen)
{
	struct diag_mi_result r;
	struct diag_mi_parser p;

	if (status != 0 || seen->rocgdb_exit < 0) {
		diagnosis_set_status(d, DIAGNOSIS_NOT_RUN, "rocgdb was not run: %s",
				     seen->why[0] ? seen->why : "the exec did not start");
		return;
	}
	d->tool_exit = (int)seen->rocgdb_exit;
	if (seen->stderr_line[0])
		d->tool_stderr = xstrdup(seen->stderr_line);
	diag_mi_result_init(&r);
	diag_mi_parser_init(&p, &r);
	if (feed_file(transcript, mi_feed, &p) < 0)
		diagnosis_add_note(d, "the transcript could not be read back");
	diag_mi_finish(&p);
	diagnosis_from_rocgdb(d, &r);
	diag_mi_result_release(&r);
}

void diagnose_hang(const struct diagnose_hang_in *in, struct diagnosis *d)
{
	cleanup_free char *dir = xasprintf("%s/%s", in->run_dir, DIAGNOSE_DIR);
	cleanup_free char *path = xasprintf("%s/%s", dir, DIAGNOSE_ROCGDB_LOG);
	struct hang_child c = { in, -1, STRBUF_INIT, NULL, STRBUF_INIT };
	struct error err = { 0 };
	int status = 0, rc;

	diagnosis_init(d, DIAGNOSIS_ROCGDB);
	c.seen = mmap(NULL, sizeof(*c.seen), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		      -1, 0);
	if (c.seen == MAP_FAILED) {
		diagnosis_set_status(d, DIAGNOSIS_FAILED, "mmap: %s", strerror(errno));
		return;
	}
	memset(c.seen, 0, sizeof(*c.seen));
	c.seen->rocgdb_exit = -1;
	if (fs_mkdir_p(dir, 0755, &err) < 0 ||
	    (c.fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0) {
		diagnosis_set_status(d, DIAGNOSIS_FAILED, "cannot write %s: %s", path,
				     err.msg[0] ? err.msg : strerror(errno));
		munmap(c.seen, sizeof(*c.seen));
		return;
	}
	rc = diagnose_bounded(hang_child_run, &c, (double)in->timeout_s, &status, &err);
	close(c.fd);
	strbuf_release(&c.pid_out);
	diagnosis_add_file(d, DIAGNOSE_DIR "/" DIAGNOSE_ROCGDB_LOG);
	if (rc < 0)
		diagnosis_set_status(d, DIAGNOSIS_NOT_RUN, "rocgdb was not run: %s", err.msg);
	else if (rc == 1) {
		int ignored;

		rc = diagnose_bounded(kill_rocgdb_run, (void *)in, 10, &ignored, &err);
		diagnosis_set_status(d, DIAGNOSIS_TIMED_OUT,
				     "rocgdb did not answer within %ld s (--diagnose-timeout); it was "
				     "killed%s and the replay stopped as usual",
				     in->timeout_s, rc == 0 ? "" : " (or left to the container's stop)");
	}
	else
		hang_verdict(d, path, status, c.seen);
	munmap(c.seen, sizeof(*c.seen));
}

/* ---- what an agent run left ---- */

static void list_code_objects(const char *dir, const struct diag_agent_report *r,
			      struct diagnosis *d)
{
	DIR *dp = opendir(dir);
	struct dirent *de;
	bool matched = false;

	if (!dp) {
		diagnosis_add_note(d, "the agent saved no code object");
		return;
	}
	while ((de = readdir(dp))) {
		cleanup_free char *rel = NULL;

		if (de->d_name[0] == '.')
			continue;
		rel = xasprintf("%s/%s/%s", DIAGNOSE_DIR, DIAGNOSE_CODE_OBJECTS, de->d_name);
		diagnosis_add_file(d, rel);
		for (size_t i = 0; i < r->n_detail; i++)
			if (r->wave[i].code_object &&
			    diag_agent_saved_name_matches(de->d_name, r->wave[i].code_object))
				matched = true;
	}
	closedir(dp);
	if (!matched)
		diagnosis_add_note(d, "no saved code object matches the one the report names");
}

void diagnose_agent_collect(const char *run_dir, const char *log_rel, struct diagnosis *d)
{
	cleanup_free char *log = xasprintf("%s/%s", run_dir, log_rel);
	cleanup_free char *cos = xasprintf("%s/%s/%s", run_dir, DIAGNOSE_DIR, DIAGNOSE_CODE_OBJECTS);
	struct diag_agent_report r;
	struct diag_agent_parser p;

	diagnosis_init(d, DIAGNOSIS_AGENT);
	diag_agent_report_init(&r);
	diag_agent_parser_init(&p, &r);
	if (feed_file(log, agent_feed, &p) < 0) {
		diag_agent_finish(&p);
		diag_agent_report_release(&r);
		diagnosis_set_status(d, DIAGNOSIS_FAILED, "the agent run left no log (%s)",
				     strerror(errno));
		return;
	}
	diag_agent_finish(&p);
	diagnosis_add_file(d, log_rel);
	diagnosis_from_agent(d, &r);
	if (d->status == DIAGNOSIS_OK)
		list_code_objects(cos, &r, d);
	diag_agent_report_release(&r);
}

int diagnose_agent_parse_file(const char *path, struct diag_agent_report *r)
{
	struct diag_agent_parser p;
	int rc;

	diag_agent_parser_init(&p, r);
	rc = feed_file(path, agent_feed, &p);
	diag_agent_finish(&p);
	return rc;
}

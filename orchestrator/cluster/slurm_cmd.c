#include "orchestrator/cluster/slurm_cmd.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/xalloc.h"

bool slurm_on_path(const char *prog)
{
	const char *path = getenv("PATH");
	cleanup_free char *copy = xstrdup(path && *path ? path : "/usr/bin:/bin");
	char *save = NULL;

	for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		cleanup_free char *f = xasprintf("%s/%s", *d ? d : ".", prog);

		if (!access(f, X_OK))
			return true;
	}
	return false;
}

/* Both pipes until both end. */
static void drain(int fo, int fe, struct strbuf *out, struct strbuf *errout)
{
	struct pollfd p[2] = { { .fd = fo, .events = POLLIN }, { .fd = fe, .events = POLLIN } };
	struct strbuf *to[2] = { out, errout };

	while (p[0].fd >= 0 || p[1].fd >= 0) {
		if (poll(p, 2, -1) < 0 && errno != EINTR)
			return;
		for (int i = 0; i < 2; i++) {
			char buf[4096];
			ssize_t got;

			if (p[i].fd < 0 || !p[i].revents)
				continue;
			got = read(p[i].fd, buf, sizeof(buf));
			if (got > 0 && to[i])
				strbuf_add(to[i], buf, (size_t)got);
			else if (got == 0 || (got < 0 && errno != EINTR)) {
				close(p[i].fd);
				p[i].fd = -1;
			}
		}
	}
}

static int exec_run(void *ctx, const char *const *argv, struct strbuf *out, struct strbuf *errout,
		    int *status, struct error *err)
{
	int po[2], pe[2], st;
	pid_t pid;

	(void)ctx;
	if (pipe2(po, O_CLOEXEC) < 0)
		return error_set(err, ERR_SYSTEM, errno, "pipe: %s", strerror(errno));
	if (pipe2(pe, O_CLOEXEC) < 0) {
		close(po[0]);
		close(po[1]);
		return error_set(err, ERR_SYSTEM, errno, "pipe: %s", strerror(errno));
	}
	pid = fork();
	if (pid == 0) {
		int devnull = open("/dev/null", O_RDONLY);

		if (devnull >= 0)
			dup2(devnull, 0);
		dup2(po[1], 1);
		dup2(pe[1], 2);
		signal(SIGPIPE, SIG_DFL);
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(po[1]);
	close(pe[1]);
	if (pid < 0) {
		close(po[0]);
		close(pe[0]);
		return error_set(err, ERR_SYSTEM, errno, "fork: %s", strerror(errno));
	}
	drain(po[0], pe[0], out, errout);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	*status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	if (*status == 127 && !slurm_on_path(argv[0]))
		return error_set(err, ERR_NOT_FOUND, ENOENT, "%s is not on PATH", argv[0]);
	return 0;
}

const struct slurm_runner slurm_runner_exec = { .run = exec_run, .ctx = NULL };

int slurm_run_ok(const struct slurm_runner *r, const char *const *argv, struct strbuf *out,
		 struct error *err)
{
	cleanup_strbuf struct strbuf e = STRBUF_INIT;
	int status;

	if (out)
		strbuf_reset(out);
	if (r->run(r->ctx, argv, out, &e, &status, err) < 0)
		return -1;
	if (status == 0)
		return 0;
	e.buf[strcspn(e.buf, "\n")] = '\0';
	return error_set(err, ERR_SYSTEM, 0, "%s %s failed (exit %d)%s%s", argv[0],
			 argv[1] ? argv[1] : "", status, e.len ? ": " : "", e.buf);
}

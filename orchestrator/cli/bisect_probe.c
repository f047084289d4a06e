/* One candidate replayed: a sweep of the bisection's cases in that image
 * alone, with every run option of the command line (leases, seccomp,
 * retries, the history), in a child process so that the sweep's own
 * signal handling, workers and exit stay exactly as `sweep` has them. Its
 * summary goes to the sweep folder, not to our stdout. */
#include "orchestrator/cli/bisect_driver.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/xalloc.h"
#include "orchestrator/cli/commands.h"

static volatile sig_atomic_t stop_asked;

static void on_stop(int sig)
{
	(void)sig;
	stop_asked = 1;
}

static void child(struct bisect_job *j, size_t i)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	struct options *o = j->o;
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

	sigaction(SIGINT, &dfl, NULL);
	sigaction(SIGTERM, &dfl, NULL);
	sigaction(SIGHUP, &dfl, NULL);
	if (null >= 0)
		dup2(null, STDOUT_FILENO);
	o->command = CMD_SWEEP;
	strvec_clear(&o->sweep.images);
	strvec_push(&o->sweep.images, j->cands.v[i].ref);
	if (!o->sweep.label)
		o->sweep.label = xstrdup("bisect");
	_exit(sweep_command(o));
}

int bisect_probe_run(struct bisect_job *j, size_t i, struct error *err)
{
	struct sigaction on = { .sa_handler = on_stop }, old[3];
	const int sigs[3] = { SIGINT, SIGTERM, SIGHUP };
	int status = 0;
	pid_t pid;

	fprintf(stderr, "bisect: replaying %zu case(s) in %s\n", j->n_cases, j->cands.v[i].ref);
	fflush(stdout);
	fflush(stderr);
	/* Ctrl-C reaches the child's sweep (same process group), which stops
	 * its replays as a sweep does; we only note it and stop after. */
	for (int k = 0; k < 3; k++)
		sigaction(sigs[k], &on, &old[k]);
	pid = fork();
	if (pid == 0)
		child(j, i);
	while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	for (int k = 0; k < 3; k++)
		sigaction(sigs[k], &old[k], NULL);
	if (pid < 0)
		return error_errno(err, "bisect: fork");
	if (stop_asked || (WIFSIGNALED(status) && WTERMSIG(status) == SIGINT))
		j->interrupted = true;
	else if (WIFEXITED(status) && WEXITSTATUS(status) == BISECT_EXIT_USAGE)
		return error_set(err, ERR_USAGE, 0, "bisect: the sweep of %s refused its options",
				 j->cands.v[i].ref);
	return 0;
}

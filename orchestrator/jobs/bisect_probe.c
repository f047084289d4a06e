/* One candidate replayed: a sweep of the bisection's cases in that image
 * alone, with every run option of the command line (leases, seccomp,
 * retries, the history), in a child process so that the sweep's own
 * signal handling, workers and exit stay exactly as `sweep` has them. The
 * sweep is the request's probe (the command layer's); its summary goes to
 * the sweep folder, not to our stdout. */
#include "orchestrator/jobs/bisect_driver.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* The child's exit status when its sweep refused its options. */
#define PROBE_STATUS_REFUSED 64

static volatile sig_atomic_t stop_asked;

static void on_stop(int sig)
{
	(void)sig;
	stop_asked = 1;
}

static void child(struct bisect_job *j, size_t i)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	enum bisect_probe_end end;

	sigaction(SIGINT, &dfl, NULL);
	sigaction(SIGTERM, &dfl, NULL);
	sigaction(SIGHUP, &dfl, NULL);
	end = j->rq->probe(j->rq->probe_ctx, j->cands.v[i].ref,
			   (const char *const *)j->archives.v, j->archives.n);
	_exit(end == BISECT_PROBE_REFUSED ? PROBE_STATUS_REFUSED : 0);
}

int bisect_probe_run(struct bisect_job *j, size_t i, struct error *err)
{
	struct sigaction on = { .sa_handler = on_stop }, old[3];
	const int sigs[3] = { SIGINT, SIGTERM, SIGHUP };
	int status = 0;
	pid_t pid;

	events_stage(j->rq->events, "bisect: replaying %zu case(s) in %s", j->n_cases,
		     j->cands.v[i].ref);
	/* What is buffered is written once, not again by the child. */
	fflush(NULL);
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
	else if (WIFEXITED(status) && WEXITSTATUS(status) == PROBE_STATUS_REFUSED)
		return error_set(err, ERR_USAGE, 0, "bisect: the sweep of %s refused its options",
				 j->cands.v[i].ref);
	return 0;
}

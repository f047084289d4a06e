/* The Slurm scheduler backend (docs/slurm.md): job arrays and a merge job
 * submitted with sbatch, a task's GPUs and time left from Slurm. */
#include "orchestrator/cluster/sweep_backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "orchestrator/cluster/slurm.h"
#include "orchestrator/cluster/slurm_cmd.h"
#include "orchestrator/cluster/slurm_task.h"
#include "orchestrator/cluster/sweep_slurm.h"

static int can_submit(struct error *err)
{
	if (slurm_on_path("sbatch"))
		return 0;
	return error_set(err, ERR_NOT_FOUND, 0,
			 "--slurm: sbatch is not on PATH; submit from a Slurm login node "
			 "(or run the sweep here without --slurm)");
}

/* The user's sbatch options, then --exclude= for the nodes to avoid. */
static void sbatch_opts(const struct sweep_backend_submission *b, struct strvec *opts)
{
	struct strbuf ex = STRBUF_INIT;

	for (size_t i = 0; i < b->options->opts.n; i++)
		strvec_push(opts, b->options->opts.v[i]);
	if (!b->avoid_hosts || !b->avoid_hosts->n)
		return;
	strbuf_addstr(&ex, "--exclude=");
	for (size_t i = 0; i < b->avoid_hosts->n; i++)
		strbuf_addf(&ex, i ? ",%s" : "%s", b->avoid_hosts->v[i]);
	strvec_push(opts, ex.buf);
	strbuf_release(&ex);
}

static int submit(const struct sweep_backend_submission *b, int *code, struct error *err)
{
	cleanup_free char *merge = NULL;
	cleanup_strvec struct strvec opts = STRVEC_INIT;
	struct sweep_slurm_submit s = {
		.meta = b->meta, .folder = b->folder, .workdir = b->workdir,
		.tasks_per_array = b->options->tasks_per_array,
		.max_running = b->options->max_running,
		.user_opts = &opts, .cases = b->cases, .n_cases = b->n_cases, .bin = b->bin,
		.events = b->events,
	};

	*code = 0;
	sbatch_opts(b, &opts);
	if (sweep_slurm_submit(&slurm_runner_exec, &s, &merge, err) < 0)
		return -1;
	if (!b->wait)
		return 0;
	events_stage(b->events, "waiting for merge job %s", merge);
	return sweep_slurm_wait(&slurm_runner_exec, b->folder, merge, code, err);
}

static int task_pool(const struct gpu_topology *t, int *ordinals, size_t max, size_t *n,
		     const struct job_events *ev, struct error *err)
{
	cleanup_strbuf struct strbuf how = STRBUF_INIT;

	if (slurm_task_gpus(&slurm_runner_exec, t, ordinals, max, n, &how, err) < 0)
		return -1;
	/* What the task was given, in its output file (docs/slurm.md). */
	events_stage(ev, "slurm task %s_%s: %s", getenv("SLURM_ARRAY_JOB_ID") ?: "?",
		     getenv("SLURM_ARRAY_TASK_ID") ?: "?", how.buf);
	return 0;
}

static char *task_tag(void)
{
	const char *job = getenv("SLURM_ARRAY_JOB_ID"), *task = getenv("SLURM_ARRAY_TASK_ID");

	if (job && *job && task && *task)
		return xasprintf("%s_%s", job, task);
	return NULL;
}

/* A task stops starting cases once the job's time left is shorter than
 * the next case's timeout. */
static bool task_may_start(long timeout_s, const char *case_name, const struct job_events *ev)
{
	long left = slurm_task_time_left(&slurm_runner_exec);

	if (left == SLURM_TIME_UNLIMITED || left < -1 || left >= timeout_s)
		return true;
	events_warning(ev,
		       "the job has %lds left, %s may take %lds: no more cases start in this task",
		       left, case_name, timeout_s);
	return false;
}

static void status(const char *folder, struct strbuf *out)
{
	sweep_slurm_status(&slurm_runner_exec, folder, out);
}

const struct sweep_backend slurm_backend = {
	.name = "slurm",
	.flag = "--slurm",
	.can_submit = can_submit,
	.submit = submit,
	.task_here = slurm_task_here,
	.task_pool = task_pool,
	.task_tag = task_tag,
	.task_may_start = task_may_start,
	.status = status,
	.record = sweep_slurm_record,
};

/* `sweep`: many replays, their history and reports (docs/sweep.md). This
 * file turns the options into a typed request and says how the sweep
 * ended as an exit code; orchestrator/jobs/sweep_job.c does the work. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "orchestrator/cli/cmd_setup.h"
#include "orchestrator/cli/commands.h"
#include "orchestrator/cli/options.h"
#include "orchestrator/cli/sweep_exit.h"
#include "orchestrator/cli/sweep_notify.h"
#include "orchestrator/cli/sweep_runopts_json.h"
#include "orchestrator/cli/term_events.h"
#include "orchestrator/jobs/sweep_job.h"

const char cmd_sweep_usage[] =
	"Usage: hrr-docker-replay sweep [--image REF]... [--archive PATH]... [--plan FILE]\n"
	"                               [sweep options] [run options]\n"
	"       hrr-docker-replay sweep --resume SWEEP [--workdir DIR]\n"
	"       hrr-docker-replay sweep --status SWEEP [--workdir DIR]\n"
	"       hrr-docker-replay sweep ... --slurm [--slurm-opt ARG]... [--slurm-tasks N]\n"
	"                               [--slurm-max-running M] [--wait]\n"
	"       hrr-docker-replay sweep --resume SWEEP --slurm [--wait]\n"
	"       hrr-docker-replay sweep --merge SWEEP\n\n"
	"Replays every case (a pid directory in an image) on disjoint GPUs, each\n"
	"image pinned to its ID once, records the results in the sweep folder\n"
	"(<workdir>/sweeps/<id>) and the history database, compares them with the\n"
	"label's previous sweep and writes summary.md, summary.json, junit.xml and\n"
	"report.html. Every run option applies to every case. See docs/sweep.md.\n"
	"With --slurm it submits the cases as Slurm job arrays (one per GPU count,\n"
	"task i running --shard i/N on the GPUs Slurm allocated) and one merge job\n"
	"that writes the history and the reports; see docs/slurm.md.\n"
	"Exit: 1 a case regressed, changed or is missing, or has a --fail-on status\n"
	"(perf-slower: its GPU time is slower; untriaged: a failure no known issue\n"
	"matches; --ignore-known: known failures do not count); 4 a --gpus GPU does\n"
	"not exist; 5 an infrastructure error or interrupted (or no sbatch for\n"
	"--slurm); 75 busy GPUs let nothing run; 64 usage error; else 0 (--slurm\n"
	"without --wait: 0 once submitted).\n";

const char cmd_sweep_help_tail[] =
	"\nEnvironment: HRR_LOCK_DIR (GPU lease directory, default /run/lock/hrr-docker-replay),\n"
	"XDG_DATA_HOME, HRR_DOCKER_IMAGE (the image without --image), and those of run.\n";

/* The run options recorded for the sweep over the invocation's, and what
 * every case then shares (a sweep_request_hooks.adopt). */
static int adopt(void *ctx, const char *run_options, struct sweep_settings *s, struct error *err)
{
	struct options *o = ctx;
	cJSON *run = cJSON_Parse(run_options);
	int rc = sweep_runopts_from_json(o, run, err);

	cJSON_Delete(run);
	if (rc < 0)
		return -1;
	s->device_root = o->device_root;
	s->sysfs_root = o->sysfs_root;
	s->devices = o->devices;
	s->timeout_s = o->timeout_s;
	s->mount_clr = o->mount_clr;
	s->overlay = cmd_overlay_sources(o);
	s->image = cmd_image_setup(o);
	s->kernels = &o->replace_kernels;
	replay_desc_init(&s->policy);
	cmd_describe_policy(o, &s->policy);
	return 0;
}

/* The alarms and recoveries once the reports are written (a
 * sweep_request_hooks.notify): this invocation's --notify, else the
 * targets the sweep recorded, and the rules' owners. */
static void notify(void *ctx, const char *recorded, const char *folder,
		   const struct known_issues *known, const struct report *r)
{
	const struct options *o = ctx;
	struct sweep_notify sn;

	sweep_notify_init(&sn, &o->sweep, recorded, folder);
	sweep_notify_add_owners(&sn, known);
	sweep_notify_after(&sn, r);
	sweep_notify_release(&sn);
}

/* What a new sweep records of the options: plan.json keeps it. */
static void request_plan(struct options *o, struct sweep_request_plan *p, char **run_text,
			 char **notify_text, struct kernel_replacements *kernel_sources)
{
	const struct sweep_options *so = &o->sweep;
	cJSON *run = sweep_runopts_to_json(o, true);

	*p = (struct sweep_request_plan){
		.archives = (const char *const *)so->archives.v, .n_archives = so->archives.n,
		.images = (const char *const *)so->images.v, .n_images = so->images.n,
		.plans = (const char *const *)so->plans.v, .n_plans = so->plans.n,
		.label = so->label, .baseline = so->baseline, .perf_baseline = so->perf_baseline,
		.n_gpus = so->n_gpus, .jobs = so->jobs, .retry_failed = so->retry_failed,
		.image_budget = so->image_budget,
		.perf_window = so->perf_window, .perf_adaptive = so->perf_adaptive, .gpu_wait = so->gpu_wait, .fail_on = so->fail_on,
		.perf_rule = so->perf, .perf_family = so->perf_family, .kernel_sources = kernel_sources,
	};
	memcpy(p->gpus, so->gpus, sizeof(p->gpus));
	*run_text = cJSON_PrintUnformatted(run);
	cJSON_Delete(run);
	*notify_text = sweep_notify_record(so);
	p->run_options = *run_text;
	p->notify = *notify_text;
	/* With their host files: the run options read back have none. */
	kernel_replacements_copy(kernel_sources, &o->replace_kernels);
}

static void request_of(struct options *o, struct sweep_request *req)
{
	const struct sweep_options *so = &o->sweep;

	*req = (struct sweep_request){
		.resume = so->resume, .workdir = o->workdir, .db = so->db,
		.known_issues = so->known_issues, .have_shard = so->have_shard,
		.shard_i = so->shard_i, .shard_n = so->shard_n, .shard_cases = so->shard_cases,
		.backend = &so->backend, .wait = so->wait, .quarantine_gpus = so->quarantine_gpus,
		.perf_runs = (int)so->perf_runs, .perf_warmup = (int)so->perf_warmup,
		.verbosity = o->verbosity, .junit = so->junit, .html = so->html,
		.summary = so->summary, .json = o->format == FORMAT_JSON, .shown_to = stdout,
		.events = term_events(),
		.hooks = { .ctx = o, .adopt = adopt, .notify = notify },
	};
}

static int sweep_status(const struct sweep_request *req, const char *sweep)
{
	struct sweep_job_status st;
	enum sweep_end end = sweep_job_status(req, sweep, &st);

	if (end == SWEEP_END_OK) {
		printf("sweep %s (label %s): %zu of %zu cases have a result; %zu results recorded%s\n",
		       st.id, st.label, st.done, st.planned, st.lines,
		       st.done < st.planned ? "; finish it with `sweep --resume`" : "");
		fwrite(st.backends.buf, 1, st.backends.len, stdout);
	}
	sweep_job_status_release(&st);
	return sweep_exit_of(end);
}

int sweep_command(struct options *o)
{
	const struct sweep_options *so = &o->sweep;
	struct sweep_request req;
	struct kernel_replacements kernel_sources;
	cleanup_free char *run_text = NULL, *notify_text = NULL;
	enum sweep_end end;

	request_of(o, &req);
	if (so->status)
		return sweep_status(&req, so->status);
	if (so->merge)
		return sweep_exit_of(sweep_job_merge(&req, so->merge));
	memset(&kernel_sources, 0, sizeof(kernel_sources));
	if (!so->resume)
		request_plan(o, &req.plan, &run_text, &notify_text, &kernel_sources);
	end = sweep_job_run(&req);
	kernel_replacements_release(&kernel_sources);
	return sweep_exit_of(end);
}

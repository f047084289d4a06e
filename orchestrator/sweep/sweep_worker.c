#include "orchestrator/sweep/sweep_worker.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/fsutil.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "orchestrator/finding/finding.h"
#include "common/signals.h"
#include "orchestrator/replay/replay_perf.h"
#include "orchestrator/sweep/sweep_adaptive.h"

void case_result_fill(struct case_result *r, const struct sweep_case *c, int attempt,
		       enum result_state state, const char *image_id, const char *message)
{
	memset(r, 0, sizeof(*r));
	r->case_name = xstrdup(c->name);
	r->image = xstrdup(c->image);
	r->archive = xstrdup(c->archive);
	r->image_id = xstrdup_or_null(image_id);
	r->attempt = attempt;
	r->state = state;
	r->message = xstrdup_or_null(message);
	r->d2h_checked = r->d2h_mismatched = -1;
	r->device_id = -1;
	r->classifier_version = FINDING_CLASSIFIER_VERSION;
	r->finished = (long long)time(NULL);
}

/* What the unit said, as one results line. */
static void result_from_unit(struct case_result *r, const struct sweep_job *j,
			     const struct replay_unit_result *u)
{
	enum result_state state = RESULT_ERROR;

	if (u->has_verdict)
		state = RESULT_DONE;
	else if (u->exit_code == EXIT_BLOCKED)
		state = RESULT_BLOCKED;
	else if (u->exit_code == EXIT_CONFIRM || u->exit_code == EXIT_DECLINED)
		state = RESULT_NEEDS_CONFIRM;
	case_result_fill(r, j->c, j->attempt, state, j->img->env.img.id,
			  u->failure.stage != REPLAY_STAGE_NONE ? u->failure.msg : NULL);
	r->image_pin = xstrdup_or_null(j->pin);
	for (size_t g = 0; g < u->n_gpus && g < GPU_MAX; g++)
		r->gpus[r->n_gpus++] = u->gpus[g];
	r->duration_s = u->timings.wall_s;
	r->digest = sweep_archive_digest(j->c->archive, ERROR_DISCARD);
	if (u->run_dir) {
		const char *base = strrchr(u->run_dir, '/');

		r->run_dir = xasprintf("%s/%s", SWEEP_RUNS_DIR, base ? base + 1 : u->run_dir);
	}
	if (u->has_verdict) {
		const struct replay_verdict *v = &u->verdict;

		/* The finding's enums, kept as they are. */
		r->has_outcome = r->has_class = true;
		r->outcome = v->outcome;
		r->fault_class = v->fault_class;
		r->kernel = xstrdup_or_null(v->kernel);
		/* The engine's OOM kill: the host's memory limit, not the capture. */
		r->oom_killed = v->engine_oom_killed;
		r->d2h_checked = v->d2h_pass >= 0 && v->d2h_fail >= 0 ? v->d2h_pass + v->d2h_fail : -1;
		r->d2h_mismatched = v->d2h_fail;
		if (v->classifier_version > 0)
			r->classifier_version = v->classifier_version;
		signature_copy(&r->signature, &v->signature);
		/* A failure's finding.md text, as the run folder has it: the
		 * reports take it from the history, not from the folder (a PASS's
		 * is never shown, and not carried). */
		if (v->outcome != OUTCOME_PASS)
			case_result_set_finding_md(r, u->finding_markdown);
	}
}

static void describe(const struct sweep_job *j, int interrupt_fd,
		     const struct capture_manifest *cap, const struct gpu_choice *gpus,
		     struct replay_desc *d, struct strvec *env, struct strvec *extra_ld)
{
	const struct replay_desc *p = j->policy;
	const struct sweep_case *c = j->c;

	*d = *p;
	if (p->env)
		strvec_pushv(env, (const char *const *)p->env->v);
	strvec_pushv(env, (const char *const *)c->env.v);
	if (c->extra_ld)
		strvec_push(extra_ld, c->extra_ld);
	else if (p->extra_ld)
		strvec_pushv(extra_ld, (const char *const *)p->extra_ld->v);
	d->pid_dir = c->archive;
	d->image = &j->img->env.img;
	d->create_by_id = true;
	d->playback = c->playback ? c->playback : j->img->env.playback;
	d->overlay = j->sh->use_overlay && c->mount_clr != 0 ? &j->sh->overlay : NULL;
	d->stack = j->img->env.have_stack ? &j->img->env.stack : NULL;
	d->capture = cap;
	d->gpus = gpus;
	if (j->known_failure)
		d->diagnose = DIAGNOSE_OFF;
	if (c->timeout >= 0)
		d->limits.timeout_s = c->timeout;
	if (c->progress_timeout >= 0)
		d->limits.progress_timeout_s = c->progress_timeout;
	d->env = env;
	d->extra_ld = extra_ld;
	/* A sweep never prompts (docs/sweep.md): a confirmation is a status. */
	if (d->confirm != REPLAY_CONFIRM_ASSUME_YES)
		d->confirm = REPLAY_CONFIRM_REFUSE;
	if (d->verbosity <= 0)
		d->verbosity = -1;
	d->interrupt_fd = interrupt_fd;
}

/* --perf N: the samples into r, after a verdict replay that passed, and
 * with --perf-adaptive those its looks ask for (on this worker's GPUs).
 * Returns the signal that interrupted them, 0 when none did. */
static int take_samples(const struct sweep_job *j, const struct replay_host *host,
			const struct replay_desc *d, struct case_result *r)
{
	struct perf_adaptive_plan plan = { (size_t)j->perf_runs, (size_t)j->perf_adaptive };
	struct replay_desc t;
	int sig;

	r->perf = xcalloc(1, sizeof(*r->perf));
	replay_perf_desc(d, &t);
	sig = replay_perf_sample(host, &t, j->perf_runs, j->perf_warmup, r->perf);
	if (!sig && j->perf_adaptive > j->perf_runs)
		sig = sweep_adaptive_take(host, &t, &plan, j->perf_base, r->gfx, r->device_id,
					  j->perf_rule, r->perf);
	return sig;
}

static int worker_main(const struct sweep_job *j, int out_fd)
{
	cleanup_free char *runs = xasprintf("%s/%s", j->folder, SWEEP_RUNS_DIR);
	const char *archives[] = { j->c->archive };
	struct replay_host_config cfg = {
		.workdir = runs, .archives = archives, .n_archives = 1,
		.device_root = j->device_root, .sysfs_root = j->sysfs_root, .need_gpu = true,
		.verbosity = -1, .devices = j->devices, .events = j->policy->events,
	};
	struct replay_host host;
	struct replay_failure f;
	struct replay_unit_result u;
	struct replay_desc d;
	__attribute__((cleanup(capture_manifest_release))) struct capture_manifest own;
	const struct capture_manifest *cap = j->c->capture;
	struct gpu_choice gpus;
	cleanup_strvec struct strvec env = STRVEC_INIT, extra_ld = STRVEC_INIT;
	cleanup_strbuf struct strbuf line = STRBUF_INIT;
	struct case_result r;
	int ifd = signals_install();

	memset(&host, 0, sizeof(host));
	memset(&u, 0, sizeof(u));
	/* Read when the plan was made, else here (a plan read back). */
	if (!cap) {
		capture_manifest_load(&own, j->c->archive);
		cap = &own;
	} else {
		manifest_init(&own.m);
	}
	if (replay_host_open(&host, &cfg, &f) != 0) {
		case_result_fill(&r, j->c, j->attempt, RESULT_ERROR, j->img->env.img.id, f.msg);
		r.image_pin = xstrdup_or_null(j->pin);
	} else {
		/* The scheduler chose them from the pool the sweep checked. */
		gpu_choice_given(&gpus, j->gpus, j->n_gpus);
		describe(j, ifd, cap, &gpus, &d, &env, &extra_ld);
		replay_unit_run(&host, &d, &u);
		/* The warnings the replay left to its caller, said. */
		for (size_t i = 0; i < u.warnings.n; i++)
			events_warning(d.events, "%s", u.warnings.v[i]);
		if (u.interrupt_signal) {
			/* Stopped by the user: its verdict is the stop's, not the
			 * workload's. No result, so --resume runs it again. */
			replay_unit_result_release(&u);
			replay_host_release(&host);
			return 0;
		}
		result_from_unit(&r, j, &u);
		/* Where it ran, before the samples: the looks compare only
		 * with a baseline on the same GPU product. */
		case_result_locate(&r, j->topo, j->host);
		if (j->perf_runs && replay_perf_after(&u) && take_samples(j, &host, &d, &r)) {
			case_result_release(&r);
			replay_unit_result_release(&u);
			replay_host_release(&host);
			return 0; /* interrupted: no result, as above */
		}
		replay_unit_result_release(&u);
	}
	replay_host_release(&host);
	/* The line carries the signature, not a known-issue mark: the rules
	 * are matched once, at the import into the history. */
	case_result_locate(&r, j->topo, j->host);
	case_result_to_json(&r, &line);
	strbuf_addch(&line, '\n');
	case_result_release(&r);
	return fs_write_all(out_fd, line.buf, line.len) < 0 ? 1 : 0;
}

int sweep_worker_spawn(const struct sweep_job *j, pid_t *pid, int *fd, struct error *err)
{
	int p[2];

	if (pipe2(p, O_CLOEXEC) < 0)
		return error_errno(err, "pipe");
	fflush(NULL);
	*pid = fork();
	if (*pid < 0) {
		close(p[0]);
		close(p[1]);
		return error_errno(err, "fork");
	}
	if (*pid == 0) {
		int out = 3;

		signals_forget();
		/* Nothing of the parent's but the result pipe: another case's
		 * lease descriptor kept open here would hold that GPU's flock
		 * after the parent released it, and the parent's engine socket
		 * and database are not the worker's to touch. */
		if (p[1] != out && dup2(p[1], out) < 0)
			_exit(1);
		close_range(out + 1, ~0U, 0);
		/* Its own process group: the terminal's Ctrl-C reaches the parent,
		 * which stops every worker once (a second signal would mean "now").
		 * A parent killed with SIGKILL still stops its workers. */
		setpgid(0, 0);
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() == 1)
			_exit(0);
		_exit(worker_main(j, out));
	}
	close(p[1]);
	*fd = p[0];
	return 0;
}

bool sweep_worker_result(const char *line, struct case_result *r)
{
	struct error err;

	return line && *line && case_result_parse(r, line, &err) == 0;
}

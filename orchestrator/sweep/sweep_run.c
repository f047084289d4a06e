#include "orchestrator/sweep/sweep_run.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/cleanup.h"
#include "common/xalloc.h"
#include "orchestrator/lease/gpu_lease.h"
#include "common/say.h"
#include "common/signals.h"
#include "orchestrator/lease/gpu_holders.h"
#include "orchestrator/sweep/sweep_progress.h"
#include "orchestrator/sweep/sweep_quarantine.h"
#include "orchestrator/sweep/sweep_sched.h"
#include "orchestrator/sweep/suspect.h"

#define MAX_WORKERS 64
#define TICK_MS 250

struct worker {
	pid_t pid;
	int fd;
	size_t idx;
	int attempt;
	int gpus[GPU_MAX];
	size_t n_gpus;
	struct gpu_lease lease;
	struct strbuf out;
};

struct run {
	const struct sweep_run_input *in;
	struct sweep_run_outcome *out;
	struct sweep_sched sched;
	struct worker w[MAX_WORKERS];
	size_t n_w;
	int *attempt;            /* per plan case: the attempt it runs next */
	double *bounced_at;      /* per plan case: when its GPUs were first busy, 0 none */
	char (*names)[GPU_LEASE_NAME_MAX];
	struct sweep_held held;
	struct sweep_progress progress;
	struct gpu_suspects suspects;
	char hostname[256];      /* where the results ran: the Slurm node name in a task */
	int sig_fd;             /* common/signals.h's pipe, -1 none */
	bool stopping;
};

/* The signals stop the sweep's workers (forward_signal); a reader of
 * stdout that went away (| head) must not kill the parent mid-sweep. */
static void install_signals(struct run *r)
{
	r->sig_fd = signals_install();
	signal(SIGPIPE, SIG_IGN);
}

static const struct sweep_image_env *image_of(const struct run *r, const struct sweep_case *c)
{
	for (size_t i = 0; i < r->in->meta->n_images; i++)
		if (!strcmp(r->in->meta->images[i].ref, c->image))
			return &r->in->imgs[i];
	return NULL;
}

static enum sweep_base base_of(const struct run *r, size_t idx)
{
	return r->in->base ? r->in->base[idx] : BASE_NONE;
}

/* line: the worker's serialised res, recorded as it came; NULL: the
 * parent's own result, serialised here. */
static void record(struct run *r, size_t idx, struct sweep_result *res, const char *line)
{
	struct error err;
	int rc;

	/* A worker's line says where it ran already (sweep_job's host and
	 * gpu_uids); the parent's own results are told here. */
	if (!line)
		sweep_result_locate(res, &r->in->host->topo, r->hostname);
	rc = line ? sweep_result_append_line(r->in->results_path, line, &err)
		  : sweep_result_append(r->in->results_path, res, &err);
	if (rc < 0)
		say_error("%s", err.msg); /* the next --resume runs it again */
	else
		r->out->recorded++;
	sweep_progress_finished(&r->progress, res, base_of(r, idx),
				res->attempt > r->in->next_attempt[idx]);
}

/* A result the parent decides alone (no worker). */
static void record_now(struct run *r, size_t idx, const char *state, const char *msg)
{
	const struct sweep_case *c = &r->in->meta->plan.cases[idx];
	const struct sweep_image_env *img = image_of(r, c);
	struct sweep_result res;

	sweep_result_fill(&res, c, r->attempt[idx], state, img ? img->env.img.id : NULL, msg);
	record(r, idx, &res, NULL);
	sweep_result_release(&res);
}

/* false: busy (busy_ordinal set, *why NULL) or a lock that cannot be used
 * (*why says which: the case is an error, never an endless wait). */
static bool lease_gpus(struct run *r, size_t idx, const int *gpus, size_t n, struct worker *w,
		       int *busy_ordinal, char **why)
{
	const char *names[GPU_MAX];
	cleanup_free char *owner = xasprintf("%s sweep %s case %s", r->in->host->owner,
					     r->in->meta->id, r->in->meta->plan.cases[idx].name);
	struct gpu_lease_opts lo = { .owner = owner, .wait_s = 0, .held = sweep_held_by_container,
				     .held_ctx = &r->held };
	struct error err;

	for (size_t i = 0; i < n; i++)
		names[i] = r->names[gpus[i]];
	*why = NULL;
	if (gpu_lease_acquire(&w->lease, names, n, &lo, &err) == 0)
		return true;
	if (err.kind != ERR_BUSY) {
		*why = xstrdup(err.msg);
		return false;
	}
	*busy_ordinal = gpus[0];
	for (size_t i = 0; i < n; i++)
		if (strstr(err.msg, names[i]))
			*busy_ordinal = gpus[i];
	if (!r->bounced_at[idx]) {
		r->bounced_at[idx] = monotonic_now();
		say_info(0, "waiting: %s", err.msg);
	}
	return false;
}

static void start_one(struct run *r, size_t idx, const int *gpus, size_t n)
{
	const struct sweep_case *c = &r->in->meta->plan.cases[idx];
	const struct sweep_image_env *img = image_of(r, c);
	struct worker *w = &r->w[r->n_w];
	struct error err;
	int busy = -1;
	cleanup_free char *why = NULL;

	memset(w, 0, sizeof(*w));
	if (!lease_gpus(r, idx, gpus, n, w, &busy, &why)) {
		double waited = monotonic_now() - r->bounced_at[idx];

		if (why) {
			sweep_sched_finish(&r->sched, gpus, n, false);
			record_now(r, idx, RESULT_ERROR, why);
			return;
		}
		if (r->in->meta->gpu_wait >= 0 && waited >= r->in->meta->gpu_wait) {
			sweep_sched_finish(&r->sched, gpus, n, false);
			r->out->gave_up++;
			record_now(r, idx, RESULT_ERROR, "GPU busy past --gpu-wait (held by another run)");
			return;
		}
		sweep_sched_requeue(&r->sched, idx, c->gpu_count, gpus, n, busy);
		return;
	}
	r->bounced_at[idx] = 0;
	struct sweep_job job = {
		.c = c, .attempt = r->attempt[idx], .gpus = gpus, .n_gpus = n, .img = img,
		.sh = r->in->sh, .policy = r->in->policy, .folder = r->in->folder,
		.sysfs_root = r->in->sysfs_root, .device_root = r->in->device_root,
		.devices = r->in->devices, .topo = &r->in->host->topo, .host = r->hostname,
		.known_failure = base_of(r, idx) == BASE_FAILED,
		.perf_runs = r->in->perf_runs, .perf_warmup = r->in->perf_warmup,
	};

	if (sweep_worker_spawn(&job, &w->pid, &w->fd, &err) < 0) {
		gpu_lease_release(&w->lease);
		sweep_sched_finish(&r->sched, gpus, n, false);
		record_now(r, idx, RESULT_ERROR, err.msg);
		return;
	}
	w->idx = idx;
	w->attempt = r->attempt[idx];
	memcpy(w->gpus, gpus, n * sizeof(int));
	w->n_gpus = n;
	strbuf_init(&w->out, 0);
	r->n_w++;
	sweep_progress_started(&r->progress);
}

static void start_what_fits(struct run *r)
{
	for (;;) {
		size_t idx;
		int gpus[GPU_MAX];
		enum sweep_sched_verdict v;

		if (r->stopping || r->n_w == MAX_WORKERS)
			return;
		v = sweep_sched_next(&r->sched, &idx, gpus);
		if (v == SCHED_BLOCKED) {
			cleanup_free char *msg = xasprintf(
				"needs %d GPUs; the sweep's pool has %zu usable",
				r->in->meta->plan.cases[idx].gpu_count, sweep_sched_usable(&r->sched));

			record_now(r, idx, RESULT_BLOCKED, msg);
			continue;
		}
		if (v != SCHED_START)
			return;
		if (r->in->may_start &&
		    !r->in->may_start(r->in->may_start_ctx, &r->in->meta->plan.cases[idx])) {
			sweep_sched_finish(&r->sched, gpus,
					   (size_t)r->in->meta->plan.cases[idx].gpu_count, false);
			r->stopping = true;
			r->out->out_of_time = true;
			return;
		}
		start_one(r, idx, gpus, (size_t)r->in->meta->plan.cases[idx].gpu_count);
	}
}

/* A non-PASS replay runs again while attempts remain (--retry-failed). */
static bool wants_retry(const struct run *r, const struct sweep_result *res)
{
	return !strcmp(res->state, RESULT_DONE) && res->outcome && strcmp(res->outcome, "PASS") &&
	       res->attempt <= r->in->meta->retry_failed && !r->stopping;
}

static bool engine_alive(void *engine, const char *run_id)
{
	return sweep_run_container_alive(engine, run_id);
}

/* Failures gathering on one GPU: reported, and with --quarantine-gpus that
 * GPU leaves the pool for the rest of the sweep (a running case on it
 * finishes first). */
static void note_suspects(struct run *r, size_t idx, const struct sweep_result *res)
{
	unsigned long long became = gpu_suspects_note(&r->suspects, idx, res->case_name, res->gpus,
						      res->n_gpus, res->outcome, res->fault_class);
	bool take_out = r->in->quarantine_gpus;

	for (int g = 0; g < GPU_MAX; g++) {
		if (!(became & (1ull << g)))
			continue;
		sweep_gpu_note(r->out->gpu_notes, &r->out->n_gpu_notes, g,
			       gpu_unique_id(&r->in->host->topo, g), take_out,
			       r->suspects.reason[g]);
		if (take_out && !sweep_sched_is_quarantined(&r->sched, g)) {
			sweep_sched_quarantine(&r->sched, g);
			sweep_quarantine_record(r->out->quarantined, &r->out->n_quarantined, &g, 1);
		}
		say_warning("GPU %d is suspect: %s%s", g, r->suspects.reason[g],
			    take_out ? "; quarantined for the rest of the sweep (--quarantine-gpus)"
				     : "");
	}
}

static void finish_worker(struct run *r, size_t k)
{
	struct worker *w = &r->w[k];
	struct sweep_result res;
	int status;
	bool quarantine = false, clean = false;

	close(w->fd);
	waitpid(w->pid, &status, 0);
	strbuf_trim_trailing_newline(&w->out);
	if (sweep_worker_result(w->out.buf, &res)) {
		/* A container still running after its worker gave up on it
		 * holds the GPU: quarantine it for the rest of the sweep. */
		quarantine = sweep_replay_survived(res.run_dir, engine_alive, r->in->host->engine);
		clean = !quarantine && !strcmp(res.state, RESULT_DONE);
		record(r, w->idx, &res, w->out.buf);
		if (!strcmp(res.state, RESULT_DONE))
			note_suspects(r, w->idx, &res);
		if (wants_retry(r, &res)) {
			r->attempt[w->idx] = res.attempt + 1;
			/* On another GPU when one is free: a flaky GPU must not
			 * look like a flaky case. */
			sweep_sched_add_avoiding(&r->sched, w->idx,
						 r->in->meta->plan.cases[w->idx].gpu_count,
						 gpu_suspects_failed_on(&r->suspects, w->idx));
		}
		sweep_result_release(&res);
	} else if (!r->stopping) {
		cleanup_free char *msg = xasprintf("the worker ended without a result (%s %d)",
						   WIFSIGNALED(status) ? "signal" : "exit",
						   WIFSIGNALED(status) ? WTERMSIG(status)
								       : WEXITSTATUS(status));

		record_now(r, w->idx, RESULT_ERROR, msg);
	}
	if (quarantine) {
		sweep_quarantine_record(r->out->quarantined, &r->out->n_quarantined, w->gpus, w->n_gpus);
		for (size_t g = 0; g < w->n_gpus; g++)
			sweep_gpu_note(r->out->gpu_notes, &r->out->n_gpu_notes, w->gpus[g],
				       gpu_unique_id(&r->in->host->topo, w->gpus[g]), true,
				       "a replay on it could not be stopped");
		say_warning("GPU(s) of %s quarantined: its replay could not be stopped",
			    r->in->meta->plan.cases[w->idx].name);
	}
	gpu_lease_release(&w->lease);
	/* A worker that ended without a verdict may have left its replay
	 * running unseen (the engine did not answer): look again before the
	 * next lease. A clean end changed nothing the witness watches (it
	 * sees orphans, not our live workers' containers), and its once a
	 * second is one engine request per case fewer. */
	if (!clean)
		r->held.fetched = -1e9;
	sweep_sched_finish(&r->sched, w->gpus, w->n_gpus, quarantine);
	strbuf_release(&w->out);
	r->w[k] = r->w[--r->n_w];
	sweep_progress_ended(&r->progress);
}

/* Every worker gets one signal per signal the sweep got: the first stops
 * the replays with their grace, a second skips it. */
static void forward_signal(struct run *r, int sig)
{
	r->stopping = true;
	if (!r->out->interrupted) {
		r->out->interrupted = sig;
		say_error("interrupted by %s: stopping %zu running case(s); finished results are "
			  "kept; resume with `sweep --resume %s%s%s`",
			  signal_name(sig), r->n_w, r->in->meta->id, r->in->resume_hint ? " " : "",
			  r->in->resume_hint ? r->in->resume_hint : "");
	}
	for (size_t k = 0; k < r->n_w; k++)
		kill(r->w[k].pid, sig == SIGINT ? SIGINT : SIGTERM);
}

static void pump(struct run *r)
{
	struct pollfd fds[MAX_WORKERS + 1];
	size_t n = 0;

	for (size_t k = 0; k < r->n_w; k++)
		fds[n++] = (struct pollfd){ .fd = r->w[k].fd, .events = POLLIN };
	fds[n++] = (struct pollfd){ .fd = r->sig_fd, .events = POLLIN };
	if (poll(fds, n, TICK_MS) < 0 && errno != EINTR)
		return;
	if (fds[n - 1].revents & POLLIN) {
		char sigs[16];
		ssize_t got = read(r->sig_fd, sigs, sizeof(sigs));

		for (ssize_t i = 0; i < got; i++)
			forward_signal(r, sigs[i]);
	}
	/* Backwards: finish_worker moves the last worker into slot k. */
	for (size_t k = r->n_w; k-- > 0;) {
		char buf[4096];
		ssize_t got;

		if (!(fds[k].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		got = read(r->w[k].fd, buf, sizeof(buf));
		if (got > 0)
			strbuf_add(&r->w[k].out, buf, (size_t)got);
		else if (got == 0 || errno != EINTR)
			finish_worker(r, k);
	}
}

static void run_init(struct run *r, const struct sweep_run_input *in, struct sweep_run_outcome *out)
{
	const struct replay_host *h = in->host;
	const struct sweep_meta *m = in->meta;
	int pool[GPU_MAX];
	size_t n_pool = 0;

	memset(r, 0, sizeof(*r));
	memset(out, 0, sizeof(*out));
	r->in = in;
	r->out = out;
	for (size_t i = 0; i < (m->n_gpus ? m->n_gpus : h->topo.n_gpus) && i < GPU_MAX; i++)
		pool[n_pool++] = m->n_gpus ? m->gpus[i] : (int)i;
	sweep_sched_init(&r->sched, pool, n_pool, (size_t)m->jobs, 0);
	r->attempt = xcalloc(m->plan.n + 1, sizeof(int));
	r->bounced_at = xcalloc(m->plan.n + 1, sizeof(double));
	memcpy(r->attempt, in->next_attempt, m->plan.n * sizeof(int));
	r->names = xcalloc(h->topo.n_gpus + 1, sizeof(*r->names));
	sweep_lease_names(&h->topo, in->sysfs_root, r->names);
	r->held = (struct sweep_held){ .engine = h->engine, .topo = &h->topo,
				  .device_root = in->device_root, .names = r->names };
	r->held.fetched = -1e9;
	sweep_progress_init(&r->progress, in->n_cases, isatty(STDERR_FILENO));
	gpu_suspects_init(&r->suspects, m->plan.n);
	if (getenv("SLURMD_NODENAME") && *getenv("SLURMD_NODENAME"))
		snprintf(r->hostname, sizeof(r->hostname), "%s", getenv("SLURMD_NODENAME"));
	else if (gethostname(r->hostname, sizeof(r->hostname) - 1) < 0)
		snprintf(r->hostname, sizeof(r->hostname), "unknown");
	install_signals(r);
}

static void run_release(struct run *r)
{
	sweep_sched_release(&r->sched);
	free(r->attempt);
	free(r->bounced_at);
	free(r->names);
	sweep_progress_done(&r->progress);
	gpu_suspects_release(&r->suspects);
	signals_release();
}

int sweep_run(const struct sweep_run_input *in, struct sweep_run_outcome *out, struct error *err)
{
	struct run r;
	double last_recheck = 0;

	(void)err;
	run_init(&r, in, out);
	for (size_t i = 0; i < in->n_cases; i++) {
		size_t idx = in->cases[i];
		const struct sweep_image_env *img = image_of(&r, &in->meta->plan.cases[idx]);

		if (!img || !img->ok)
			record_now(&r, idx, RESULT_ERROR, img ? img->error : "image not pinned");
		else
			sweep_sched_add(&r.sched, idx, in->meta->plan.cases[idx].gpu_count);
	}
	for (;;) {
		start_what_fits(&r);
		if (!r.n_w && (r.stopping || !r.sched.n_pending))
			break;
		pump(&r);
		sweep_progress_tick(&r.progress, &r.sched);
		if (sweep_sched_has_external(&r.sched) && monotonic_now() - last_recheck > 0.5) {
			sweep_sched_recheck(&r.sched);
			last_recheck = monotonic_now();
		}
	}
	run_release(&r);
	return 0;
}

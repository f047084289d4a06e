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
#include "common/signals.h"
#include "orchestrator/lease/gpu_holders.h"
#include "orchestrator/sweep/sweep_ahead_pull.h"
#include "orchestrator/sweep/sweep_budget.h"
#include "orchestrator/sweep/sweep_engine.h"
#include "orchestrator/sweep/sweep_pin.h"
#include "orchestrator/sweep/sweep_progress.h"
#include "orchestrator/sweep/sweep_quarantine.h"
#include "orchestrator/sweep/sweep_sched.h"
#include "orchestrator/sweep/suspect.h"

#define MAX_WORKERS 64
#define TICK_MS 250
#define MAX_UNREAPED 64

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
	struct holders_seen held;
	struct sweep_progress progress;
	struct gpu_suspects suspects;
	struct sweep_budget budget;
	struct sweep_puller ahead;   /* the next image's pull, in the background */
	char hostname[256];      /* where the results ran: the Slurm node name in a task */
	int sig_fd;             /* common/signals.h's pipe, -1 none */
	bool stopping;
	/* The engine stopped answering: no case starts until it answers again
	 * (or SWEEP_ENGINE_WAIT_S passed), and the replays it took away are
	 * removed by their run label once it does. */
	bool engine_lost;
	double engine_lost_at, engine_pinged_at;
	char unreaped[MAX_UNREAPED][SWEEP_RUN_ID_LEN + 1];
	size_t n_unreaped;
};

/* The signals stop the sweep's workers (forward_signal); a reader of
 * stdout that went away (| head) must not kill the parent mid-sweep. */
static void install_signals(struct run *r)
{
	r->sig_fd = signals_install();
	signal(SIGPIPE, SIG_IGN);
}

/* The index of c's image in meta->images (and imgs); n_images: none. */
static size_t image_index(const struct run *r, const struct sweep_case *c)
{
	size_t i;

	for (i = 0; i < r->in->meta->n_images; i++)
		if (!strcmp(r->in->meta->images[i].ref, c->image))
			break;
	return i;
}

static struct sweep_image_env *image_of(const struct run *r, const struct sweep_case *c)
{
	size_t i = image_index(r, c);

	return i < r->in->meta->n_images ? &r->in->imgs[i] : NULL;
}

/* What c's image was pinned to (NULL: nothing). */
static const char *pin_of(const struct run *r, const struct sweep_case *c)
{
	size_t i = image_index(r, c);

	return i < r->in->meta->n_images ? sweep_pin_name(&r->in->meta->images[i]) : NULL;
}

/* The case's image pulled and set up as its first case is about to
 * start. IMAGE_FAILED: an `error` result recorded, its GPUs freed;
 * IMAGE_WAIT: it does not fit --image-budget yet, the case back in line. */
enum image_readiness { IMAGE_READY, IMAGE_FAILED, IMAGE_WAIT };
static enum image_readiness image_ready(struct run *r, size_t idx, const int *gpus, size_t n);

static enum sweep_base base_of(const struct run *r, size_t idx)
{
	return r->in->base ? r->in->base[idx] : BASE_NONE;
}

/* A results line that cannot be written (a full disk): going on would
 * replay cases whose results are lost. Stop every worker, start nothing
 * more, and say so once: the path, what was kept, how to go on. */
static void stop_on_write_failure(struct run *r)
{
	if (r->out->write_failed)
		return;
	r->out->write_failed = true;
	r->stopping = true;
	for (size_t k = 0; k < r->n_w; k++)
		kill(r->w[k].pid, SIGTERM);
}

/* line: the worker's serialised res, recorded as it came; NULL: the
 * parent's own result, serialised here. */
static void record(struct run *r, size_t idx, struct case_result *res, const char *line)
{
	struct error err;
	int rc;

	/* A worker's line says where it ran already (sweep_job's host and
	 * gpu_uids); the parent's own results are told here. */
	if (!line)
		case_result_locate(res, &r->in->host->topo, r->hostname);
	rc = line ? case_result_append_line(r->in->results_path, line, &err)
		  : case_result_append(r->in->results_path, res, &err);
	if (rc < 0) {
		if (!r->out->not_recorded++)
			r->out->record_error = err;
		stop_on_write_failure(r); /* the next --resume runs it again */
	} else
		r->out->recorded++;
	sweep_progress_finished(&r->progress, res, base_of(r, idx),
				res->attempt > r->in->next_attempt[idx]);
}

/* A result the parent decides alone (no worker). */
static void record_now(struct run *r, size_t idx, enum result_state state, const char *msg)
{
	const struct sweep_case *c = &r->in->meta->plan.cases[idx];
	const struct sweep_image_env *img = image_of(r, c);
	struct case_result res;

	case_result_fill(&res, c, r->attempt[idx], state, img ? img->env.img.id : NULL, msg);
	res.image_pin = xstrdup_or_null(pin_of(r, c));
	record(r, idx, &res, NULL);
	case_result_release(&res);
	sweep_budget_case_ended(&r->budget, image_index(r, c));
}

/* false: busy (busy_ordinal set, *why NULL) or a lock that cannot be used
 * (*why says which: the case is an error, never an endless wait). */
static bool lease_gpus(struct run *r, size_t idx, const int *gpus, size_t n, struct worker *w,
		       int *busy_ordinal, char **why)
{
	const char *names[GPU_MAX];
	cleanup_free char *owner = xasprintf("%s sweep %s case %s", r->in->host->owner,
					     r->in->meta->id, r->in->meta->plan.cases[idx].name);
	struct gpu_lease_opts lo = { .owner = owner, .wait_s = 0, .held = holders_held_by_container,
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
	*busy_ordinal = gpus[w->lease.busy];
	if (!r->bounced_at[idx]) {
		r->bounced_at[idx] = monotonic_now();
		events_gpu_wait(r->in->events, err.msg);
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
		.pin = pin_of(r, c),
		.sh = r->in->sh, .policy = r->in->policy, .folder = r->in->folder,
		.sysfs_root = r->in->sysfs_root, .device_root = r->in->device_root,
		.devices = r->in->devices, .topo = &r->in->host->topo, .host = r->hostname,
		.known_failure = base_of(r, idx) == BASE_FAILED,
		.perf_runs = r->in->perf_runs, .perf_warmup = r->in->perf_warmup,
		.perf_adaptive = r->in->perf_base ? (int)r->in->meta->perf_adaptive : 0,
		.perf_rule = &r->in->meta->perf_rule,
		.perf_base = r->in->perf_base ? &r->in->perf_base[idx] : NULL,
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

/* An error while the engine did not answer: the engine took the replay
 * away, an infrastructure error, retried like the engine's OOM kill. */
static bool wants_retry_after_engine(const struct run *r, const struct case_result *res)
{
	return r->engine_lost && res->state == RESULT_ERROR &&
	       res->attempt <= r->in->meta->retry_failed && !r->stopping;
}

/* After a worker ended without a verdict: does the engine still answer?
 * When not, no case starts until it does (start_what_fits). */
static void check_engine(struct run *r)
{
	struct error err;

	if (r->engine_lost || engine_ping(r->in->host->engine, &err) == 0)
		return;
	r->engine_lost = true;
	r->engine_lost_at = r->engine_pinged_at = monotonic_now();
	r->out->engine_losses++;
	events_warning(r->in->events,
		       "%s: starting no case until the engine answers again (at most %d s)",
		       err.msg, SWEEP_ENGINE_WAIT_S);
}

/* The engine answers again: remove what it kept of the replays it took
 * away (Podman's conmon keeps a container running through its service's
 * restart), by their run label, before any GPU is leased again. */
static bool engine_back(struct run *r)
{
	struct error err;
	double now = monotonic_now();

	if (!r->engine_lost)
		return true;
	if (now - r->engine_pinged_at < 1.0)
		return false;
	r->engine_pinged_at = now;
	if (engine_ping(r->in->host->engine, &err) < 0) {
		if (now - r->engine_lost_at < SWEEP_ENGINE_WAIT_S)
			return false;
		events_warning(r->in->events,
			       "the engine did not answer for %d s: going on without waiting",
			       SWEEP_ENGINE_WAIT_S);
	} else {
		events_info(r->in->events, 0, "the engine answers again after %.0f s",
			    now - r->engine_lost_at);
	}
	for (size_t i = 0; i < r->n_unreaped; i++)
		holders_run_container_remove(r->in->host->engine, r->unreaped[i]);
	r->n_unreaped = 0;
	r->engine_lost = false;
	r->held.fetched = -1e9;
	return true;
}

static void remember_unreaped(struct run *r, const char *run_dir)
{
	if (r->n_unreaped < MAX_UNREAPED && sweep_run_id_of(run_dir, r->unreaped[r->n_unreaped]))
		r->n_unreaped++;
}

static void start_what_fits(struct run *r)
{
	for (;;) {
		size_t idx;
		int gpus[GPU_MAX];
		enum sweep_sched_verdict v;

		if (r->stopping || r->n_w == MAX_WORKERS || !engine_back(r))
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
		switch (image_ready(r, idx, gpus, (size_t)r->in->meta->plan.cases[idx].gpu_count)) {
		case IMAGE_READY:
			start_one(r, idx, gpus, (size_t)r->in->meta->plan.cases[idx].gpu_count);
			break;
		case IMAGE_WAIT:
			return; /* again when a case ends */
		case IMAGE_FAILED:
			break;
		}
	}
}

static enum image_readiness image_ready(struct run *r, size_t idx, const int *gpus, size_t n)
{
	const struct sweep_case *c = &r->in->meta->plan.cases[idx];
	size_t i = image_index(r, c);
	struct sweep_image_env *img = image_of(r, c);

	if (img && !img->prepared) {
		/* Being pulled ahead: the case waits in line for that pull,
		 * while the loop goes on reading the running cases. */
		if (sweep_puller_pulling(&r->ahead, i)) {
			sweep_sched_requeue(&r->sched, idx, c->gpu_count, gpus, n, -1);
			return IMAGE_WAIT;
		}
		if (sweep_budget_before_pull(&r->budget, i) == BUDGET_WAIT) {
			sweep_sched_requeue(&r->sched, idx, c->gpu_count, gpus, n, -1);
			return IMAGE_WAIT;
		}
		sweep_image_prepare(img, r->in->host, r->in->image, r->in->sh,
				    &r->in->meta->images[i], r->in->events);
		if (img->ok)
			sweep_budget_after_pull(&r->budget, i, img->env.img.id, img->env.img.pulled);
	}
	if (img && img->ok)
		return IMAGE_READY;
	sweep_sched_finish(&r->sched, gpus, n, false);
	record_now(r, idx, RESULT_ERROR, img ? img->error : "image not pinned");
	return IMAGE_FAILED;
}

/* A non-PASS replay runs again while attempts remain (--retry-failed). */
static bool wants_retry(const struct run *r, const struct case_result *res)
{
	return res->state == RESULT_DONE && res->has_outcome && !case_result_passed(res) &&
	       res->attempt <= r->in->meta->retry_failed && !r->stopping;
}

/* The engine stopped answering as the replay ended: what it saw is an
 * infrastructure error, retried like one (wants_retry_after_engine). */
static void engine_took_replay(struct case_result *res)
{
	const char *was = case_result_outcome_name(res);

	free(res->message);
	res->message = xasprintf("the engine stopped answering as the replay ended; its %s is "
				 "not the workload's verdict", was ? was : "end");
	free(res->class_other);
	free(res->kernel);
	res->class_other = res->kernel = NULL;
	res->has_outcome = res->has_class = false;
	res->state = RESULT_ERROR;
	res->kind = RESULT_KIND_INFRA;
}

/* A replay still running after its worker gave up on it: stopped and
 * removed by its run label; alive only when that failed. */
static bool engine_alive(void *engine, const char *run_id)
{
	if (!holders_run_container_alive(engine, run_id))
		return false;
	holders_run_container_remove(engine, run_id);
	return holders_run_container_alive(engine, run_id);
}

/* Failures gathering on one GPU: reported, and with --quarantine-gpus that
 * GPU leaves the pool for the rest of the sweep (a running case on it
 * finishes first). */
static void note_suspects(struct run *r, size_t idx, const struct case_result *res)
{
	struct suspect_verdict v = { res->outcome, res->has_class ? res->fault_class : FAULT_UNKNOWN };
	unsigned long long became = gpu_suspects_note(&r->suspects, idx, res->case_name, res->gpus,
						      res->n_gpus, res->has_outcome ? &v : NULL);
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
		events_warning(r->in->events, "GPU %d is suspect: %s%s", g, r->suspects.reason[g],
			       take_out ? "; quarantined for the rest of the sweep (--quarantine-gpus)" : "");
	}
}

static void finish_worker(struct run *r, size_t k)
{
	struct worker *w = &r->w[k];
	struct case_result res;
	int status;
	bool quarantine = false, clean = false;

	close(w->fd);
	waitpid(w->pid, &status, 0);
	strbuf_trim_trailing_newline(&w->out);
	if (sweep_worker_result(w->out.buf, &res)) {
		bool passed = res.state == RESULT_DONE && case_result_passed(&res);
		bool taken = false;

		if (!passed)
			check_engine(r);
		/* A verdict read while the engine went away (its shutdown
		 * stopped the container) is the engine's, not the workload's. */
		if (!passed && r->engine_lost && res.state == RESULT_DONE) {
			engine_took_replay(&res);
			taken = true;
		}
		/* A container still running after its worker gave up on it
		 * holds the GPU: removed, or when it cannot be, quarantined for
		 * the rest of the sweep. An engine that does not answer is
		 * not the GPU's fault: its replay is removed once it is back. */
		if (r->engine_lost)
			remember_unreaped(r, res.run_dir);
		else
			quarantine = sweep_replay_survived(res.run_dir, engine_alive,
							   r->in->host->engine);
		clean = !quarantine && res.state == RESULT_DONE;
		record(r, w->idx, &res, taken ? NULL : w->out.buf);
		if (res.state == RESULT_DONE)
			note_suspects(r, w->idx, &res);
		if (wants_retry(r, &res) || wants_retry_after_engine(r, &res)) {
			r->attempt[w->idx] = res.attempt + 1;
			/* On another GPU when one is free: a flaky GPU must not
			 * look like a flaky case. */
			sweep_sched_add_grouped(&r->sched, w->idx,
						r->in->meta->plan.cases[w->idx].gpu_count,
						gpu_suspects_failed_on(&r->suspects, w->idx),
						res.duration_s > 0 ? res.duration_s : -1,
						image_index(r, &r->in->meta->plan.cases[w->idx]));
		} else {
			sweep_budget_case_ended(&r->budget,
						image_index(r, &r->in->meta->plan.cases[w->idx]));
		}
		case_result_release(&res);
	} else if (!r->stopping) {
		check_engine(r);
		cleanup_free char *msg = xasprintf("the worker ended without a result (%s %d)",
						   WIFSIGNALED(status) ? "signal" : "exit",
						   WIFSIGNALED(status) ? WTERMSIG(status)
								       : WEXITSTATUS(status));

		record_now(r, w->idx, RESULT_ERROR, msg);
	}
	if (quarantine) {
		sweep_quarantine_record(r->out->quarantined, &r->out->n_quarantined, w->gpus, w->n_gpus);
		for (size_t g = 0; g < w->n_gpus; g++) {
			struct sweep_gpu_note *n =
				sweep_gpu_note(r->out->gpu_notes, &r->out->n_gpu_notes, w->gpus[g],
					       gpu_unique_id(&r->in->host->topo, w->gpus[g]), true,
					       "a replay on it could not be stopped");

			if (n)
				n->stuck = true;
		}
		events_warning(r->in->events,
			       "GPU(s) of %s quarantined: its replay could not be stopped",
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
		events_error(r->in->events,
			     "interrupted by %s: stopping %zu running case(s); finished results are "
			     "kept; resume with `sweep --resume %s%s%s`", signal_name(sig), r->n_w,
			     r->in->meta->id, r->in->resume_hint ? " " : "",
			     r->in->resume_hint ? r->in->resume_hint : "");
	}
	for (size_t k = 0; k < r->n_w; k++)
		kill(r->w[k].pid, sig == SIGINT ? SIGINT : SIGTERM);
}

static void pump(struct run *r)
{
	struct pollfd fds[MAX_WORKERS + 2];
	size_t n = 0;

	for (size_t k = 0; k < r->n_w; k++)
		fds[n++] = (struct pollfd){ .fd = r->w[k].fd, .events = POLLIN };
	fds[n++] = (struct pollfd){ .fd = sweep_puller_fd(&r->ahead), .events = POLLIN };
	fds[n++] = (struct pollfd){ .fd = r->sig_fd, .events = POLLIN };
	if (poll(fds, n, TICK_MS) < 0 && errno != EINTR)
		return;
	if (fds[n - 2].revents & (POLLIN | POLLHUP | POLLERR))
		sweep_puller_readable(&r->ahead);
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
	r->sched.max_groups = 2; /* the image running and the next one */
	r->attempt = xcalloc(m->plan.n + 1, sizeof(int));
	r->bounced_at = xcalloc(m->plan.n + 1, sizeof(double));
	memcpy(r->attempt, in->next_attempt, m->plan.n * sizeof(int));
	r->names = xcalloc(h->topo.n_gpus + 1, sizeof(*r->names));
	holders_lease_names(&h->topo, in->sysfs_root, r->names);
	r->held = (struct holders_seen){ .engine = h->engine, .topo = &h->topo,
				  .device_root = in->device_root, .names = r->names };
	r->held.fetched = -1e9;
	sweep_progress_init(&r->progress, in->n_cases, in->events);
	gpu_suspects_init(&r->suspects, m->plan.n);
	sweep_budget_init(&r->budget, m, h->engine, m->image_budget, h->owner, in->images_path,
			  in->events);
	sweep_puller_init(&r->ahead, &(struct sweep_puller_ctx){
		.meta = m, .imgs = in->imgs, .budget = &r->budget, .setup = in->image,
		.engine = h->engine, .ev = in->events });
	replay_host_name(r->hostname, sizeof(r->hostname));
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
	/* A pull ahead still running (the sweep stopped) is killed and
	 * reaped, never waited for. */
	sweep_puller_release(&r->ahead);
	sweep_budget_finish(&r->budget);
	sweep_budget_release(&r->budget);
	signals_release();
}

int sweep_run(const struct sweep_run_input *in, struct sweep_run_outcome *out, struct error *err)
{
	struct run r;
	double last_recheck = 0;

	(void)err;
	run_init(&r, in, out);
	cleanup_free size_t *order = sweep_plan_longest_first(&in->meta->plan, in->cases,
							       in->n_cases);

	for (size_t i = 0; i < in->n_cases; i++) {
		const struct sweep_case *c = &in->meta->plan.cases[order[i]];
		const struct sweep_image_env *img = image_of(&r, c);

		/* Image after image, in the plan's order of images. */
		if (!img || (img->prepared && !img->ok))
			record_now(&r, order[i], RESULT_ERROR, img ? img->error : "image not pinned");
		else {
			sweep_sched_add_grouped(&r.sched, order[i], c->gpu_count, 0, c->expected_s,
						image_index(&r, c));
			sweep_budget_case_queued(&r.budget, image_index(&r, c));
		}
	}
	sweep_budget_hold(&r.budget);
	for (;;) {
		start_what_fits(&r);
		sweep_puller_tick(&r.ahead, r.stopping);
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

#include "orchestrator/jobs/sweep_job.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "orchestrator/history/sweep_baseline.h"
#include "orchestrator/history/sweep_perf_base.h"
#include "orchestrator/jobs/sweep_cases.h"
#include "orchestrator/jobs/sweep_cluster.h"
#include "orchestrator/jobs/sweep_finish.h"
#include "orchestrator/jobs/sweep_open.h"
#include "orchestrator/lease/gpu_holders.h"
#include "orchestrator/lease/gpu_lease.h"
#include "orchestrator/sweep/sweep_image_fate.h"
#include "orchestrator/sweep/sweep_kernels.h"
#include "orchestrator/sweep/sweep_run.h"

static enum sweep_end usage_or_infra(const struct error *err)
{
	return err->kind == ERR_USAGE ? SWEEP_END_USAGE : SWEEP_END_INFRA;
}

static void job_init(struct sweep_work *j, const struct sweep_request *req)
{
	memset(j, 0, sizeof(*j));
	j->req = req;
	j->ev = req->events;
	replay_desc_init(&j->set.policy);
	sweep_meta_init(&j->meta);
}

/* Up to the host: the sweep read or planned, the database (not in a task
 * nor when submitting), the rules. */
static int set_up_sweep(struct sweep_work *j, enum sweep_end *end)
{
	const struct sweep_request *req = j->req;
	struct error err;
	bool submit;

	j->submit_to = sweep_backend_named(req->backend ? req->backend->name : NULL);
	submit = j->submit_to != NULL;
	if (submit && j->submit_to->can_submit(&err) < 0)
		return *end = sweep_state_fail(j, &err, SWEEP_END_INFRA), -1;
	if (sweep_open_prepare(j, &err) < 0)
		return *end = sweep_state_fail(j, &err, usage_or_infra(&err)), -1;
	j->task_of = req->have_shard ? sweep_backend_of_task() : NULL;
	j->task = j->task_of != NULL;
	if (!submit && !j->task && sweep_open_db(j, false, &j->db, &err) < 0)
		return *end = sweep_state_fail(j, &err, usage_or_infra(&err)), -1;
	/* Without the database: a bad file is refused before submitting, and
	 * a cluster task marks its results lines with the rules too. */
	if ((submit || j->task) && sweep_open_known(j, &err) < 0)
		return *end = sweep_state_fail(j, &err, SWEEP_END_USAGE), -1;
	if (!j->resume && !j->task)
		sweep_open_durations(j);
	return 0;
}

/* Up to the cases to run: the sweep read or planned, its folder, the
 * database, the host, the images. */
static int set_up(struct sweep_work *j, size_t **cases, size_t *n, int **next_attempt,
		  enum sweep_end *end)
{
	struct error err;
	int code;
	bool submit;

	if (set_up_sweep(j, end) < 0)
		return -1;
	submit = j->submit_to != NULL;
	if ((code = sweep_open_host(j)))
		return *end = sweep_end_of_code(code), -1;
	if (!submit && sweep_open_pool(j, &err) < 0)
		return *end = sweep_state_fail(j, &err, SWEEP_END_NO_GPU), -1;
	/* A lock directory that cannot be trusted stops the sweep here, not
	 * each case in a wait that never ends. */
	if (!submit && gpu_lease_dir_prepare(gpu_lease_dir(NULL), &err) < 0)
		return *end = sweep_state_fail(j, &err, usage_or_infra(&err)), -1;
	if (j->task && sweep_cluster_task_pool(j, &err) < 0)
		return *end = sweep_state_fail(j, &err, SWEEP_END_INFRA), -1;
	if (j->resume && !submit)
		holders_remove_orphans(j->host.engine);
	if (!(submit && j->resume))
		sweep_open_images(j);
	if (!j->resume && sweep_open_budget_check(j, &err) < 0)
		return *end = sweep_state_fail(j, &err, SWEEP_END_USAGE), -1;
	if (!j->resume && sweep_folder_create(j->host.workdir, j->meta.id, &j->folder, &err) < 0)
		return *end = sweep_state_fail(j, &err, SWEEP_END_INFRA), -1;
	/* A code object that changed since its check is the user's to fix. */
	if (!j->resume && j->req->plan.kernel_sources &&
	    sweep_kernels_store(j->folder, j->req->plan.kernel_sources, &err) < 0)
		return *end = sweep_state_fail(j, &err, err.kind == ERR_DATA ? SWEEP_END_USAGE
									: SWEEP_END_INFRA), -1;
	if (!j->resume && sweep_meta_write(&j->meta, j->folder, &err) < 0)
		return *end = sweep_state_fail(j, &err, SWEEP_END_INFRA), -1;
	if (sweep_kernels_attach(j->folder, j->set.kernels, &err) < 0)
		return *end = sweep_state_fail(j, &err, SWEEP_END_INFRA), -1;
	if (sweep_cases_select(j, cases, n, next_attempt, &err) < 0)
		return *end = sweep_state_fail(j, &err, SWEEP_END_INFRA), -1;
	return 0;
}

/* The baseline's verdicts, before anything runs (NULL: no database, as in
 * a cluster task, or it could not be read: every case counts as new). */
static enum sweep_base *baseline_of(const struct sweep_work *j)
{
	enum sweep_base *base;
	struct error err;

	if (!j->db)
		return NULL;
	base = xcalloc(j->meta.plan.n + 1, sizeof(*base));
	if (sweep_baseline_load(j->db, &j->meta, base, &err) < 0) {
		events_warning(j->ev, "the baseline could not be read (%s): every case is diagnosed "
			       "and counted as new while the sweep runs", err.msg);
		free(base);
		return NULL;
	}
	return base;
}

/* --perf-adaptive's baselines, before anything runs (NULL: off, no
 * database, as in a cluster task, or it could not be read: no case gets
 * more samples). */
static struct perf_adaptive_base *perf_base_of(const struct sweep_work *j)
{
	struct perf_adaptive_base *v;
	struct error err;

	if (!j->db || !j->meta.perf_adaptive || !j->req->perf_runs)
		return NULL;
	v = sweep_perf_base_load(j->db, &j->meta, &err);
	if (!v)
		events_warning(j->ev, "the GPU-time baseline could not be read (%s): no case gets "
			       "more samples (--perf-adaptive)", err.msg);
	return v;
}

static enum sweep_state final_state(const struct sweep_work *j,
				    const struct sweep_run_outcome *out, size_t remaining_before)
{
	if (out->interrupted || out->write_failed)
		return SWEEP_INTERRUPTED;
	if (j->req->have_shard || out->recorded < remaining_before)
		return SWEEP_PARTIAL;
	return SWEEP_FINISHED;
}

/* The notifications once the reports are written (a sweep_finish.then):
 * what becomes of them changes neither. */
struct notify_then {
	const struct sweep_work *j;
};

static void notify_then(void *ctx, const struct report *r)
{
	const struct notify_then *t = ctx;
	const struct sweep_work *j = t->j;

	j->req->hooks.notify(j->req->hooks.ctx, j->meta.notify, j->folder,
			     j->have_known ? &j->known : NULL, r);
}

static enum sweep_end finish(struct sweep_work *j, const struct sweep_run_outcome *out,
			     size_t n_cases, bool merge)
{
	const struct sweep_request *req = j->req;
	cleanup_free char *backend = merge ? sweep_backends_record(j->folder) : NULL;
	struct notify_then then = { j };
	struct sweep_finish f = {
		.state = final_state(j, out, n_cases), .finished = (long long)time(NULL),
		.quarantined = out->quarantined, .n_quarantined = out->n_quarantined,
		.gpu_notes = out->gpu_notes, .n_gpu_notes = out->n_gpu_notes,
		.suspects_from_results = merge, .junit = req->junit, .html = req->html,
		.summary = req->summary, .json = req->json, .backend = backend, .events = j->ev,
		.known = j->have_known ? &j->known : NULL, .release_plan = &j->meta.plan,
		.then = req->hooks.notify ? notify_then : NULL, .then_ctx = &then,
	};
	struct error err;
	enum sweep_end end;

	if (j->task)
		return sweep_cluster_task_end(j, out);
	/* The stop said what was kept and how to go on; reports written
	 * on the full disk would only fail again (the resume writes them). */
	if (out->write_failed)
		return SWEEP_END_INFRA;
	if (sweep_finish_write(j->db, &j->meta, j->folder, &f, &end, req->shown_to, &err) < 0) {
		fflush(req->shown_to);
		return sweep_state_fail(j, &err, SWEEP_END_INFRA);
	}
	fflush(req->shown_to);
	events_stage(j->ev, "sweep folder: %s", j->folder);
	/* Bounded GPU waits that let nothing run: try later. */
	if (out->gave_up && out->gave_up == out->recorded)
		return SWEEP_END_GPU_BUSY;
	return end;
}

static enum sweep_end run_cases(struct sweep_work *j, const size_t *cases, size_t n,
				const int *next_attempt)
{
	const struct sweep_request *req = j->req;
	struct sweep_run_outcome out = { 0 };
	struct error err;
	cleanup_free char *tag = sweep_cases_task_tag(j);
	cleanup_free char *rpath = sweep_cases_results_path(j->folder, tag);
	/* A cluster task writes its images' fates to a file of its own. */
	cleanup_free char *images_path = sweep_image_fates_path(j->folder, tag);
	cleanup_free enum sweep_base *base = baseline_of(j);
	struct perf_adaptive_base *perf_base = perf_base_of(j);
	struct sweep_run_input in = {
		.meta = &j->meta, .folder = j->folder, .results_path = rpath,
		.images_path = images_path,
		.policy = &j->set.policy, .sysfs_root = j->set.sysfs_root,
		.device_root = j->set.device_root, .devices = j->set.devices,
		.quarantine_gpus = req->quarantine_gpus, .host = &j->host, .imgs = j->imgs,
		.image = &j->image,
		.sh = &j->sh, .cases = cases, .n_cases = n, .next_attempt = next_attempt,
		.may_start = j->task ? sweep_cluster_task_may_start : NULL, .may_start_ctx = j,
		.resume_hint = j->task ? j->task_of->flag : NULL, .base = base,
		.perf_runs = req->perf_runs, .perf_warmup = req->perf_warmup, .events = j->ev,
		.perf_base = perf_base,
	};
	enum sweep_end end;
	int rc;

	rc = sweep_run(&in, &out, &err);

	/* Before finish, which releases the plan they are counted by. */
	sweep_perf_base_free(perf_base, j->meta.plan.n);
	end = rc < 0 ? sweep_state_fail(j, &err, SWEEP_END_INFRA) : finish(j, &out, n, false);

	if (out.write_failed)
		events_error(j->ev, "%s: stopping the sweep; the results recorded before it are "
			     "kept in %s (%zu by this run); free space and resume with `sweep "
			     "--resume %s`", out.record_error.msg, rpath, out.recorded, j->meta.id);
	return end;
}

enum sweep_end sweep_job_run(const struct sweep_request *req)
{
	struct sweep_work j;
	size_t *cases = NULL, n = 0;
	int *next_attempt = NULL;
	enum sweep_end end;

	job_init(&j, req);
	if (set_up(&j, &cases, &n, &next_attempt, &end) == 0) {
		events_stage(j.ev, "sweep %s: %zu case(s) to run of %zu, folder %s", j.meta.id, n,
			     j.meta.plan.n, j.folder);
		end = j.submit_to ? sweep_cluster_submit(&j, cases, n)
				  : run_cases(&j, cases, n, next_attempt);
	}
	free(cases);
	free(next_attempt);
	sweep_open_release(&j);
	return end;
}

/* Running it twice changes nothing. */
enum sweep_end sweep_job_merge(const struct sweep_request *req, const char *sweep)
{
	struct sweep_run_outcome out = { 0 };
	struct sweep_work j;
	struct error err;
	size_t done, lines;
	enum sweep_end end;

	job_init(&j, req);
	end = sweep_open_read_back(&j, sweep, &done, &lines);
	if (end == SWEEP_END_OK && sweep_open_db(&j, false, &j.db, &err) < 0)
		end = sweep_state_fail(&j, &err, usage_or_infra(&err));
	else if (end == SWEEP_END_OK) {
		/* "finished": the cases without a result are missing and fail it. */
		out.recorded = done;
		end = finish(&j, &out, done, true);
	}
	sweep_open_release(&j);
	return end;
}

enum sweep_end sweep_job_status(const struct sweep_request *req, const char *sweep,
				struct sweep_job_status *st)
{
	struct sweep_work j;
	enum sweep_end end;

	memset(st, 0, sizeof(*st));
	st->backends = (struct strbuf)STRBUF_INIT;
	job_init(&j, req);
	end = sweep_open_read_back(&j, sweep, &st->done, &st->lines);
	if (end == SWEEP_END_OK) {
		st->id = xstrdup(j.meta.id);
		st->label = xstrdup(j.meta.label);
		st->planned = j.meta.plan.n;
		sweep_backends_status(j.folder, &st->backends);
	}
	sweep_open_release(&j);
	return end;
}

void sweep_job_status_release(struct sweep_job_status *st)
{
	free(st->id);
	free(st->label);
	strbuf_release(&st->backends);
}

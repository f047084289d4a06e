#include "orchestrator/jobs/sweep_open.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/fsutil.h"
#include "common/version.h"
#include "common/xalloc.h"
#include "orchestrator/history/sweep_expected.h"
#include "orchestrator/jobs/known_load.h"
#include "orchestrator/replay/run_folder.h"
#include "orchestrator/sweep/sweep_engine.h"
#include "orchestrator/sweep/sweep_pin.h"
#include "preflight/gpu_choice.h"

static unsigned random24(void)
{
	unsigned v = 0;
	FILE *f = fopen("/dev/urandom", "rb");

	if (!f || fread(&v, sizeof(v), 1, f) != 1)
		v = (unsigned)getpid() ^ (unsigned)time(NULL);
	if (f)
		fclose(f);
	return v & 0xffffffu;
}

static int meta_from_request(struct sweep_work *j, struct error *err)
{
	struct sweep_meta *m = &j->meta;
	const struct sweep_request *req = j->req;
	const struct sweep_request_plan *p = &req->plan;

	m->label = xstrdup(p->label ? p->label : "default");
	m->baseline = xstrdup_or_null(p->baseline);
	/* plan.json never holds a server's password: a task, the merge
	 * and --resume connect with the same URI without it (a password
	 * file or service then gives it). */
	m->db = req->db ? history_db_shown(req->db) : NULL;
	if (req->known_issues) {
		/* A task or the merge job may start elsewhere: the path whole. */
		m->known_issues = realpath(req->known_issues, NULL);
		if (!m->known_issues)
			m->known_issues = xstrdup(req->known_issues);
	}
	memcpy(m->gpus, p->gpus, sizeof(m->gpus));
	m->n_gpus = p->n_gpus;
	m->jobs = p->jobs;
	m->image_budget = p->image_budget;
	m->retry_failed = p->retry_failed;
	m->gpu_wait = p->gpu_wait;
	m->fail_on = p->fail_on;
	m->perf_baseline = xstrdup_or_null(p->perf_baseline);
	m->perf_window = p->perf_window;
	m->perf_adaptive = p->perf_adaptive;
	m->perf_rule = p->perf_rule;
	m->perf_family = p->perf_family;
	m->run_options = xstrdup(p->run_options ? p->run_options : "{}");
	m->notify = xstrdup_or_null(p->notify);
	/* The local workers run from the description a task or a resume
	 * reads back, not from the options it was made of. */
	return req->hooks.adopt(req->hooks.ctx, m->run_options, &j->set, err);
}

/* A resumed sweep replays as it started: its recorded run options over
 * this invocation's. */
static int options_from_meta(struct sweep_work *j, struct error *err)
{
	int rc = j->req->hooks.adopt(j->req->hooks.ctx,
				     j->meta.run_options ? j->meta.run_options : "{}", &j->set, err);

	return rc < 0 ? error_prefix(err, "sweep %s: ", j->meta.id) : 0;
}

/* A new sweep: the cases, in their fixed order, before anything starts. */
static int plan_new(struct sweep_work *j, struct error *err)
{
	const struct sweep_request_plan *p = &j->req->plan;
	struct sweep_meta *m = &j->meta;

	if (meta_from_request(j, err) < 0)
		return -1;
	if (sweep_plan_add_matrix(&m->plan, p->archives, p->n_archives, p->images, p->n_images,
				  err) < 0)
		return -1;
	for (size_t i = 0; i < p->n_plans; i++)
		if (sweep_plan_add_file(&m->plan, p->plans[i], err) < 0)
			return -1;
	if (sweep_plan_check_duplicates(&m->plan, err) < 0)
		return -1;
	for (size_t i = 0; i < m->plan.n; i++)
		sweep_meta_add_image(m, m->plan.cases[i].image);
	m->host = sweep_host_name();
	m->tool_version = xstrdup(HRR_DOCKER_REPLAY_VERSION);
	{
		struct timespec now;

		clock_gettime(CLOCK_REALTIME, &now);
		m->started = (long long)now.tv_sec;
		m->started_us = (long long)now.tv_sec * 1000000 + now.tv_nsec / 1000;
	}
	m->id = sweep_id_make(m->label, m->host, (time_t)m->started, random24());
	/* The merge job opens the database this sweep names, not its own
	 * default. */
	if (j->req->backend && j->req->backend->name && !m->db)
		m->db = history_db_default_path();
	return 0;
}

int sweep_open_prepare(struct sweep_work *j, struct error *err)
{
	if (j->req->resume) {
		cleanup_free char *wd = NULL;

		if (workdir_prepare(j->req->workdir, NULL, 0, &wd, err) < 0 ||
		    sweep_folder_find(wd, j->req->resume, &j->folder, err) < 0 ||
		    sweep_meta_read(&j->meta, j->folder, err) < 0 ||
		    sweep_meta_migrate(&j->meta, j->folder, err) < 0)
			return -1;
		j->resume = true;
		return options_from_meta(j, err);
	}
	return plan_new(j, err);
}

int sweep_open_host(struct sweep_work *j)
{
	const char **archives = xcalloc(j->meta.plan.n + 1, sizeof(char *));
	struct replay_host_config cfg = {
		.workdir = j->req->workdir, .archives = archives,
		.n_archives = j->meta.plan.n, .device_root = j->set.device_root,
		.sysfs_root = j->set.sysfs_root, .need_gpu = !(j->req->backend && j->req->backend->name),
		.verbosity = j->req->verbosity, .events = j->ev,
	};
	struct replay_failure f;
	int code;

	for (size_t i = 0; i < j->meta.plan.n; i++)
		archives[i] = j->meta.plan.cases[i].archive;
	code = replay_host_open(&j->host, &cfg, &f);
	j->host_open = true;
	free(archives);
	return code;
}

/* --gpus against the host, once, by the one check `run --gpu` has too. */
int sweep_open_pool(const struct sweep_work *j, struct error *err)
{
	struct gpu_choice pool;

	if (gpu_choice_named(&pool, &j->host.topo, j->meta.gpus, j->meta.n_gpus, NULL) < 0)
		return error_set(err, ERR_USAGE, 0, "%s", pool.error);
	return 0;
}

/* One image's pin, resolved (never pulled) when the sweep did not record
 * one: a new sweep, or a resume of one whose pin failed. */
static void pin_image(struct sweep_work *j, struct sweep_image *im, struct sweep_image_env *e)
{
	struct error err;
	int r;

	if (im->id || im->digest)
		return;
	r = sweep_pin_resolve(j->host.engine, j->set.image.pull, im, &err);
	/* An engine restarting as the sweep starts: its cases wait for it,
	 * they are not the image's errors. */
	if (r < 0 && j->host.engine && engine_ping(j->host.engine, ERROR_DISCARD) < 0 &&
	    sweep_engine_wait(j->host.engine, j->ev, SWEEP_ENGINE_WAIT_S))
		r = sweep_pin_resolve(j->host.engine, j->set.image.pull, im, &err);
	if (r == 0) {
		free(im->error);
		im->error = NULL;
		return;
	}
	error_prefix(&err, "image %s: ", im->ref);
	events_error(j->ev, "%s", err.msg);
	sweep_image_failed(e, err.msg);
	if (!im->error)
		im->error = xstrdup(err.msg);
}

/* Each image pinned as the sweep starts, pulled when its first case is
 * about to (sweep_run); a pin that fails is every case of that image's
 * `error`, never the sweep's end. */
void sweep_open_images(struct sweep_work *j)
{
	j->image = j->set.image;
	j->image.verbosity = -1; /* no pull progress between the cases' lines */
	sweep_shared_setup(&j->sh, j->set.mount_clr ? &j->set.overlay : NULL);
	j->imgs = xcalloc(j->meta.n_images + 1, sizeof(*j->imgs));
	for (size_t i = 0; i < j->meta.n_images; i++) {
		sweep_image_env_init(&j->imgs[i]);
		pin_image(j, &j->meta.images[i], &j->imgs[i]);
	}
}

int sweep_open_budget_check(const struct sweep_work *j, struct error *err)
{
	const struct sweep_meta *m = &j->meta;

	for (size_t i = 0; m->image_budget && i < m->n_images; i++)
		if (m->images[i].manifest_size > m->image_budget)
			return error_set(err, ERR_USAGE, 0,
					 "image %s takes at least %lld bytes (%.1f MiB, its registry's "
					 "compressed layers), more than --image-budget %lld bytes "
					 "(%.1f MiB): raise the budget",
					 m->images[i].ref, m->images[i].manifest_size,
					 (double)m->images[i].manifest_size / 1048576.0,
					 m->image_budget, (double)m->image_budget / 1048576.0);
	return 0;
}

void sweep_open_release(struct sweep_work *j)
{
	for (size_t i = 0; j->imgs && i < j->meta.n_images; i++)
		sweep_image_env_release(&j->imgs[i]);
	free(j->imgs);
	sweep_shared_release(&j->sh);
	if (j->host_open)
		replay_host_release(&j->host);
	history_db_close(j->db);
	known_issues_release(&j->known);
	free(j->folder);
	sweep_meta_release(&j->meta);
}

/* The history database this sweep uses. */
static const char *db_path(const struct sweep_work *j, const char *dflt)
{
	return j->req->db ? j->req->db : j->meta.db ? j->meta.db : dflt;
}

int sweep_open_known(struct sweep_work *j, struct error *err)
{
	cleanup_free char *dflt = history_db_default_path();
	cleanup_free char *beside = known_load_beside(db_path(j, dflt));
	const char *named = j->req->known_issues ? j->req->known_issues : j->meta.known_issues;

	if (!named && !beside) {
		j->have_known = false;
		return 0;
	}
	return known_load(named ? named : beside, named ? KNOWN_NAMED : KNOWN_BESIDE_IF_ANY,
			  &j->known, &j->have_known, j->ev, err);
}

/* The sweep's connection caches 256 KiB of pages, not SQLite's 2 MB: the
 * end-of-sweep import writes each page of its rows about once, and the
 * parent's peak memory is measured per planned case (docs/sweep.md). */
#define SWEEP_DB_CACHE_KIB 256

int sweep_open_db(struct sweep_work *j, bool read_only, struct history_db **db,
		  struct error *err)
{
	cleanup_free char *dflt = history_db_default_path();
	const char *path = db_path(j, dflt);

	if ((read_only ? history_db_open_readonly(db, path, err) : history_db_open(db, path, err)) < 0)
		return -1;
	if (history_db_warning(*db))
		events_warning(j->ev, "%s", history_db_warning(*db));
	if (history_db_set_cache_kib(*db, SWEEP_DB_CACHE_KIB, err) < 0)
		return -1;
	return read_only ? 0 : sweep_open_known(j, err);
}

/* A new sweep: how long each case ran last, so the longest start first
 * and cluster shards balance (plan.json keeps it for every task). When
 * submitting, the database is only read. Unknown: plan order. */
void sweep_open_durations(struct sweep_work *j)
{
	struct history_db *db = j->db;
	struct error err;

	if (!db && sweep_open_db(j, true, &db, &err) < 0)
		return; /* no history yet */
	if (sweep_expected_load(db, &j->meta.plan, &err) < 0)
		events_warning(j->ev, "the history's durations could not be read (%s): cases start "
			       "in plan order", err.msg);
	if (db != j->db)
		history_db_close(db);
}

enum sweep_end sweep_open_read_back(struct sweep_work *j, const char *sweep, size_t *done,
				    size_t *lines)
{
	cleanup_free char *wd = NULL;
	cleanup_free bool *d = NULL;
	cleanup_free int *next = NULL;
	struct error err;

	if (workdir_prepare(j->req->workdir, NULL, 0, &wd, &err) < 0 ||
	    sweep_folder_find(wd, sweep, &j->folder, &err) < 0 ||
	    sweep_meta_read(&j->meta, j->folder, &err) < 0)
		return sweep_state_fail(j, &err, err.kind == ERR_USAGE ? SWEEP_END_USAGE
								: SWEEP_END_INFRA);
	d = xcalloc(j->meta.plan.n + 1, sizeof(bool));
	next = xcalloc(j->meta.plan.n + 1, sizeof(int));
	if (sweep_done_cases_read(&j->meta.plan, j->folder, d, next, lines, &err) < 0)
		return sweep_state_fail(j, &err, SWEEP_END_INFRA);
	*done = 0;
	for (size_t i = 0; i < j->meta.plan.n; i++)
		*done += d[i];
	return SWEEP_END_OK;
}

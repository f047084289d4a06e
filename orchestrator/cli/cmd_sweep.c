/* `sweep`: many replays, their history and reports (docs/sweep.md). This
 * file sets a sweep up (plan, host, pinned images, folder, database) and
 * ends it (reports, exit code); orchestrator/sweep/sweep_run.c runs the cases. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/fsutil.h"
#include "common/xalloc.h"
#include "orchestrator/cli/cmd_known.h"
#include "orchestrator/cli/cmd_setup.h"
#include "orchestrator/cli/commands.h"
#include "orchestrator/cli/options.h"
#include "orchestrator/history/history_db.h"
#include "common/say.h"
#include "orchestrator/cluster/sweep_backend.h"
#include "orchestrator/history/sweep_baseline.h"
#include "orchestrator/history/sweep_expected.h"
#include "orchestrator/lease/gpu_holders.h"
#include "orchestrator/lease/gpu_lease.h"
#include "orchestrator/report/sweep_report.h"
#include "orchestrator/sweep/sweep_engine.h"
#include "orchestrator/sweep/sweep_run.h"
#include "orchestrator/cli/sweep_notify.h"
#include "orchestrator/cli/sweep_runopts.h"
#include "orchestrator/cli/term_events.h"
#include "orchestrator/replay/run_folder.h"
#include "common/version.h"
#include "orchestrator/sweep/suspect_nodes.h"
#include "orchestrator/sweep/sweep_kernels.h"
#include "preflight/gpu_choice.h"

struct sweep_cmd {
	struct sweep_options *so;  /* the sweep's own options (inside ro) */
	struct options *ro;        /* every case's run options */
	struct sweep_meta meta;
	char *folder;
	struct replay_host host;
	bool host_open;
	struct sweep_image_env *imgs;
	struct sweep_shared sh;
	struct history_db *db;
	struct known_issues known;
	bool have_known;
	/* A new sweep's --replace-kernel files as given, kept into its folder. */
	struct kernel_replacements kernel_sources;
	bool resume;
	const struct sweep_backend *submit_to; /* the cases go there; NULL: they run here */
	const struct sweep_backend *task_of;   /* this is its task: no database, no reports */
	bool task;
};

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

static int meta_from_options(struct sweep_cmd *c, struct error *err)
{
	struct sweep_meta *m = &c->meta;
	const struct sweep_options *so = c->so;
	cJSON *run = sweep_runopts_to_json(c->ro, true);
	int rc;

	m->label = xstrdup(so->label ? so->label : "default");
	m->baseline = xstrdup_or_null(so->baseline);
	m->db = xstrdup_or_null(so->db);
	if (so->known_issues) {
		/* A task or the merge job may start elsewhere: the path whole. */
		m->known_issues = realpath(so->known_issues, NULL);
		if (!m->known_issues)
			m->known_issues = xstrdup(so->known_issues);
	}
	memcpy(m->gpus, so->gpus, sizeof(m->gpus));
	m->n_gpus = so->n_gpus;
	m->jobs = so->jobs;
	m->retry_failed = so->retry_failed;
	m->gpu_wait = so->gpu_wait;
	m->fail_on = so->fail_on;
	m->perf_baseline = xstrdup_or_null(so->perf_baseline);
	m->perf_window = so->perf_window;
	m->perf_rule = so->perf;
	m->run_options = cJSON_PrintUnformatted(run);
	m->notify = sweep_notify_record(so);
	kernel_replacements_copy(&c->kernel_sources, &c->ro->replace_kernels);
	/* The local workers run from the description a task or a resume
	 * reads back, not from the options it was made of. */
	rc = sweep_runopts_from_json(c->ro, run, err);
	cJSON_Delete(run);
	return rc;
}

/* A resumed sweep replays as it started: its recorded run options over
 * this invocation's. */
static int options_from_meta(struct sweep_cmd *c, struct error *err)
{
	cJSON *run = cJSON_Parse(c->meta.run_options ? c->meta.run_options : "{}");
	int rc = sweep_runopts_from_json(c->ro, run, err);

	cJSON_Delete(run);
	return rc < 0 ? error_prefix(err, "sweep %s: ", c->meta.id) : 0;
}

/* A new sweep: the cases, in their fixed order, before anything starts. */
static int plan_new(struct sweep_cmd *c, struct error *err)
{
	struct sweep_meta *m = &c->meta;
	char host[256];

	if (meta_from_options(c, err) < 0)
		return -1;
	if (sweep_plan_add_matrix(&m->plan, (const char *const *)c->so->archives.v, c->so->archives.n,
				  (const char *const *)c->so->images.v, c->so->images.n, err) < 0)
		return -1;
	for (size_t i = 0; i < c->so->plans.n; i++)
		if (sweep_plan_add_file(&m->plan, c->so->plans.v[i], err) < 0)
			return -1;
	if (sweep_plan_check_duplicates(&m->plan, err) < 0)
		return -1;
	for (size_t i = 0; i < m->plan.n; i++)
		sweep_meta_add_image(m, m->plan.cases[i].image);
	if (gethostname(host, sizeof(host)) < 0)
		snprintf(host, sizeof(host), "unknown");
	host[sizeof(host) - 1] = '\0';
	m->host = xstrdup(host);
	m->tool_version = xstrdup(HRR_DOCKER_REPLAY_VERSION);
	m->started = (long long)time(NULL);
	m->id = sweep_id_make(m->label, (time_t)m->started, random24());
	/* The merge job opens the database this sweep names, not its own
	 * default. */
	if (c->so->backend.name && !m->db)
		m->db = history_db_default_path();
	return 0;
}

static int open_host(struct sweep_cmd *c, struct replay_failure *f)
{
	const char **archives = xcalloc(c->meta.plan.n + 1, sizeof(char *));
	struct replay_host_config cfg = {
		.workdir = c->ro->workdir, .archives = archives,
		.n_archives = c->meta.plan.n, .device_root = c->ro->device_root,
		.sysfs_root = c->ro->sysfs_root, .need_gpu = !c->so->backend.name,
		.verbosity = c->ro->verbosity, .events = term_events(),
	};
	int code;

	for (size_t i = 0; i < c->meta.plan.n; i++)
		archives[i] = c->meta.plan.cases[i].archive;
	code = replay_host_open(&c->host, &cfg, f);
	c->host_open = true;
	free(archives);
	return code;
}

/* --gpus against the host, once, by the one check `run --gpu` has too. */
static int check_pool(const struct sweep_cmd *c, struct error *err)
{
	struct gpu_choice pool;

	if (gpu_choice_named(&pool, &c->host.topo, c->meta.gpus, c->meta.n_gpus, NULL) < 0)
		return error_set(err, ERR_USAGE, 0, "%s", pool.error);
	return 0;
}

/* Each image pinned once, its facts read once; a failure is every case of
 * that image's `error`, never the sweep's end. */
static void setup_images(struct sweep_cmd *c)
{
	struct overlay_sources src = cmd_overlay_sources(c->ro);
	struct image_setup s = cmd_image_setup(c->ro);

	s.verbosity = -1; /* no pull progress between the cases' lines */
	sweep_shared_setup(&c->sh, c->ro->mount_clr ? &src : NULL);
	c->imgs = xcalloc(c->meta.n_images + 1, sizeof(*c->imgs));
	for (size_t i = 0; i < c->meta.n_images; i++) {
		struct sweep_image *im = &c->meta.images[i];

		sweep_image_env_init(&c->imgs[i]);
		sweep_image_setup(&c->imgs[i], &c->host, &s, &c->sh, im->ref,
				  c->resume ? im->id : NULL);
		/* An engine restarting as the sweep starts: its cases wait
		 * for it, they are not the image's errors. */
		if (!c->imgs[i].ok && c->host.engine &&
		    engine_ping(c->host.engine, ERROR_DISCARD) < 0 &&
		    sweep_engine_wait(c->host.engine, term_events(), SWEEP_ENGINE_WAIT_S)) {
			sweep_image_env_release(&c->imgs[i]);
			sweep_image_env_init(&c->imgs[i]);
			sweep_image_setup(&c->imgs[i], &c->host, &s, &c->sh, im->ref,
					  c->resume ? im->id : NULL);
		}
		if (c->imgs[i].ok && !im->id)
			im->id = xstrdup(c->imgs[i].env.img.id);
		if (!c->imgs[i].ok) {
			say_error("%s", c->imgs[i].error);
			if (!im->error)
				im->error = xstrdup(c->imgs[i].error);
		}
	}
}

static void cmd_release(struct sweep_cmd *c)
{
	for (size_t i = 0; c->imgs && i < c->meta.n_images; i++)
		sweep_image_env_release(&c->imgs[i]);
	free(c->imgs);
	sweep_shared_release(&c->sh);
	if (c->host_open)
		replay_host_release(&c->host);
	history_db_close(c->db);
	known_issues_release(&c->known);
	kernel_replacements_release(&c->kernel_sources);
	free(c->folder);
	sweep_meta_release(&c->meta);
}

/* The history database this sweep uses. */
static const char *db_path(const struct sweep_cmd *c, const char *dflt)
{
	return c->so->db ? c->so->db : c->meta.db ? c->meta.db : dflt;
}

/* The known-issues file: the one named now, else the one the sweep was
 * started with, else the one beside the database when there is one. A
 * bad file stops the sweep (exit 64). */
static int load_known(struct sweep_cmd *c, struct error *err)
{
	cleanup_free char *dflt = history_db_default_path();
	cleanup_free char *beside = cmd_known_beside(db_path(c, dflt));
	const char *named = c->so->known_issues ? c->so->known_issues : c->meta.known_issues;
	enum cmd_known_from from = named ? CMD_KNOWN_NAMED : CMD_KNOWN_BESIDE_IF_ANY;

	return cmd_known_load(named ? named : beside, from, &c->known, &c->have_known, err);
}

/* The sweep's connection caches 256 KiB of pages, not SQLite's 2 MB: the
 * end-of-sweep import writes each page of its rows about once, and the
 * parent's peak memory is measured per planned case (docs/sweep.md). */
#define SWEEP_DB_CACHE_KIB 256

static int open_db(struct sweep_cmd *c, bool read_only, struct history_db **db,
		   struct error *err)
{
	cleanup_free char *dflt = history_db_default_path();
	const char *path = db_path(c, dflt);

	if ((read_only ? history_db_open_readonly(db, path, err) : history_db_open(db, path, err)) < 0)
		return -1;
	if (history_db_set_cache_kib(*db, SWEEP_DB_CACHE_KIB, err) < 0)
		return -1;
	return read_only ? 0 : load_known(c, err);
}

/* A new sweep: how long each case ran last, so the longest start first
 * and cluster shards balance (plan.json keeps it for every task). When
 * submitting, the database is only read. Unknown: plan order. */
static void expect_durations(struct sweep_cmd *c)
{
	struct history_db *db = c->db;
	struct error err;

	if (!db && open_db(c, true, &db, &err) < 0)
		return; /* no history yet */
	if (sweep_expected_load(db, &c->meta.plan, &err) < 0)
		say_warning("the history's durations could not be read (%s): cases start in "
			    "plan order", err.msg);
	if (db != c->db)
		history_db_close(db);
}

/* Single host: results.jsonl. A cluster task (--shard under a backend)
 * writes its own file, so tasks never append to one file over the network. */
static char *results_path(const struct sweep_cmd *c)
{
	char *own = c->so->have_shard ? sweep_backends_task_results(c->folder) : NULL;

	return own ? own : xasprintf("%s/%s", c->folder, SWEEP_RESULTS_FILE);
}

/* --shard I/N --shard-cases FILE: shard I/N of the listed plan indexes
 * (what --slurm wrote for one array when it submitted it). */
static int shard_of_list(const struct sweep_cmd *c, const bool *done, size_t *cases, size_t *n,
			 struct error *err)
{
	cleanup_strbuf struct strbuf text = STRBUF_INIT;
	cleanup_free size_t *list = NULL;
	size_t n_list;

	if (fs_read_small_file(c->so->shard_cases, 16u << 20, &text, err) < 0 ||
	    sweep_shard_list_parse(text.buf, c->meta.plan.n, &list, &n_list, err) < 0)
		return error_prefix(err, "--shard-cases %s: ", c->so->shard_cases);
	*n = sweep_shard_select_list(&c->meta.plan, list, n_list, done, c->so->shard_i, c->so->shard_n, cases);
	return 0;
}

/* The cases this invocation runs: not done yet (errors are retried), in
 * this shard when --shard. */
static int select_cases(struct sweep_cmd *c, size_t **cases, size_t *n, int **next_attempt,
			struct error *err)
{
	size_t np = c->meta.plan.n;
	bool *done = xcalloc(np + 1, sizeof(bool));

	*cases = xcalloc(np + 1, sizeof(size_t));
	*next_attempt = xcalloc(np + 1, sizeof(int));
	if (sweep_done_cases_read(&c->meta.plan, c->folder, done, *next_attempt, NULL, err) < 0) {
		free(done);
		return -1;
	}
	if (c->so->shard_cases) {
		if (shard_of_list(c, done, *cases, n, err) < 0) {
			free(done);
			return -1;
		}
	} else if (c->so->have_shard)
		*n = sweep_shard_select(&c->meta.plan, done, 0, c->so->shard_i, c->so->shard_n, *cases);
	else
		for (size_t i = *n = 0; i < np; i++)
			if (!done[i])
				(*cases)[(*n)++] = i;
	free(done);
	return 0;
}

static int prepare(struct sweep_cmd *c, struct error *err)
{
	if (c->so->resume) {
		cleanup_free char *wd = NULL;

		if (workdir_prepare(c->ro->workdir, NULL, 0, &wd, err) < 0 ||
		    sweep_folder_find(wd, c->so->resume, &c->folder, err) < 0 ||
		    sweep_meta_read(&c->meta, c->folder, err) < 0 ||
		    sweep_meta_migrate(&c->meta, c->folder, err) < 0)
			return -1;
		c->resume = true;
		return options_from_meta(c, err);
	}
	return plan_new(c, err);
}

static const char *final_state(const struct sweep_cmd *c, const struct sweep_run_outcome *out,
			       size_t remaining_before)
{
	if (out->interrupted || out->write_failed)
		return "interrupted";
	if (c->so->have_shard || out->recorded < remaining_before)
		return "partial";
	return "finished";
}

/* A Slurm task ends with its results file: the merge job alone writes
 * the database and the reports. */
static int finish_task(const struct sweep_cmd *c, const struct sweep_run_outcome *out)
{
	const char *why = out->interrupted ? "; interrupted"
			  : out->out_of_time
				  ? "; stopped: the job's time left is shorter than the next case's timeout"
				  : "";

	fprintf(stderr, "shard %u/%u of sweep %s: %zu result(s) recorded%s\n", c->so->shard_i,
		c->so->shard_n, c->meta.id, out->recorded, why);
	return out->interrupted || out->write_failed ? SWEEP_EXIT_INFRA : SWEEP_EXIT_OK;
}

static int finish(struct sweep_cmd *c, const struct sweep_run_outcome *out, size_t n_cases)
{
	cleanup_free char *backend = c->so->merge ? sweep_backends_record(c->folder) : NULL;
	struct sweep_finish f = {
		.state = final_state(c, out, n_cases), .finished = (long long)time(NULL),
		.quarantined = out->quarantined, .n_quarantined = out->n_quarantined,
		.gpu_notes = out->gpu_notes, .n_gpu_notes = out->n_gpu_notes,
		.suspects_from_results = c->so->merge != NULL,
		.junit = c->so->junit, .html = c->so->html, .summary = c->so->summary,
		.json = c->ro->format == FORMAT_JSON, .backend = backend, .events = term_events(),
		.known = c->have_known ? &c->known : NULL,
		.release_plan = &c->meta.plan,
	};
	struct sweep_notify sn;
	struct error err;
	int code, rc;

	if (c->task)
		return finish_task(c, out);
	/* The stop said what was kept and how to go on; reports written
	 * on the full disk would only fail again (the resume writes them). */
	if (out->write_failed)
		return SWEEP_EXIT_INFRA;
	/* The alarms and recoveries once the reports are written: what
	 * becomes of them changes neither. */
	sweep_notify_init(&sn, c->so, c->meta.notify, c->folder);
	sweep_notify_add_owners(&sn, c->have_known ? &c->known : NULL);
	f.then = sweep_notify_after;
	f.then_ctx = &sn;
	rc = sweep_report_write(c->db, &c->meta, c->folder, &f, &code, stdout, &err);
	sweep_notify_release(&sn);
	if (rc < 0) {
		fflush(stdout);
		say_error("%s", err.msg);
		return SWEEP_EXIT_INFRA;
	}
	fflush(stdout);
	fprintf(stderr, "sweep folder: %s\n", c->folder);
	/* Bounded GPU waits that let nothing run: try later. */
	if (out->gave_up && out->gave_up == out->recorded)
		return SWEEP_EXIT_GPU_BUSY;
	return code;
}

/* A task stops starting cases once its backend says the time left is
 * shorter than the next case's timeout (no timeout: it starts). */
static bool task_may_start(void *ctx, const struct sweep_case *sc)
{
	const struct sweep_cmd *c = ctx;
	long timeout = sc->timeout >= 0 ? sc->timeout : (long)c->ro->timeout_s;

	return timeout <= 0 || c->task_of->task_may_start(timeout, sc->name, term_events());
}

/* The pool of a task: exactly the GPUs its backend allocated to it. */
static int task_pool(struct sweep_cmd *c, struct error *err)
{
	int ord[GPU_MAX];
	size_t n;

	if (c->task_of->task_pool(&c->host.topo, ord, GPU_MAX, &n, term_events(), err) < 0)
		return -1;
	memcpy(c->meta.gpus, ord, n * sizeof(int));
	c->meta.n_gpus = n;
	c->meta.jobs = 0;
	return 0;
}

/* A resumed cluster sweep keeps off the nodes whose GPUs its results make
 * suspect (docs/slurm.md); the backend says it in its own words. */
static void suspect_hosts(struct sweep_cmd *c, struct strvec *hosts)
{
	struct sweep_results rs = { 0 };
	cleanup_strvec struct strvec why = STRVEC_INIT;

	if (!c->resume || sweep_results_load(c->folder, &rs, ERROR_DISCARD) < 0)
		return;
	sweep_suspect_nodes(&rs, hosts, &why);
	sweep_results_release(&rs);
	for (size_t i = 0; i < why.n; i++)
		say_warning("suspect: %s", why.v[i]);
	for (size_t i = 0; i < hosts->n; i++)
		say_warning("resubmitting without node %s", hosts->v[i]);
}

/* The cases handed to the backend: nothing runs here. */
static int submit_cases(struct sweep_cmd *c, const size_t *cases, size_t n)
{
	char exe[4096];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	cleanup_strvec struct strvec avoid = STRVEC_INIT;
	struct sweep_backend_submission s = {
		.meta = &c->meta, .folder = c->folder, .workdir = c->host.workdir,
		.options = &c->so->backend, .avoid_hosts = &avoid, .cases = cases,
		.n_cases = n, .bin = exe, .wait = c->so->wait, .events = term_events(),
	};
	struct error err;
	int code;

	exe[len > 0 ? len : 0] = '\0';
	if (len <= 0)
		snprintf(exe, sizeof(exe), "hrr-docker-replay");
	suspect_hosts(c, &avoid);
	if (c->submit_to->submit(&s, &code, &err) < 0) {
		say_error("%s", err.msg);
		return SWEEP_EXIT_INFRA;
	}
	if (!c->so->wait)
		return SWEEP_EXIT_OK;
	cleanup_free char *summary = xasprintf("%s/summary.%s", c->folder,
					       c->ro->format == FORMAT_JSON ? "json" : "md");
	cleanup_strbuf struct strbuf text = STRBUF_INIT;

	if (fs_read_small_file(summary, 64u << 20, &text, ERROR_DISCARD) == 0)
		fwrite(text.buf, 1, text.len, stdout);
	return code;
}

static int fail(const struct error *err, int code)
{
	say_error("%s", err->msg);
	return code;
}

/* Up to the cases to run: the sweep read or planned, its folder, the
 * database (not in a task nor when submitting), the host, the images. */
static int set_up(struct sweep_cmd *c, size_t **cases, size_t *n, int **next_attempt)
{
	struct replay_failure f;
	struct error err;
	int code;
	bool submit;

	c->submit_to = sweep_backend_named(c->so->backend.name);
	submit = c->submit_to != NULL;
	if (submit && c->submit_to->can_submit(&err) < 0)
		return fail(&err, SWEEP_EXIT_INFRA);
	if (prepare(c, &err) < 0)
		return fail(&err, err.kind == ERR_USAGE ? SWEEP_EXIT_USAGE : SWEEP_EXIT_INFRA);
	c->task_of = c->so->have_shard ? sweep_backend_of_task() : NULL;
	c->task = c->task_of != NULL;
	if (!submit && !c->task && open_db(c, false, &c->db, &err) < 0)
		return fail(&err, err.kind == ERR_USAGE ? SWEEP_EXIT_USAGE : SWEEP_EXIT_INFRA);
	/* Without the database: a bad file is refused before submitting, and
	 * a cluster task marks its results lines with the rules too. */
	if ((submit || c->task) && load_known(c, &err) < 0)
		return fail(&err, SWEEP_EXIT_USAGE);
	if (!c->resume && !c->task)
		expect_durations(c);
	if ((code = open_host(c, &f)))
		return code;
	if (!submit && check_pool(c, &err) < 0)
		return fail(&err, SWEEP_EXIT_NO_GPU);
	/* A lock directory that cannot be trusted stops the sweep here, not
	 * each case in a wait that never ends. */
	if (!submit && gpu_lease_dir_prepare(gpu_lease_dir(NULL), &err) < 0)
		return fail(&err, err.kind == ERR_USAGE ? SWEEP_EXIT_USAGE : SWEEP_EXIT_INFRA);
	if (c->task && task_pool(c, &err) < 0)
		return fail(&err, SWEEP_EXIT_INFRA);
	if (c->resume && !submit)
		holders_remove_orphans(c->host.engine);
	if (!(submit && c->resume))
		setup_images(c);
	if (!c->resume && sweep_folder_create(c->host.workdir, c->meta.id, &c->folder, &err) < 0)
		return fail(&err, SWEEP_EXIT_INFRA);
	/* A code object that changed since its check is the user's to fix. */
	if (!c->resume && sweep_kernels_store(c->folder, &c->kernel_sources, &err) < 0)
		return fail(&err, err.kind == ERR_DATA ? SWEEP_EXIT_USAGE : SWEEP_EXIT_INFRA);
	if (!c->resume && sweep_meta_write(&c->meta, c->folder, &err) < 0)
		return fail(&err, SWEEP_EXIT_INFRA);
	if (sweep_kernels_attach(c->folder, &c->ro->replace_kernels, &err) < 0)
		return fail(&err, SWEEP_EXIT_INFRA);
	if (select_cases(c, cases, n, next_attempt, &err) < 0)
		return fail(&err, SWEEP_EXIT_INFRA);
	return 0;
}

/* The baseline's verdicts, before anything runs (NULL: no database, as in
 * a Slurm task, or it could not be read: every case counts as new). */
static enum sweep_base *baseline_of(const struct sweep_cmd *c)
{
	enum sweep_base *base;
	struct error err;

	if (!c->db)
		return NULL;
	base = xcalloc(c->meta.plan.n + 1, sizeof(*base));
	if (sweep_baseline_load(c->db, &c->meta, base, &err) < 0) {
		say_warning("the baseline could not be read (%s): every case is diagnosed and "
			    "counted as new while the sweep runs", err.msg);
		free(base);
		return NULL;
	}
	return base;
}

static int run_sweep(struct sweep_cmd *c)
{
	struct sweep_run_outcome out = { 0 };
	struct error err;
	size_t *cases = NULL, n = 0;
	int *next_attempt = NULL, code;

	if ((code = set_up(c, &cases, &n, &next_attempt))) {
		free(cases);
		free(next_attempt);
		return code;
	}
	fprintf(stderr, "sweep %s: %zu case(s) to run of %zu, folder %s\n", c->meta.id, n,
		c->meta.plan.n, c->folder);
	if (c->submit_to) {
		code = submit_cases(c, cases, n);
		free(cases);
		free(next_attempt);
		return code;
	}
	cleanup_free char *rpath = results_path(c);
	cleanup_free enum sweep_base *base = baseline_of(c);
	struct replay_desc policy;

	replay_desc_init(&policy);
	cmd_describe_policy(c->ro, &policy);
	struct sweep_run_input in = {
		.meta = &c->meta, .folder = c->folder, .results_path = rpath, .policy = &policy,
		.sysfs_root = c->ro->sysfs_root, .device_root = c->ro->device_root,
		.devices = c->ro->devices, .quarantine_gpus = c->so->quarantine_gpus,
		.host = &c->host, .imgs = c->imgs, .sh = &c->sh, .cases = cases, .n_cases = n,
		.next_attempt = next_attempt, .may_start = c->task ? task_may_start : NULL,
		.may_start_ctx = c, .resume_hint = c->task ? c->task_of->flag : NULL, .base = base,
		.perf_runs = (int)c->so->perf_runs, .perf_warmup = (int)c->so->perf_warmup,
		.events = term_events(),
	};

	code = sweep_run(&in, &out, &err) < 0 ? (say_error("%s", err.msg), SWEEP_EXIT_INFRA)
					      : finish(c, &out, n);
	if (out.write_failed)
		say_error("%s: stopping the sweep; the results recorded before it are kept in %s "
			  "(%zu by this run); free space and resume with `sweep --resume %s`",
			  out.record_error.msg, rpath, out.recorded, c->meta.id);
	free(cases);
	free(next_attempt);
	return code;
}

/* A finished or running sweep read back (--merge, --status): its plan,
 * how many cases have a result, how many results lines there are. */
static int read_back(struct sweep_cmd *c, const char *sweep, size_t *done, size_t *lines)
{
	cleanup_free char *wd = NULL;
	cleanup_free bool *d = NULL;
	cleanup_free int *next = NULL;
	struct error err;

	if (workdir_prepare(c->ro->workdir, NULL, 0, &wd, &err) < 0 ||
	    sweep_folder_find(wd, sweep, &c->folder, &err) < 0 ||
	    sweep_meta_read(&c->meta, c->folder, &err) < 0)
		return fail(&err, err.kind == ERR_USAGE ? SWEEP_EXIT_USAGE : SWEEP_EXIT_INFRA);
	d = xcalloc(c->meta.plan.n + 1, sizeof(bool));
	next = xcalloc(c->meta.plan.n + 1, sizeof(int));
	if (sweep_done_cases_read(&c->meta.plan, c->folder, d, next, lines, &err) < 0)
		return fail(&err, SWEEP_EXIT_INFRA);
	*done = 0;
	for (size_t i = 0; i < c->meta.plan.n; i++)
		*done += d[i];
	return 0;
}

/* The merge job (docs/slurm.md): every results file into the database and
 * the reports; cases without a result are missing. Running it twice
 * changes nothing. */
static int merge_sweep(struct sweep_cmd *c)
{
	struct sweep_run_outcome out = { 0 };
	struct error err;
	size_t done, lines;
	int code = read_back(c, c->so->merge, &done, &lines);

	if (code)
		return code;
	if (open_db(c, false, &c->db, &err) < 0)
		return fail(&err, err.kind == ERR_USAGE ? SWEEP_EXIT_USAGE : SWEEP_EXIT_INFRA);
	/* "finished": the cases without a result are missing and fail it. */
	out.recorded = done;
	return finish(c, &out, done);
}

static int sweep_status(struct sweep_cmd *c)
{
	cleanup_strbuf struct strbuf backends = STRBUF_INIT;
	size_t done, lines;
	int code = read_back(c, c->so->status, &done, &lines);

	if (code)
		return code;
	printf("sweep %s (label %s): %zu of %zu cases have a result; %zu results recorded%s\n",
	       c->meta.id, c->meta.label, done, c->meta.plan.n, lines,
	       done < c->meta.plan.n ? "; finish it with `sweep --resume`" : "");
	sweep_backends_status(c->folder, &backends);
	fwrite(backends.buf, 1, backends.len, stdout);
	return 0;
}

int sweep_command(struct options *o)
{
	struct sweep_cmd c;
	int code;

	memset(&c, 0, sizeof(c));
	c.ro = o;
	c.so = &o->sweep;
	sweep_meta_init(&c.meta);
	code = c.so->status ? sweep_status(&c) : c.so->merge ? merge_sweep(&c) : run_sweep(&c);
	cmd_release(&c);
	return code;
}

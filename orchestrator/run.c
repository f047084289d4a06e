#include "orchestrator/run.h"
#include "common/cleanup.h"
#include "common/fsutil.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "docker/engine.h"
#include "finding/finding.h"
#include "orchestrator/image.h"
#include "orchestrator/replay.h"
#include "orchestrator/replay_plan.h"
#include "orchestrator/run_folder.h"
#include "orchestrator/run_log.h"
#include "orchestrator/say.h"
#include "orchestrator/signals.h"
#include "orchestrator/version.h"
#include "orchestrator/watchdog.h"
#include "preflight/manifest.h"
#include "preflight/preflight.h"
#include "preflight/topology.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define INFO_LOG_MAX (64u << 20)

/* What every pid of one invocation shares. */
struct run_env {
	struct options *o;
	struct engine *engine;
	struct strvec pid_dirs;
	char *workdir;
	char *cache_dir;
	struct gpu_topology topo;
	bool have_topo;
	char topo_error[ERROR_MSG_MAX];
	struct image_facts img;
	char *playback;
	struct overlay_paths overlay;
	bool use_overlay;
	struct stack_info stack;
	bool have_stack;
	char *owner;
	int interrupt_fd;
	struct strvec run_dirs;
};

static void run_env_init(struct run_env *env, struct options *o)
{
	memset(env, 0, sizeof(*env));
	env->o = o;
	env->interrupt_fd = -1;
	strvec_init(&env->pid_dirs);
	strvec_init(&env->run_dirs);
	stack_info_init(&env->stack);
	strvec_init(&env->img.env);
	env->owner = owner_label_self();
	/* A reader that went away (| head) must not kill the run mid-cleanup. */
	signal(SIGPIPE, SIG_IGN);
}

static void run_env_release(struct run_env *env)
{
	if (env->engine)
		engine_close(env->engine);
	strvec_clear(&env->pid_dirs);
	free(env->workdir);
	free(env->cache_dir);
	if (env->have_topo)
		gpu_topology_release(&env->topo);
	image_facts_release(&env->img);
	free(env->playback);
	overlay_paths_release(&env->overlay);
	stack_info_release(&env->stack);
	free(env->owner);
	strvec_clear(&env->run_dirs);
}

static int worst(int a, int b)
{
	return a > b ? a : b;
}

static const char *pid_name_of(const char *pid_dir)
{
	const char *slash = strrchr(pid_dir, '/');

	return slash ? slash + 1 : pid_dir;
}

/* ---- archive, engine, GPUs, image: shared set-up ---- */

static int setup_archive(struct run_env *env)
{
	struct error err;

	if (archive_resolve(env->o->archive, &env->pid_dirs, &err) < 0) {
		say_error("--archive %s: %s", env->o->archive, err.msg);
		return EXIT_NO_VERDICT;
	}
	for (size_t i = 0; i < env->pid_dirs.n; i++) {
		if (archive_check_events(env->pid_dirs.v[i], NULL, &err) < 0) {
			say_error("%s: %s", env->pid_dirs.v[i], err.msg);
			return EXIT_NO_VERDICT;
		}
	}
	return 0;
}

static int setup_workdir(struct run_env *env)
{
	struct error err;
	const char *archives[2] = { env->o->archive, NULL };
	size_t n = 1;
	char real[PATH_MAX];

	if (realpath(env->o->archive, real))
		archives[n++] = real;
	if (workdir_prepare(env->o->workdir, archives, n, &env->workdir, &err) < 0) {
		say_error("%s", err.msg);
		return err.kind == ERR_USAGE ? EXIT_USAGE : EXIT_NO_VERDICT;
	}
	env->cache_dir = xasprintf("%s/cache", env->workdir);
	return 0;
}

static int setup_engine(struct run_env *env)
{
	struct error err;

	if (engine_open(&env->engine, NULL, &err) < 0) {
		say_error("%s", err.msg);
		return EXIT_NO_VERDICT;
	}
	if (!engine_is_unix(env->engine) && env->o->verbosity >= 0)
		say_info(env->o->verbosity, "note: DOCKER_HOST=%s is not a unix socket: the archive, overlay, device "
		     "and sysfs paths must exist on the engine's host", engine_host(env->engine));
	return 0;
}

static int setup_topology(struct run_env *env, bool required)
{
	struct error err;

	if (gpu_topology_read(&env->topo, env->o->sysfs_root, &err) == 0) {
		env->have_topo = true;
		if (env->topo.n_gpus > 0)
			return 0;
		snprintf(env->topo_error, sizeof(env->topo_error),
			 "no AMD GPU found under %s (the KFD topology lists no GPU node)",
			 env->o->sysfs_root);
		gpu_topology_release(&env->topo);
		env->have_topo = false;
	} else {
		snprintf(env->topo_error, sizeof(env->topo_error), "%s", err.msg);
	}
	if (!required)
		return 0;
	say_error("%s; replay needs one (point --sysfs-root at the KFD topology)", env->topo_error);
	return EXIT_NO_VERDICT;
}

static bool is_executable_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static char *search_path(const char *name)
{
	const char *path = getenv("PATH");

	while (path && *path) {
		size_t len = strcspn(path, ":");
		char *cand = xasprintf("%.*s/%s", (int)len, path, name);

		if (len && is_executable_file(cand))
			return cand;
		free(cand);
		path += len;
		if (*path)
			path++;
	}
	return NULL;
}

static int overlay_resolve(const struct options *o, struct overlay_paths *ov, struct error *err)
{
	char real[PATH_MAX];
	cleanup_free char *cand = NULL;

	if (o->host_playback) {
		if (!is_executable_file(o->host_playback))
			return error_set(err, ERR_NOT_FOUND, 0,
					 "--mount-clr: HRR_PLAYBACK=%s is not an executable file",
					 o->host_playback);
		cand = xstrdup(o->host_playback);
	} else {
		cand = xasprintf("%s/bin/hrr-playback", o->rocm_path);
		if (!is_executable_file(cand)) {
			free(cand);
			cand = search_path("hrr-playback");
		}
		if (!cand)
			return error_set(err, ERR_NOT_FOUND, 0,
					 "--mount-clr: no host hrr-playback (set HRR_PLAYBACK, or install it as %s/bin/hrr-playback or on PATH)",
					 o->rocm_path);
	}
	if (!realpath(cand, real))
		return error_errno(err, "--mount-clr: %s", cand);
	ov->host_playback = xstrdup(real);

	if (o->clr_lib) {
		if (!is_dir(o->clr_lib))
			return error_set(err, ERR_NOT_FOUND, 0,
					 "--mount-clr: CLR_LIB=%s is not a directory", o->clr_lib);
		ov->clr_lib = realpath(o->clr_lib, NULL);
	} else if (o->clr_build) {
		cleanup_free char *dir = xasprintf("%s/hipamd/lib", o->clr_build);

		if (!is_dir(dir))
			return error_set(err, ERR_NOT_FOUND, 0,
					 "--mount-clr: %s (from CLR_BUILD) is not a directory; set CLR_LIB",
					 dir);
		ov->clr_lib = realpath(dir, NULL);
	} else {
		cleanup_free char *copy = xstrdup(ov->host_playback);
		cleanup_free char *dir = xasprintf("%s/../lib", dirname(copy));

		if (!is_dir(dir))
			return error_set(err, ERR_NOT_FOUND, 0,
					 "--mount-clr: no libamdhip64 directory next to %s (%s); set CLR_LIB or CLR_BUILD",
					 ov->host_playback, dir);
		ov->clr_lib = realpath(dir, NULL);
	}
	if (!ov->clr_lib)
		return error_errno(err, "--mount-clr: library directory");
	if (o->rocr_lib) {
		if (!is_dir(o->rocr_lib))
			return error_set(err, ERR_NOT_FOUND, 0,
					 "--mount-clr: ROCR_LIB=%s is not a directory", o->rocr_lib);
		ov->rocr_lib = realpath(o->rocr_lib, NULL);
	}
	return 0;
}

static int setup_image(struct run_env *env)
{
	struct error err;

	if (image_ensure(env->engine, env->o, &env->img, &err) < 0) {
		say_error("%s", err.msg);
		return err.kind == ERR_USAGE ? EXIT_USAGE : EXIT_NO_VERDICT;
	}
	return 0;
}

static int setup_playback(struct run_env *env)
{
	struct error err;

	if (env->o->mount_clr) {
		if (overlay_resolve(env->o, &env->overlay, &err) < 0) {
			say_error("%s", err.msg);
			return EXIT_NO_VERDICT;
		}
		env->use_overlay = true;
		env->playback = xstrdup(env->o->playback ? env->o->playback : OVERLAY_PLAYBACK);
		return 0;
	}
	if (env->o->playback) {
		env->playback = xstrdup(env->o->playback);
		return 0;
	}
	if (image_find_playback(env->engine, &env->img, env->cache_dir, &env->playback, &err) < 0) {
		say_error("%s", err.msg);
		return EXIT_NO_VERDICT;
	}
	return 0;
}

/* The stack the replay will load: the overlay's when mounted, else the
 * image's. Unknown is a preflight warning, never a failure. */
static void setup_stack(struct run_env *env)
{
	struct error err;

	stack_info_init(&env->stack);
	if (env->o->skip_preflight)
		return;
	if (env->use_overlay) {
		if (overlay_stack_probe(env->overlay.clr_lib, &env->stack, &err) < 0)
			env->stack.unknown_reason = xasprintf("host CLR overlay: %s", err.msg);
	} else {
		cleanup_strvec struct strvec dirs = STRVEC_INIT;

		plan_image_library_dirs(env->o, env->img.repository, &env->img.env, &dirs);
		if (image_stack_probe(env->engine, env->img.ref, env->img.id, &dirs,
				      env->cache_dir, &env->stack, &err) < 0)
			env->stack.unknown_reason = xasprintf("image %s: %s", env->img.ref, err.msg);
	}
	env->have_stack = true;
}

/* ---- preflight ---- */

struct pid_preflight {
	struct manifest manifest;
	bool have_manifest;
	char manifest_error[ERROR_MSG_MAX];
	int chosen[OPTIONS_MAX_GPUS];
	size_t n_chosen;
	struct preflight_report report;
};

static void pid_preflight_init(struct pid_preflight *p)
{
	memset(p, 0, sizeof(*p));
	manifest_init(&p->manifest);
	preflight_report_init(&p->report);
}

static void pid_preflight_release(struct pid_preflight *p)
{
	manifest_release(&p->manifest);
	preflight_report_release(&p->report);
}

static void run_preflight(struct run_env *env, const char *pid_dir, struct pid_preflight *p)
{
	const struct options *o = env->o;
	struct preflight_input in;
	struct error err;
	int capture_count = -1;

	if (manifest_load(&p->manifest, pid_dir, &err) == 0) {
		p->have_manifest = true;
		capture_count = p->manifest.device_count;
	} else {
		snprintf(p->manifest_error, sizeof(p->manifest_error), "%s", err.msg);
	}

	if (env->have_topo &&
	    gpu_pick(&env->topo, o->gpus, o->n_gpus, capture_count, p->chosen,
		     OPTIONS_MAX_GPUS, &p->n_chosen, &err) < 0) {
		/* A missing ordinal blocks even when preflight is skipped. */
		p->report.verdict = PREFLIGHT_BLOCK;
		strvec_push(&p->report.blocks, err.msg);
		return;
	}

	memset(&in, 0, sizeof(in));
	in.manifest = p->have_manifest ? &p->manifest : NULL;
	in.host = env->have_topo ? &env->topo : NULL;
	in.requested = o->n_gpus ? o->gpus : NULL;
	in.n_requested = o->n_gpus;
	in.chosen = p->n_chosen ? p->chosen : NULL;
	in.n_chosen = p->n_chosen;
	in.stack = env->have_stack ? &env->stack : NULL;
	in.strict_version = o->strict_version;
	in.strict_arch = o->strict_arch;
	in.skip = o->skip_preflight;
	in.manifest_error = p->have_manifest ? NULL : p->manifest_error;
	preflight_evaluate(&in, &p->report);
	if (!env->have_topo && env->topo_error[0])
		strvec_pushf(&p->report.notes, "host GPUs: %s", env->topo_error);
}

static bool confirm_interactively(void)
{
	char line[64];

	fputs("Version mismatch detected. Do you want to continue? [y/N] ", stderr);
	fflush(stderr);
	if (!fgets(line, sizeof(line), stdin))
		return false;
	line[strcspn(line, "\r\n")] = '\0';
	return !strcasecmp(line, "y") || !strcasecmp(line, "yes");
}

/* ---- run.json ---- */

struct pid_run {
	const char *pid_dir;
	const char *pid_name;
	char run_id[7];
	char *run_dir;
	char *container_name;
	cJSON *spec_json;
	struct plan_device *devices;
	size_t n_devices;
	struct replay_result result;
	bool replayed;
	int exit_code;
	char *stop_reason;   /* why there was no replay, or NULL */
	double t_begin;
	double collect_s;
	char started[40];
};

static cJSON *timings_json(const struct run_env *env, const struct pid_run *pr)
{
	cJSON *t = cJSON_CreateObject();
	const struct replay_result *r = &pr->result;

	cJSON_AddNumberToObject(t, "pull_s", env->img.pull_s);
	if (pr->replayed) {
		cJSON_AddNumberToObject(t, "create_s", r->create_s);
		cJSON_AddNumberToObject(t, "start_s", r->start_s);
		if (r->first_output_s >= 0)
			cJSON_AddNumberToObject(t, "first_output_s", r->first_output_s);
		else
			cJSON_AddNullToObject(t, "first_output_s");
		cJSON_AddNumberToObject(t, "exit_s", r->exit_s);
		cJSON_AddNumberToObject(t, "remove_s", r->remove_s);
		cJSON_AddNumberToObject(t, "collect_s", pr->collect_s);
		cJSON_AddStringToObject(t, "container_started_at", r->started_at);
		cJSON_AddStringToObject(t, "container_finished_at", r->finished_at);
	}
	cJSON_AddNumberToObject(t, "wall_s", monotonic_now() - pr->t_begin);
	return t;
}

static void write_run_json(const struct run_env *env, struct pid_run *pr,
			   const struct pid_preflight *pf)
{
	cleanup_cjson cJSON *root = cJSON_CreateObject();
	cJSON *img = cJSON_AddObjectToObject(root, "image");
	cJSON *gpus = cJSON_AddArrayToObject(root, "gpus");
	cJSON *devs = cJSON_AddArrayToObject(root, "devices");
	cJSON *c, *ex, *orch;
	cleanup_free char *text = NULL;
	cleanup_free char *path = NULL;
	struct error err;

	cJSON_AddStringToObject(root, "run_id", pr->run_id);
	cJSON_AddStringToObject(root, "run_dir", pr->run_dir);
	cJSON_AddStringToObject(root, "archive", pr->pid_dir);
	cJSON_AddStringToObject(root, "started", pr->started);
	cJSON_AddStringToObject(img, "ref", env->o->image);
	if (env->img.id)
		cJSON_AddStringToObject(img, "id", env->img.id);
	else
		cJSON_AddNullToObject(img, "id");
	if (env->img.digest)
		cJSON_AddStringToObject(img, "digest", env->img.digest);
	else
		cJSON_AddNullToObject(img, "digest");
	cJSON_AddBoolToObject(img, "pulled", env->img.pulled);
	for (size_t i = 0; pf && i < pf->n_chosen; i++)
		cJSON_AddItemToArray(gpus, cJSON_CreateNumber(pf->chosen[i]));
	for (size_t i = 0; i < pr->n_devices; i++) {
		cJSON *d = cJSON_CreateObject();

		cJSON_AddStringToObject(d, "host", pr->devices[i].host_path);
		cJSON_AddStringToObject(d, "container", pr->devices[i].container_path);
		cJSON_AddNumberToObject(d, "gid", (double)pr->devices[i].gid);
		cJSON_AddItemToArray(devs, d);
	}
	if (env->playback)
		cJSON_AddStringToObject(root, "playback", env->playback);
	cJSON_AddBoolToObject(root, "overlay", env->use_overlay);
	if (pf)
		cJSON_AddStringToObject(root, "preflight", preflight_verdict_name(pf->report.verdict));
	c = cJSON_AddObjectToObject(root, "container");
	if (pr->container_name)
		cJSON_AddStringToObject(c, "name", pr->container_name);
	if (pr->result.container_id)
		cJSON_AddStringToObject(c, "id", pr->result.container_id);
	else
		cJSON_AddNullToObject(c, "id");
	cJSON_AddBoolToObject(c, "kept", env->o->keep);
	cJSON_AddBoolToObject(c, "removed", pr->result.removed);
	if (pr->spec_json)
		cJSON_AddItemToObject(c, "spec", cJSON_Duplicate(pr->spec_json, 1));
	else
		cJSON_AddNullToObject(c, "spec");
	cJSON_AddItemToObject(root, "timings", timings_json(env, pr));
	ex = cJSON_AddObjectToObject(root, "exit");
	if (pr->replayed) {
		if (pr->result.exit_code >= 0)
			cJSON_AddNumberToObject(ex, "container_status", (double)pr->result.exit_code);
		else
			cJSON_AddNullToObject(ex, "container_status");
		cJSON_AddStringToObject(ex, "ended_by", finding_ended_by_name(pr->result.ended_by));
		if (pr->result.signal > 0)
			cJSON_AddNumberToObject(ex, "signal", pr->result.signal);
		else
			cJSON_AddNullToObject(ex, "signal");
		cJSON_AddBoolToObject(ex, "oom_killed", pr->result.oom_killed);
		cJSON_AddBoolToObject(ex, "log_complete", !pr->result.log_incomplete);
	}
	cJSON_AddNumberToObject(ex, "code", pr->exit_code);
	if (pr->stop_reason)
		cJSON_AddStringToObject(ex, "stopped_before_replay", pr->stop_reason);
	orch = cJSON_AddObjectToObject(root, "orchestrator");
	cJSON_AddStringToObject(orch, "version", HRR_DOCKER_REPLAY_VERSION);
	cJSON_AddStringToObject(orch, "owner", env->owner);
	cJSON_AddStringToObject(orch, "engine", engine_host(env->engine));
	cJSON_AddStringToObject(orch, "api_version", engine_api_version(env->engine));

	text = cJSON_Print(root);
	path = xasprintf("%s/run.json", pr->run_dir);
	if (fs_write_atomic(path, text, strlen(text), 0644, &err) < 0)
		say_error("%s", err.msg);
}

/* ---- the finding ---- */

static int to_run_log(enum engine_stream_id stream, const char *data, size_t len, void *ud)
{
	run_log_write(ud, (int)stream, data, len);
	return 0;
}

static int playback_info(struct run_env *env, struct pid_run *pr, struct classifier *cls)
{
	struct container_spec spec;
	cleanup_free char *id = NULL;
	cleanup_free char *target = xasprintf("%s/%s", ARCHIVE_MOUNT_ROOT, pr->pid_name);
	cleanup_free char *diag = xasprintf("%s/diagnostics", pr->run_dir);
	cleanup_free char *path = xasprintf("%s/hrr-playback-info.txt", diag);
	struct run_log rl;
	struct error err;
	long status = -1;
	int ret = -1;

	container_spec_init(&spec);
	spec.image = xstrdup(env->img.ref);
	strvec_push(&spec.entrypoint, env->playback);
	strvec_push(&spec.cmd, target);
	strvec_push(&spec.cmd, "--info");
	strvec_pushf(&spec.labels, "%s=%s", LABEL_RUN, pr->run_id);
	strvec_pushf(&spec.labels, "%s=%s", LABEL_OWNER, env->owner);
	strvec_pushf(&spec.labels, "%s=%s", LABEL_ARCHIVE, pr->pid_dir);
	strvec_pushf(&spec.labels, "%s=%s", LABEL_IMAGE, env->o->image);
	container_spec_add_mount(&spec, pr->pid_dir, target, true);
	if (env->use_overlay) {
		container_spec_add_mount(&spec, env->overlay.host_playback, OVERLAY_PLAYBACK, true);
		container_spec_add_mount(&spec, env->overlay.clr_lib, OVERLAY_LIB, true);
	}
	spec.network_mode = xstrdup("none");
	spec.init = true;
	strvec_push(&spec.cap_drop, "ALL");
	strvec_push(&spec.security_opt, "no-new-privileges");
	container_spec_add_ulimit(&spec, "core", 0, 0);

	if (mkdir(diag, 0755) < 0 && errno != EEXIST)
		goto out;
	if (run_log_open(&rl, path, -1, cls, &err) < 0)
		goto out;
	if (engine_container_create(env->engine, NULL, &spec, &id, &err) < 0 ||
	    engine_container_start(env->engine, id, &err) < 0 ||
	    engine_container_wait(env->engine, id, "not-running", &status, &err) < 0 ||
	    engine_container_logs(env->engine, id, false, to_run_log, &rl, &err) < 0) {
		run_log_close(&rl, NULL);
		goto out;
	}
	ret = 0;
	run_log_close(&rl, NULL);
out:
	if (ret < 0)
		say_info(env->o->verbosity, "note: hrr-playback --info could not run: %s", err.msg);
	if (id) {
		struct error ignored;

		engine_container_remove(env->engine, id, true, &ignored);
	}
	container_spec_release(&spec);
	return ret;
}

static void print_finding(const struct options *o, const struct finding *f,
			  const struct finding_context *ctx, const char *run_dir)
{
	cleanup_strbuf struct strbuf md = STRBUF_INIT;
	cleanup_cjson cJSON *json = finding_to_json(f, ctx);
	cleanup_free char *json_text = cJSON_Print(json);
	cleanup_free char *md_path = xasprintf("%s/finding.md", run_dir);
	cleanup_free char *json_path = xasprintf("%s/finding.json", run_dir);
	struct strbuf out = STRBUF_INIT;
	struct error err;

	finding_render_markdown(f, ctx, &md);
	strbuf_addstr(&out, json_text);
	strbuf_addch(&out, '\n');
	if (fs_write_atomic(md_path, md.buf, md.len, 0644, &err) < 0 ||
	    fs_write_atomic(json_path, out.buf, out.len, 0644, &err) < 0)
		say_error("%s", err.msg);
	if (o->format == FORMAT_MARKDOWN) {
		strbuf_reset(&out);
		strbuf_add(&out, md.buf, md.len);
	}
	fwrite(out.buf, 1, out.len, stdout);
	fflush(stdout);
	if (o->output) {
		FILE *f_out = fopen(o->output, "ae");

		/* Several pids append in turn; the first truncates. */
		if (!f_out || fwrite(out.buf, 1, out.len, f_out) != out.len)
			say_error("-o %s: %s", o->output, strerror(errno));
		if (f_out)
			fclose(f_out);
	}
	strbuf_release(&out);
}

static int stop_before_replay(struct run_env *env, struct pid_run *pr,
			      const struct pid_preflight *pf, int code, const char *why)
{
	cleanup_strbuf struct strbuf md = STRBUF_INIT;
	cleanup_free char *path = xasprintf("%s/preflight.md", pr->run_dir);
	struct error err;

	pr->exit_code = code;
	pr->stop_reason = xstrdup(why);
	if (pf) {
		preflight_render_markdown(&pf->report, &md);
		if (fs_write_atomic(path, md.buf, md.len, 0644, &err) < 0)
			say_error("%s", err.msg);
	}
	write_run_json(env, pr, pf);
	return code;
}

static int resolve_device_gids(struct pid_run *pr, struct error *err)
{
	for (size_t i = 0; i < pr->n_devices; i++) {
		struct stat st;

		if (stat(pr->devices[i].host_path, &st) < 0)
			return error_errno(err, "device node %s", pr->devices[i].host_path);
		if (!S_ISCHR(st.st_mode))
			return error_set(err, ERR_DATA, 0, "%s is not a character device",
					 pr->devices[i].host_path);
		pr->devices[i].gid = st.st_gid;
	}
	return 0;
}

static int replay_pid(struct run_env *env, const char *pid_dir, bool multi)
{
	struct options *o = env->o;
	struct pid_run pr;
	struct pid_preflight pf;
	struct container_spec spec;
	struct replay_plan_input in;
	struct finding f;
	struct finding_context ctx;
	struct finding_run fr;
	struct replay_exec x;
	struct run_log rl;
	struct classifier *cls = NULL;
	cleanup_free char *log_path = NULL;
	unsigned format_version = 0;
	struct error err;
	int code;

	memset(&pr, 0, sizeof(pr));
	pid_preflight_init(&pf);
	container_spec_init(&spec);
	finding_init(&f);
	pr.t_begin = monotonic_now();
	pr.pid_dir = pid_dir;
	pr.pid_name = pid_name_of(pid_dir);
	utc_iso(pr.started, sizeof(pr.started));
	run_id_new(pr.run_id);
	if (run_folder_create(env->workdir, pr.pid_name, pr.run_id, &pr.run_dir, &err) < 0) {
		say_error("%s", err.msg);
		pid_preflight_release(&pf);
		return EXIT_NO_VERDICT;
	}
	strvec_push(&env->run_dirs, pr.run_dir);

	run_preflight(env, pid_dir, &pf);
	if (pf.report.verdict == PREFLIGHT_BLOCK) {
		for (size_t i = 0; i < pf.report.blocks.n; i++)
			say_error("preflight blocked the replay: %s", pf.report.blocks.v[i]);
		code = stop_before_replay(env, &pr, &pf, EXIT_BLOCKED, "preflight blocked");
		goto out;
	}
	if (pf.report.verdict == PREFLIGHT_CONFIRM && !o->yes) {
		for (size_t i = 0; i < pf.report.confirms.n; i++)
			say_error("preflight: %s", pf.report.confirms.v[i]);
		if (!isatty(0)) {
			say_error("version mismatch: re-run with HRR_CONTINUE=1 (or --yes) to replay anyway");
			code = stop_before_replay(env, &pr, &pf, EXIT_CONFIRM, "confirmation needed");
			goto out;
		}
		if (!confirm_interactively()) {
			code = stop_before_replay(env, &pr, &pf, EXIT_DECLINED, "declined by the user");
			goto out;
		}
	}
	for (size_t i = 0; i < pf.report.warnings.n; i++)
		say_info(o->verbosity, "preflight warning: %s", pf.report.warnings.v[i]);
	{
		cleanup_strbuf struct strbuf md = STRBUF_INIT;
		cleanup_free char *path = xasprintf("%s/preflight.md", pr.run_dir);

		preflight_render_markdown(&pf.report, &md);
		if (fs_write_atomic(path, md.buf, md.len, 0644, &err) < 0)
			say_error("%s", err.msg);
	}

	plan_devices(o->device_root, &env->topo, pf.chosen, pf.n_chosen, &pr.devices,
		     &pr.n_devices);
	if (resolve_device_gids(&pr, &err) < 0) {
		say_error("%s (--device-root %s)", err.msg, o->device_root);
		code = stop_before_replay(env, &pr, &pf, EXIT_NO_VERDICT, err.msg);
		goto out;
	}
	memset(&in, 0, sizeof(in));
	in.opts = o;
	in.pid_dir = pid_dir;
	in.pid_name = pr.pid_name;
	in.image_ref = o->image;
	in.image_repository = env->img.repository;
	in.image_env = &env->img.env;
	in.playback = env->playback;
	in.overlay = env->use_overlay ? &env->overlay : NULL;
	in.devices = pr.devices;
	in.n_devices = pr.n_devices;
	in.n_gpus = pf.n_chosen;
	in.run_id = pr.run_id;
	in.owner = env->owner;
	in.archive_label = pid_dir;
	if (replay_plan_build(&in, &spec, &err) < 0) {
		say_error("%s", err.msg);
		code = stop_before_replay(env, &pr, &pf, EXIT_NO_VERDICT, err.msg);
		goto out;
	}
	pr.spec_json = container_spec_to_json(&spec);
	pr.container_name = xasprintf("hrr-docker-replay-%s", pr.run_id);
	if (signals_caught()) {
		code = stop_before_replay(env, &pr, &pf, EXIT_NO_VERDICT, "interrupted");
		goto out;
	}

	cls = classifier_new("replay.log");
	log_path = xasprintf("%s/replay.log", pr.run_dir);
	if (run_log_open(&rl, log_path, o->verbosity >= 0 ? 2 : -1, cls, &err) < 0) {
		say_error("%s", err.msg);
		code = stop_before_replay(env, &pr, &pf, EXIT_NO_VERDICT, err.msg);
		goto out;
	}
	{
		cleanup_strbuf struct strbuf gpus = STRBUF_INIT;

		for (size_t i = 0; i < pf.n_chosen; i++)
			strbuf_addf(&gpus, i ? ",%d" : "%d", pf.chosen[i]);
		say_info(o->verbosity, "replaying %s in %s on GPU %s (run %s)", pr.pid_name, o->image,
		     gpus.len ? gpus.buf : "none", pr.run_id);
	}
	x.engine = env->engine;
	x.opts = o;
	x.spec = &spec;
	x.name = pr.container_name;
	x.log = &rl;
	x.interrupt_fd = env->interrupt_fd;
	if (replay_execute(&x, &pr.result, &err) < 0) {
		run_log_close(&rl, NULL);
		say_error("%s", err.msg);
		code = stop_before_replay(env, &pr, &pf, EXIT_NO_VERDICT, err.msg);
		goto out;
	}
	pr.replayed = true;
	{
		double t_collect = monotonic_now();
		struct error lerr;

		if (run_log_close(&rl, &lerr) < 0)
			say_error("%s (the log in the run folder is incomplete)", lerr.msg);
		classifier_finish(cls, &f);
		archive_check_events(pid_dir, &format_version, &err);

		memset(&fr, 0, sizeof(fr));
		fr.image = o->image;
		fr.image_id = env->img.id;
		fr.image_digest = env->img.digest;
		fr.container_id = pr.result.container_id;
		fr.gpus = pf.chosen;
		fr.n_gpus = pf.n_chosen;
		fr.exit_code = (int)pr.result.exit_code;
		fr.ended_by = pr.result.ended_by;
		fr.signal = pr.result.signal;
		fr.log = log_path;
		fr.run_dir = pr.run_dir;

		memset(&ctx, 0, sizeof(ctx));
		ctx.archive_name = pr.pid_name;
		ctx.manifest = pf.have_manifest ? &pf.manifest : NULL;
		ctx.archive_format_version = format_version;
		ctx.run = &fr;
		ctx.preflight = &pf.report;
		ctx.multi_process = multi;

		if (finding_needs_info(&f) && !pr.result.interrupt_signal) {
			struct classifier *info_cls = classifier_new("hrr-playback --info");
			struct finding later;

			finding_init(&later);
			if (playback_info(env, &pr, info_cls) == 0) {
				classifier_finish(info_cls, &later);
				finding_merge(&f, &later);
			}
			finding_release(&later);
			classifier_free(info_cls);
		}
		fr.wall_s = monotonic_now() - pr.t_begin;
		finding_finalize(&f, &ctx);
		print_finding(o, &f, &ctx, pr.run_dir);
		pr.collect_s = monotonic_now() - t_collect;
	}
	if (pr.result.interrupt_signal)
		code = EXIT_NO_VERDICT;
	else
		code = f.outcome == OUTCOME_PASS ? EXIT_PASS : EXIT_NOT_PASS;
	pr.exit_code = code;
	write_run_json(env, &pr, &pf);
out:
	classifier_free(cls);
	finding_release(&f);
	container_spec_release(&spec);
	pid_preflight_release(&pf);
	plan_devices_free(pr.devices, pr.n_devices);
	cJSON_Delete(pr.spec_json);
	replay_result_release(&pr.result);
	free(pr.container_name);
	free(pr.stop_reason);
	free(pr.run_dir);
	return code;
}

static void print_run_folders(const struct run_env *env)
{
	for (size_t i = 0; i < env->run_dirs.n; i++)
		fprintf(stderr, "run folder: %s\n", env->run_dirs.v[i]);
}

int run_command(struct options *o)
{
	struct run_env env;
	int code = 0;

	run_env_init(&env, o);
	if ((code = setup_archive(&env)) || (code = setup_workdir(&env)) ||
	    (code = setup_engine(&env)) || (code = setup_topology(&env, true)) ||
	    (code = setup_image(&env)))
		goto out;
	env.interrupt_fd = signals_install();
	if ((code = setup_playback(&env)))
		goto out;
	setup_stack(&env);
	if (o->output) {
		FILE *f = fopen(o->output, "we");

		if (!f) {
			say_error("-o %s: %s", o->output, strerror(errno));
			code = EXIT_USAGE;
			goto out;
		}
		fclose(f);
	}
	for (size_t i = 0; i < env.pid_dirs.n; i++) {
		if (signals_caught()) {
			say_error("interrupted by %s: %zu of %zu processes not replayed",
			       signal_name(signals_caught()), env.pid_dirs.n - i, env.pid_dirs.n);
			code = worst(code, EXIT_NO_VERDICT);
			break;
		}
		code = worst(code, replay_pid(&env, env.pid_dirs.v[i], env.pid_dirs.n > 1));
	}
out:
	print_run_folders(&env);
	run_env_release(&env);
	return code;
}

int preflight_command(struct options *o)
{
	struct run_env env;
	int code = 0;

	run_env_init(&env, o);
	/* The preflight command exists to run the checks. */
	o->skip_preflight = false;

	if ((code = setup_archive(&env)) || (code = setup_workdir(&env)) ||
	    (code = setup_engine(&env)) || (code = setup_topology(&env, false)) ||
	    (code = setup_image(&env)))
		goto out;
	if (o->mount_clr && (code = setup_playback(&env)))
		goto out;
	setup_stack(&env);
	for (size_t i = 0; i < env.pid_dirs.n; i++) {
		struct pid_preflight pf;
		cleanup_strbuf struct strbuf md = STRBUF_INIT;
		int c;

		pid_preflight_init(&pf);
		run_preflight(&env, env.pid_dirs.v[i], &pf);
		if (env.pid_dirs.n > 1)
			printf("# %s\n\n", pid_name_of(env.pid_dirs.v[i]));
		preflight_render_markdown(&pf.report, &md);
		fwrite(md.buf, 1, md.len, stdout);
		switch (pf.report.verdict) {
		case PREFLIGHT_BLOCK:
			c = EXIT_BLOCKED;
			break;
		case PREFLIGHT_CONFIRM:
			c = o->yes ? 0 : EXIT_CONFIRM;
			break;
		default:
			c = 0;
		}
		code = worst(code, c);
		pid_preflight_release(&pf);
	}
out:
	run_env_release(&env);
	return code;
}

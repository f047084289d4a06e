/* What `run` and `preflight` set up from the options before the first
 * replay: the pid directories (checked once), the host, the image facts,
 * the overlay and playback path, the stack facts; one replay description
 * per pid; stdout kept for -o. */
#include "orchestrator/cli/cmd_setup.h"
#include "orchestrator/cli/term_events.h"
#include "common/cleanup.h"
#include "common/fsutil.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "orchestrator/cli/cmd_json.h"
#include "orchestrator/replay/overlay.h"
#include "orchestrator/replay/replay_unit.h"
#include "common/say.h"
#include "common/signals.h"
#include "preflight/manifest.h"

#include <errno.h>
#include <libgen.h>
#include <seccomp.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void cmd_env_init(struct cmd_env *env, struct options *o)
{
	memset(env, 0, sizeof(*env));
	env->o = o;
	env->interrupt_fd = -1;
	strvec_init(&env->pid_dirs);
	strvec_init(&env->run_dirs);
	image_env_init(&env->image);
	strbuf_init(&env->output, 0);
	/* A reader that went away (| head) must not kill the run mid-cleanup. */
	signal(SIGPIPE, SIG_IGN);
}

void cmd_env_release(struct cmd_env *env)
{
	replay_host_release(&env->host);
	strvec_clear(&env->pid_dirs);
	free(env->format_versions);
	image_env_release(&env->image);
	overlay_paths_release(&env->overlay);
	strvec_clear(&env->run_dirs);
	strbuf_release(&env->output);
}

/* Every pid directory is resolved and checked once, before anything runs. */
static int setup_archive(struct cmd_env *env)
{
	struct error err;

	if (archive_resolve(env->o->archive, &env->pid_dirs, &err) < 0)
		return replay_fail(&env->failure, term_events(), REPLAY_STAGE_ARCHIVE,
				   EXIT_NO_VERDICT, "--archive %s: %s", env->o->archive, err.msg);
	env->format_versions = xcalloc(env->pid_dirs.n + 1, sizeof(unsigned));
	for (size_t i = 0; i < env->pid_dirs.n; i++)
		if (archive_check_events(env->pid_dirs.v[i], &env->format_versions[i], &err) < 0)
			return replay_fail(&env->failure, term_events(), REPLAY_STAGE_ARCHIVE,
					   EXIT_NO_VERDICT, "%s: %s", env->pid_dirs.v[i], err.msg);
	return 0;
}

static int setup_host(struct cmd_env *env, bool need_gpu)
{
	const char *archives[2] = { env->o->archive, NULL };
	char real[PATH_MAX];
	struct replay_host_config cfg = {
		.workdir = env->o->workdir, .archives = archives, .n_archives = 1,
		.device_root = env->o->device_root, .sysfs_root = env->o->sysfs_root,
		.need_gpu = need_gpu, .verbosity = env->o->verbosity, .devices = env->o->devices,
		.events = term_events(),
	};

	if (realpath(env->o->archive, real))
		archives[cfg.n_archives++] = real;
	return replay_host_open(&env->host, &cfg, &env->failure);
}

struct image_setup cmd_image_setup(const struct options *o)
{
	return (struct image_setup){ .pull = o->pull, .verbosity = o->verbosity,
				     .events = term_events(), .playback = o->playback,
				     .skip_preflight = o->skip_preflight, .extra_ld = &o->extra_ld };
}

static int setup_image(struct cmd_env *env)
{
	struct image_setup s = cmd_image_setup(env->o);
	struct error err;

	if (image_setup_pin(&env->image, env->host.engine, &s, env->o->image, NULL, &err) < 0) {
		if (err.kind == ERR_USAGE)
			return replay_fail(&env->failure, term_events(), REPLAY_STAGE_USAGE,
					   EXIT_USAGE, "%s", err.msg);
		return replay_fail(&env->failure, term_events(),
				   err.kind == ERR_NOT_FOUND || env->image.img.pull_tried ? REPLAY_STAGE_PULL : REPLAY_STAGE_IMAGE,
				   EXIT_NO_VERDICT, "%s", err.msg);
	}
	return 0;
}

struct overlay_sources cmd_overlay_sources(const struct options *o)
{
	return (struct overlay_sources){ o->host_playback, o->clr_lib, o->clr_build, o->rocr_lib,
					 o->rocm_path };
}

static int setup_overlay(struct cmd_env *env)
{
	struct overlay_sources src = cmd_overlay_sources(env->o);
	struct error err;

	if (overlay_resolve(&src, &env->overlay, &err) < 0)
		return replay_fail(&env->failure, term_events(), REPLAY_STAGE_IMAGE,
				   EXIT_NO_VERDICT, "%s", err.msg);
	env->use_overlay = true;
	return 0;
}

/* hrr-playback (looked up in the image, cached by image ID, so a run after
 * a preflight needs no probe) and the stack, read once for all pids.
 * required: a failed lookup fails the command (run), else it is left for
 * the run to report (preflight). */
static int setup_lookups(struct cmd_env *env, bool required)
{
	struct image_setup s = cmd_image_setup(env->o);
	struct error err;

	if (image_setup_lookups(&env->image, &env->host, &s,
				env->use_overlay ? &env->overlay : NULL, required, &err) < 0)
		return replay_fail(&env->failure, term_events(), REPLAY_STAGE_IMAGE,
				   EXIT_NO_VERDICT, "%s", err.msg);
	return 0;
}

const char *cmd_gpus_from_env(const struct options *o)
{
	return o->gpus_from && strcmp(o->gpus_from, "--gpu") ? o->gpus_from : NULL;
}

void cmd_describe(const struct cmd_env *env, size_t i, const struct capture_manifest *capture,
		  const struct gpu_choice *gpus, struct replay_desc *d)
{
	const struct options *o = env->o;

	replay_desc_init(d);
	d->pid_dir = env->pid_dirs.v[i];
	d->archive_format_version = env->format_versions[i];
	d->multi_process = env->pid_dirs.n > 1;
	d->image = &env->image.img;
	d->playback = env->image.playback;
	d->overlay = env->use_overlay ? &env->overlay : NULL;
	d->stack = env->image.have_stack ? &env->image.stack : NULL;
	d->capture = capture;
	d->gpus = gpus;
	cmd_describe_policy(o, d);
	d->interrupt_fd = env->interrupt_fd;
}

void cmd_describe_policy(const struct options *o, struct replay_desc *d)
{
	d->limits.timeout_s = o->timeout_s;
	d->limits.progress_timeout_s = o->progress_timeout_s;
	d->limits.stop_grace_s = o->stop_grace_s;
	d->limits.progress_seconds = o->progress_seconds;
	d->limits.memory_bytes = o->memory_bytes;
	d->limits.log_limit_bytes = o->log_limit_bytes;
	d->diagnose = o->diagnose;
	d->diagnose_timeout_s = o->diagnose_timeout_s;
	d->env = &o->env;
	d->hip_hrr_env = &o->hip_hrr_env;
	d->extra_ld = &o->extra_ld;
	d->cap_add = &o->cap_add;
	d->playback_args = &o->playback_args;
	d->replace_kernels = &o->replace_kernels;
	d->no_sync = o->no_sync;
	d->keep = o->keep;
	d->seccomp = &o->seccomp;
	d->as_root = o->as_root;
	d->skip_preflight = o->skip_preflight;
	d->strict_version = o->strict_version;
	d->strict_arch = o->strict_arch;
	d->confirm = o->yes ? REPLAY_CONFIRM_ASSUME_YES : REPLAY_CONFIRM_PROMPT;
	d->verbosity = o->verbosity;
	d->events = term_events();
}

/* Print on stdout now and keep for -o. */
void cmd_say_warnings(const struct strvec *warnings)
{
	for (size_t i = 0; i < warnings->n; i++)
		say_warning("%s", warnings->v[i]);
}

void cmd_emit(struct cmd_env *env, const char *text, size_t len)
{
	fwrite(text, 1, len, stdout);
	fflush(stdout);
	strbuf_add(&env->output, text, len);
}

/* -o is written once, atomically, when every pid is done: a reader never
 * sees half of it, and several pids give one file (their findings in
 * order), never a truncated one. Its directory is checked up front. */
static int output_check(struct cmd_env *env)
{
	const struct options *o = env->o;
	cleanup_free char *copy = NULL;
	const char *dir;

	if (!o->output)
		return 0;
	copy = xstrdup(o->output);
	dir = dirname(copy);
	if (access(dir, W_OK) < 0)
		return replay_fail(&env->failure, term_events(), REPLAY_STAGE_USAGE, EXIT_USAGE,
				   "-o %s: %s", o->output, strerror(errno));
	env->output_ok = true;
	return 0;
}

/* A site's --seccomp FILE is checked before any folder exists, so a typo
 * is a usage error like any other (the syscall names are checked again
 * for the engine's architecture when the container is planned). */
static int seccomp_check(struct cmd_env *env)
{
	const struct seccomp_choice *c = &env->o->seccomp;
	cleanup_strbuf struct strbuf text = STRBUF_INIT;
	struct error err;

	if (c->mode != SECCOMP_MODE_FILE)
		return 0;
	if (fs_read_small_file(c->path, 1u << 20, &text, &err) < 0 ||
	    seccomp_profile_validate(text.buf, text.len, seccomp_arch_native(), &err) < 0)
		return replay_fail(&env->failure, term_events(), REPLAY_STAGE_USAGE, EXIT_USAGE,
				   "--seccomp %s: %s", c->path, err.msg);
	return 0;
}

void cmd_emit_json(struct cmd_env *env, cJSON *j)
{
	cleanup_free char *text = cmd_json_text(j);

	cmd_emit(env, text, strlen(text));
	cJSON_Delete(j);
}

void cmd_output_write(const struct cmd_env *env)
{
	struct error err;

	if (env->o->output && env->output_ok && env->output.len &&
	    fs_write_atomic(env->o->output, env->output.buf, env->output.len, 0644, &err) < 0)
		say_error("-o %s", err.msg);
}

int cmd_worst(int a, int b)
{
	return a > b ? a : b;
}

int cmd_setup(struct cmd_env *env, bool for_run)
{
	const struct options *o = env->o;
	int code;

	if ((code = output_check(env)) || (code = seccomp_check(env)) ||
	    (code = setup_archive(env)) ||
	    (code = setup_host(env, for_run)) ||
	    (code = setup_image(env)))
		return code;
	if (for_run)
		env->interrupt_fd = signals_install();
	if (o->mount_clr && (code = setup_overlay(env)))
		return code;
	/* A preflight looks hrr-playback up too, so that the run after it
	 * starts no probe container; its failure is left for the run. */
	return setup_lookups(env, for_run);
}

/* The replay options' slice of the option table: what `run` and
 * `preflight` take (a sweep and a bisection take most of them too, for
 * each case) and `analyze`'s --log, with the code that applies them to
 * struct options. */
#include "orchestrator/cli/options.h"
#include "orchestrator/cli/options_table.h"
#include "common/xalloc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const struct option_def replay_rows[] = {
	{ OPT_IMAGE, "image", 0, "REF", "HRR_DOCKER_IMAGE", FOR_REPLAY,
	  "capture image: name[:tag] or name@sha256:..." },
	{ OPT_LOG, "log", 0, "FILE", NULL, FOR_ANALYZE,
	  "a log to classify (repeatable, read in the order given; '-' reads stdin)" },
	{ OPT_ARCHIVE, "archive", 0, "PATH", NULL, FOR_REPLAY | FOR_ANALYZE,
	  "the capture: a pid-<pid> directory or a capture root (read-only)" },
	{ OPT_WORKDIR, "workdir", 0, "DIR", "HRR_TRIAGE_WORKDIR", FOR_REPLAY,
	  "where run folders are created (default $TMPDIR/hrr-docker-replay-<uid>)" },
	{ OPT_OUTPUT, "output", 'o', "PATH", NULL, FOR_REPLAY | FOR_ANALYZE,
	  "also write what is printed on stdout to PATH (at the end, atomically)" },
	{ OPT_FORMAT, "format", 0, "markdown|json", NULL, FOR_REPLAY | FOR_ANALYZE | FOR_HISTORY | FOR_BISECT,
	  "what is printed on stdout at the end (default markdown)" },
	{ OPT_GPU, "gpu", 0, "N[,M...]", "GPU", FOR_REPLAY,
	  "host GPU ordinal(s) to replay on (default: as many as the capture used, lowest first)" },
	{ OPT_PULL, "pull", 0, "always|missing|never", NULL, FOR_REPLAY,
	  "when to pull the image (default missing)" },
	{ OPT_TIMEOUT, "timeout", 0, "S", "HRR_REPLAY_TIMEOUT", FOR_REPLAY,
	  "wall-clock bound from the container's start (default 1800, 0 = none)" },
	{ OPT_PROGRESS_TIMEOUT, "progress-timeout", 0, "S", NULL, FOR_REPLAY,
	  "stop when the replay printed nothing for S seconds (default off)" },
	{ OPT_STOP_GRACE, "stop-grace", 0, "S", NULL, FOR_REPLAY,
	  "seconds between SIGTERM and SIGKILL when stopping a replay (default 10;\n"
	  "                                   a second Ctrl-C skips the rest)" },
	{ OPT_PROGRESS_SECONDS, "progress-seconds", 0, "S", "HIP_HRR_REPLAY_PROGRESS_SECONDS",
	  FOR_REPLAY, "heartbeat period asked of hrr-playback (default 30)" },
	{ OPT_DIAGNOSE, "diagnose", 0, "MODE", "HRR_DIAGNOSE", FOR_RUN,
	  "off|auto|agent|hang|all: name the kernel with the GPU debuggers (default auto:\n"
	  "                                   one rerun under rocm-debug-agent after a GPU fault, watchdog\n"
	  "                                   x4, or after a hang, sent SIGQUIT at the first run's stop\n"
	  "                                   time, no ptrace; hang/all: rocgdb before a hung replay is\n"
	  "                                   stopped, the agent when the image has no rocgdb)" },
	{ OPT_DIAGNOSE_TIMEOUT, "diagnose-timeout", 0, "S", NULL, FOR_RUN,
	  "how long rocgdb may take before a hung replay is stopped anyway (default 90)" },
	{ OPT_NO_SYNC, "no-sync", 0, NULL, NULL, FOR_REPLAY,
	  "do not pass --sync-after-launch (faster, but faults are not attributed)" },
	{ OPT_MOUNT_CLR, "mount-clr", 0, NULL, "HRR_DOCKER_MOUNT_CLR", FOR_REPLAY,
	  "overlay the host's hrr-playback + libamdhip64 (HRR_PLAYBACK, CLR_LIB, CLR_BUILD, ROCR_LIB)" },
	{ OPT_PLAYBACK, "playback", 0, "PATH", "HRR_DOCKER_PLAYBACK", FOR_REPLAY,
	  "hrr-playback's path inside the image (default: found)" },
	{ OPT_EXTRA_LD, "extra-ld", 0, "DIRS", "HRR_DOCKER_EXTRA_LD", FOR_REPLAY,
	  "extra library dirs inside, ':'-separated (before /opt/rocm/lib)" },
	{ OPT_ENV, "env", 'e', "K=V", NULL, FOR_REPLAY,
	  "one more variable inside (repeatable); host HIP_HRR_* are passed too" },
	{ OPT_PLAYBACK_ARG, "playback-arg", 0, "FLAG[=VALUE]", NULL, FOR_REPLAY,
	  "pass one more flag to hrr-playback (repeatable), one of --no-placement,\n"
	  "                                   --no-regions, --regions-strict, --guard-*, --continue-on-error,\n"
	  "                                   --warn-untranslated-args, --skip-device-sync, --trace-kernels,\n"
	  "                                   --trace-sync" },
	{ OPT_REPLACE_KERNEL, "replace-kernel", 0, "NAME=PATH", NULL, FOR_REPLAY,
	  "launch kernel NAME from the code object PATH (.hsaco) instead (repeatable;\n"
	  "                                   mounted read-only, its content digest is in the run options)" },
	{ OPT_CAP_ADD, "cap-add", 0, "CAP", NULL, FOR_REPLAY,
	  "a capability for the replay (repeatable; default none, all dropped)" },
	{ OPT_YES, "yes", 0, NULL, "HRR_CONTINUE", FOR_REPLAY,
	  "accept a version-mismatch confirmation" },
	{ OPT_SKIP_PREFLIGHT, "skip-preflight", 0, NULL, "HRR_SKIP_COMPAT", FOR_REPLAY,
	  "skip the preflight checks" },
	{ OPT_STRICT_VERSION, "strict-version", 0, NULL, "HRR_STRICT_VERSION", FOR_REPLAY,
	  "a HIP/comgr version mismatch blocks instead of asking" },
	{ OPT_STRICT_ARCH, "strict-arch", 0, NULL, "HRR_STRICT_ARCH", FOR_REPLAY,
	  "a GPU architecture mismatch blocks instead of warning" },
	{ OPT_KEEP, "keep", 0, NULL, NULL, FOR_REPLAY,
	  "keep the container after the run (default: removed)" },
	{ OPT_DEVICES, "devices", 0, "nodes|cdi|auto", "HRR_DEVICES", FOR_REPLAY,
	  "how the GPUs reach the container: their device nodes, or CDI devices of the\n"
	  "                                   AMD GPU CDI spec (default auto: CDI when the engine has it\n"
	  "                                   and the spec adds only those GPUs' nodes)" },
	{ OPT_DEVICE_ROOT, "device-root", 0, "DIR", "HRR_DEVICE_ROOT", FOR_REPLAY,
	  "where kfd and dri/ live on the host (default /dev)" },
	{ OPT_SYSFS_ROOT, "sysfs-root", 0, "DIR", "HRR_SYSFS_ROOT", FOR_REPLAY,
	  "root of the KFD topology (default /sys)" },
	{ OPT_SECCOMP, "seccomp", 0, "replay|default|unconfined|FILE", "HRR_SECCOMP", FOR_REPLAY,
	  "the replay's seccomp profile (default replay: the engine's default rules\n"
	  "                                   plus the ROCm runtime's NUMA calls; docs/security.md)" },
	{ OPT_MEMORY, "memory", 0, "BYTES", NULL, FOR_REPLAY,
	  "memory limit of the replay container (512m, 2g; default none)" },
	{ OPT_LOG_LIMIT, "log-limit", 0, "BYTES", "HRR_LOG_LIMIT", FOR_RUN,
	  "bound replay.log (default 1g, 0 = none): past it the head and the tail are kept" },
	{ OPT_AS_ROOT, "as-root", 0, NULL, NULL, FOR_REPLAY,
	  "run the replay as root inside (default: as your uid:gid; capabilities stay dropped)" },
};

static int parse_seconds(const char *what, const char *s, long *out, struct error *err)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 0 || v > 365L * 24 * 3600)
		return error_set(err, ERR_USAGE, 0,
				 "%s: '%s' is not a number of seconds (0 to 31536000)", what, s);
	*out = v;
	return 0;
}

static void split_dirs(struct strvec *out, const char *s)
{
	const char *p = s;

	strvec_clear(out);
	while (*p) {
		size_t len = strcspn(p, ":,");

		if (len)
			strvec_push_nodup(out, xstrndup(p, len));
		p += len;
		if (*p)
			p++;
	}
}

/* A flag, or its env twin's boolean value. */
static int apply_flag(struct options *o, enum option_id id, const char *val, const char *from,
		      bool from_env, struct error *err)
{
	static const struct {
		enum option_id id;
		size_t off;
	} flags[] = {
		{ OPT_NO_SYNC, offsetof(struct options, no_sync) },
		{ OPT_MOUNT_CLR, offsetof(struct options, mount_clr) },
		{ OPT_YES, offsetof(struct options, yes) },
		{ OPT_SKIP_PREFLIGHT, offsetof(struct options, skip_preflight) },
		{ OPT_STRICT_VERSION, offsetof(struct options, strict_version) },
		{ OPT_STRICT_ARCH, offsetof(struct options, strict_arch) },
		{ OPT_KEEP, offsetof(struct options, keep) },
		{ OPT_AS_ROOT, offsetof(struct options, as_root) },
	};
	int b = from_env ? options_parse_bool(val) : 1;

	if (b < 0)
		return error_set(err, ERR_USAGE, 0, "%s: '%s' is not a boolean; use 1 or 0", from, val);
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		if (flags[i].id == id)
			*(bool *)((char *)o + flags[i].off) = b;
	return 0;
}

/* What the replay container gets inside: paths there, variables, capabilities. */
static int apply_inside_option(struct options *o, enum option_id id, const char *val,
			       const char *from, struct error *err)
{
	switch (id) {
	case OPT_PLAYBACK:
		if (val[0] != '/')
			return error_set(err, ERR_USAGE, 0,
					 "%s: '%s' must be an absolute path inside the image", from, val);
		options_set_string(&o->playback, val);
		return 0;
	case OPT_EXTRA_LD:
		split_dirs(&o->extra_ld, val);
		for (size_t i = 0; i < o->extra_ld.n; i++)
			if (o->extra_ld.v[i][0] != '/')
				return error_set(err, ERR_USAGE, 0,
						 "%s: '%s' must be an absolute directory inside the image",
						 from, o->extra_ld.v[i]);
		return 0;
	case OPT_ENV:
		if (!strchr(val, '=') || val[0] == '=')
			return error_set(err, ERR_USAGE, 0, "%s: '%s' is not K=V", from, val);
		strvec_push(&o->env, val);
		return 0;
	default:
		if (!*val || strspn(val, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_") != strlen(val))
			return error_set(err, ERR_USAGE, 0,
					 "%s: '%s' is not a capability name like SYS_PTRACE", from, val);
		strvec_push(&o->cap_add, val);
		return 0;
	}
}

static int apply_gpu(struct options *o, const char *val, const char *from, bool from_env,
		     struct error *err)
{
	if (options_parse_gpu_list(val, o->gpus, GPU_MAX, &o->n_gpus, err) < 0) {
		if (!from_env)
			return -1;
		return error_set(err, ERR_USAGE, 0,
				 "%s=%s (from the environment): not a list of GPU ordinals like "
				 "0 or 0,1; fix or unset %s", from, val, from);
	}
	o->gpus_from = from_env ? "GPU" : "--gpu";
	return 0;
}

/* A path or reference that must not be empty. */
static int apply_path(struct options *o, enum option_id id, const char *val, const char *from,
		      struct error *err)
{
	switch (id) {
	case OPT_IMAGE:
		if (!*val)
			return error_set(err, ERR_USAGE, 0, "%s: empty image reference", from);
		options_set_string(&o->image, val);
		strvec_push(&o->sweep.images, val); /* a sweep's images repeat */
		return 0;
	case OPT_ARCHIVE:
		if (!*val)
			return error_set(err, ERR_USAGE, 0, "%s: empty path", from);
		options_set_string(&o->archive, val);
		strvec_push(&o->sweep.archives, val);
		return 0;
	case OPT_WORKDIR:
		if (!*val)
			return error_set(err, ERR_USAGE, 0, "%s: empty directory", from);
		options_set_string(&o->workdir, val);
		return 0;
	case OPT_LOG:
		if (!*val)
			return error_set(err, ERR_USAGE, 0, "%s: empty path (see --help)", from);
		strvec_push(&o->logs, val);
		return 0;
	default:
		if (!*val)
			return error_set(err, ERR_USAGE, 0, "%s: empty path", from);
		options_set_string(&o->output, val);
		return 0;
	}
}

static int replay_option_apply(struct options *o, enum option_id id, const char *val,
			       const char *from, bool from_env, struct error *err)
{
	switch (id) {
	case OPT_IMAGE:
	case OPT_ARCHIVE:
	case OPT_WORKDIR:
	case OPT_LOG:
	case OPT_OUTPUT:
		return apply_path(o, id, val, from, err);
	case OPT_GPU:
		return apply_gpu(o, val, from, from_env, err);
	case OPT_FORMAT:
	case OPT_PULL:
	case OPT_DEVICES:
	case OPT_DIAGNOSE:
		return options_apply_choice(o, id, val, from, err);
	case OPT_TIMEOUT:
		return parse_seconds(from, val, &o->timeout_s, err);
	case OPT_PROGRESS_TIMEOUT:
		return parse_seconds(from, val, &o->progress_timeout_s, err);
	case OPT_STOP_GRACE:
		return parse_seconds(from, val, &o->stop_grace_s, err);
	case OPT_PROGRESS_SECONDS:
		return parse_seconds(from, val, &o->progress_seconds, err);
	case OPT_DIAGNOSE_TIMEOUT:
		return parse_seconds(from, val, &o->diagnose_timeout_s, err);
	case OPT_PLAYBACK:
	case OPT_EXTRA_LD:
	case OPT_ENV:
	case OPT_CAP_ADD:
		return apply_inside_option(o, id, val, from, err);
	case OPT_PLAYBACK_ARG:
		return playback_args_add(&o->playback_args, val, from, err);
	case OPT_REPLACE_KERNEL:
		return kernel_replacements_add_file(&o->replace_kernels, val, from, err);
	case OPT_MEMORY:
		return options_parse_bytes(from, val, &o->memory_bytes, err);
	case OPT_LOG_LIMIT:
		if (!strcmp(val, "0")) {
			o->log_limit_bytes = 0;
			return 0;
		}
		return options_parse_bytes(from, val, &o->log_limit_bytes, err);
	case OPT_SECCOMP:
		seccomp_choice_release(&o->seccomp);
		return seccomp_choice_parse(val, &o->seccomp, err) < 0
			       ? error_prefix(err, "%s: ", from) : 0;
	case OPT_DEVICE_ROOT:
		options_set_string(&o->device_root, val);
		return 0;
	case OPT_SYSFS_ROOT:
		options_set_string(&o->sysfs_root, val);
		return 0;
	case OPT_NO_SYNC:
	case OPT_MOUNT_CLR:
	case OPT_YES:
	case OPT_SKIP_PREFLIGHT:
	case OPT_STRICT_VERSION:
	case OPT_STRICT_ARCH:
	case OPT_KEEP:
	case OPT_AS_ROOT:
		return apply_flag(o, id, val, from, from_env, err);
	default:
		return error_set(err, ERR_USAGE, 0, "internal: %s is not a replay option", from);
	}
}

const struct option_slice replay_option_slice = OPTION_SLICE(replay_rows, replay_option_apply);

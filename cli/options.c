#include "cli/options.h"
#include "cli/options_table.h"
#include "cli/commands.h"
#include "common/cleanup.h"
#include "common/xalloc.h"
#include "report/site.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The replay options of `run` and `preflight` (a sweep takes them too). */
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

/* Rows of no replay: the engine, gc, verbosity, --version, --help. */
static const struct option_def general_rows[] = {
	{ OPT_ENGINE, "engine", 0, "auto|podman-service", "HRR_ENGINE", FOR_REPLAY | FOR_GC,
	  "auto: DOCKER_HOST, else dockerd's or a Podman socket found; podman-service:\n"
	  "                                   start a private rootless Podman service, stop it at the end" },
	{ OPT_ALL, "all", 0, NULL, NULL, FOR_GC,
	  "also remove containers of dead runs that used --keep" },
	{ OPT_ALL_USERS, "all-users", 0, NULL, NULL, FOR_GC,
	  "root only: every user's dead runs, not only yours" },
	{ OPT_QUIET, "quiet", 'q', NULL, NULL, FOR_ALL & ~FOR_HISTORY,
	  "quieter: no live replay log on stderr" },
	{ OPT_VERBOSE, "verbose", 'v', NULL, NULL, FOR_ALL & ~FOR_HISTORY, "more verbose" },
	{ OPT_VERSION, "version", 0, NULL, NULL, FOR_ALL & ~(FOR_SWEEP | FOR_HISTORY | FOR_BISECT),
	  "print the version and exit" },
	{ OPT_HELP, "help", 'h', NULL, NULL, FOR_ALL,
	  "print this help and exit" },
};

#define ROWS(a) (sizeof(a) / sizeof(a[0]))

/* Each module's slice of the option table, in the order --help lists
 * them: a module's rows live with the code that applies them. */
static const struct option_slice slices[] = {
	{ replay_rows, ROWS(replay_rows) },
	{ sweep_option_rows, SWEEP_OPTION_ROWS },
	{ general_rows, ROWS(general_rows) },
};

#define N_OPTIONS (ROWS(replay_rows) + SWEEP_OPTION_ROWS + ROWS(general_rows))

size_t option_count(void)
{
	return N_OPTIONS;
}

const struct option_def *option_at(size_t i)
{
	for (size_t k = 0; k < ROWS(slices); i -= slices[k].n, k++)
		if (i < slices[k].n)
			return &slices[k].rows[i];
	return NULL;
}


void options_init(struct options *o)
{
	memset(o, 0, sizeof(*o));
	o->command = CMD_RUN;
	o->format = FORMAT_MARKDOWN;
	o->pull = PULL_MISSING;
	o->timeout_s = 1800;
	o->stop_grace_s = 10;
	o->progress_seconds = 30;
	o->diagnose = DIAGNOSE_DEFAULT;
	o->diagnose_timeout_s = DIAGNOSE_TIMEOUT_DEFAULT_S;
	o->log_limit_bytes = OPTIONS_LOG_LIMIT_DEFAULT;
	strvec_init(&o->extra_ld);
	strvec_init(&o->env);
	strvec_init(&o->cap_add);
	strvec_init(&o->logs);
	strvec_init(&o->hip_hrr_env);
	sweep_options_init(&o->sweep);
}

void options_release(struct options *o)
{
	free(o->image);
	free(o->archive);
	free(o->workdir);
	free(o->output);
	free(o->playback);
	free(o->device_root);
	free(o->sysfs_root);
	free(o->host_playback);
	free(o->clr_lib);
	free(o->clr_build);
	free(o->rocr_lib);
	free(o->rocm_path);
	strvec_clear(&o->extra_ld);
	strvec_clear(&o->env);
	strvec_clear(&o->cap_add);
	strvec_clear(&o->logs);
	strvec_clear(&o->hip_hrr_env);
	seccomp_choice_release(&o->seccomp);
	sweep_options_release(&o->sweep);
	options_init(o);
}

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
		{ OPT_ALL, offsetof(struct options, gc_all) },
		{ OPT_ALL_USERS, offsetof(struct options, gc_all_users) },
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

/* Apply one option's value (from argv or its env twin). `from` names the
 * source for error messages: "--timeout" or "HRR_REPLAY_TIMEOUT". */
static int apply_option(struct options *o, enum option_id id, const char *val,
			const char *from, bool from_env, struct error *err)
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
	case OPT_OUTPUT:
		if (!*val)
			return error_set(err, ERR_USAGE, 0, "%s: empty path", from);
		options_set_string(&o->output, val);
		return 0;
	case OPT_GPU:
		return apply_gpu(o, val, from, from_env, err);
	case OPT_FORMAT:
	case OPT_ENGINE:
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
		if (parse_seconds(from, val, &o->progress_seconds, err) < 0)
			return -1;
		return 0;
	case OPT_DIAGNOSE_TIMEOUT:
		return parse_seconds(from, val, &o->diagnose_timeout_s, err);
	case OPT_PLAYBACK:
	case OPT_EXTRA_LD:
	case OPT_ENV:
	case OPT_CAP_ADD:
		return apply_inside_option(o, id, val, from, err);
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
	case OPT_ALL:
	case OPT_ALL_USERS:
	case OPT_AS_ROOT:
		return apply_flag(o, id, val, from, from_env, err);
	case OPT_QUIET:
		o->verbosity = -1;
		return 0;
	case OPT_VERBOSE:
		if (o->verbosity < 0)
			o->verbosity = 0;
		o->verbosity++;
		return 0;
	case OPT_VERSION:
	case OPT_HELP:
		return 0;
	default:
		return sweep_option_apply(&o->sweep, id, val, from, err);
	}
	return error_set(err, ERR_USAGE, 0, "internal: unhandled option");
}

static const struct option_def *option_by_id(int id)
{
	for (size_t i = 0; i < N_OPTIONS; i++)
		if ((int)option_at(i)->id == id)
			return option_at(i);
	return NULL;
}

bool option_applies(const struct option_def *d, enum command cmd)
{
	if ((cmd == CMD_SWEEP || cmd == CMD_BISECT) && (d->commands & FOR_RUN))
		return d->id != OPT_GPU && d->id != OPT_OUTPUT &&
		       (cmd == CMD_SWEEP || d->id != OPT_IMAGE);
	return (d->commands & (1u << cmd)) != 0;
}

static const char *command_name(enum command cmd)
{
	const struct command_def *c = command_by_id(cmd);

	return c ? c->name : "run";
}

/* The command line after the command word: getopt over the option table.
 * 1 when --version ended it, 0 done, < 0 a usage error. */
static int parse_argv(struct options *o, int argc, char **argv, int first, bool *seen,
		      struct error *err)
{
	struct option longopts[N_OPTIONS + 1];
	char shortopts[64];
	size_t ns = 0;
	int c;

	for (size_t i = 0; i < N_OPTIONS; i++) {
		const struct option_def *d = option_at(i);

		longopts[i].name = d->name;
		longopts[i].has_arg = d->arg ? required_argument : no_argument;
		longopts[i].flag = NULL;
		longopts[i].val = d->id;
		if (d->short_name) {
			shortopts[ns++] = d->short_name;
			if (d->arg)
				shortopts[ns++] = ':';
		}
	}
	memset(&longopts[N_OPTIONS], 0, sizeof(longopts[0]));
	shortopts[ns] = '\0';

	/* getopt keeps global state: reset it so tests can parse repeatedly. */
	optind = first;
	opterr = 0;
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		const struct option_def *d = NULL;
		char from[64];

		if (c == '?' || c == ':') {
			const char *bad = argv[optind - 1];

			if (optopt && option_by_id(optopt) && option_by_id(optopt)->arg)
				return error_set(err, ERR_USAGE, 0, "--%s needs a value (see --help)",
						 option_by_id(optopt)->name);
			if (optopt && optopt < 256 && !strchr(shortopts, optopt))
				return error_set(err, ERR_USAGE, 0, "unknown option '-%c' (see --help)",
						 optopt);
			if (optopt && optopt < 256)
				return error_set(err, ERR_USAGE, 0, "-%c needs a value (see --help)",
						 optopt);
			return error_set(err, ERR_USAGE, 0, "unknown option '%s' (see --help)", bad);
		}
		size_t at = 0;

		for (size_t i = 0; i < N_OPTIONS; i++)
			if ((int)option_at(i)->id == c ||
			    (option_at(i)->short_name && option_at(i)->short_name == c)) {
				d = option_at(i);
				at = i;
			}
		if (!d)
			return error_set(err, ERR_USAGE, 0, "internal: unknown option code %d", c);
		if (!option_applies(d, o->command) && o->command == CMD_SWEEP &&
		    (d->id == OPT_GPU || d->id == OPT_OUTPUT))
			return error_set(err, ERR_USAGE, 0, d->id == OPT_GPU
					 ? "a sweep takes no --gpu: give its GPU pool with --gpus LIST"
					 : "a sweep takes no -o: use --summary, --junit or --html");
		if (!option_applies(d, o->command))
			return error_set(err, ERR_USAGE, 0,
					 "--%s does not apply to '%s' (see --help)", d->name,
					 command_name(o->command));
		if (d->id == OPT_HELP) {
			o->want_help = true;
			continue;
		}
		if (d->id == OPT_VERSION) {
			o->command = CMD_VERSION;
			return 1;
		}
		snprintf(from, sizeof(from), "--%s", d->name);
		if (apply_option(o, d->id, optarg ? optarg : "", from, false, err) < 0)
			return -1;
		seen[at] = true;
	}
	if (optind < argc)
		return error_set(err, ERR_USAGE, 0,
				 "unexpected argument '%s' (options take the form --name VALUE; see --help)",
				 argv[optind]);

	return 0;
}

/* What the environment says: the twins of this command's options the
 * command line left unset, the overlay sources, HIP_HRR_*. */
static int apply_environment(struct options *o, const bool *seen, env_lookup_fn env,
			     void *env_ud, char **envp, struct error *err)
{
	/* Env twins fill what the command line did not say. */
	for (size_t i = 0; i < N_OPTIONS; i++) {
		const struct option_def *d = option_at(i);
		const char *val;

		/* Only the twins of this command's options: a GPU=x meant for
		 * `run` must not break `gc`. */
		if (!d->env || seen[i] || !env || !option_applies(d, o->command))
			continue;
		val = env(d->env, env_ud);
		if (!val)
			continue;
		if (!d->arg && !*val)
			continue;
		if (apply_option(o, d->id, val, d->env, true, err) < 0)
			return -1;
	}
	if (env) {
		static const struct {
			const char *name;
			size_t off;
		} overlay_env[] = {
			{ "HRR_PLAYBACK", offsetof(struct options, host_playback) },
			{ "CLR_LIB", offsetof(struct options, clr_lib) },
			{ "CLR_BUILD", offsetof(struct options, clr_build) },
			{ "ROCR_LIB", offsetof(struct options, rocr_lib) },
			{ "ROCM_PATH", offsetof(struct options, rocm_path) },
		};

		for (size_t i = 0; i < sizeof(overlay_env) / sizeof(overlay_env[0]); i++) {
			const char *val = env(overlay_env[i].name, env_ud);

			if (val && *val)
				options_set_string((char **)((char *)o + overlay_env[i].off), val);
		}
	}
	for (char **e = envp; e && *e; e++)
		if (!strncmp(*e, "HIP_HRR_", 8) && strchr(*e, '='))
			strvec_push(&o->hip_hrr_env, *e);

	return 0;
}

static void apply_defaults(struct options *o)
{
	if (!o->device_root)
		o->device_root = xstrdup("/dev");
	if (!o->sysfs_root)
		o->sysfs_root = xstrdup("/sys");
	if (!o->rocm_path)
		o->rocm_path = xstrdup("/opt/rocm");

}

static int validate(const struct options *o, struct error *err)
{
	if (o->command == CMD_HELP || o->want_help)
		return 0;
	if (o->command == CMD_ANALYZE && !o->logs.n && !o->archive)
		return error_set(err, ERR_USAGE, 0, "analyze: --log FILE is required (see --help)");
	if (o->command == CMD_BISECT)
		return bisect_options_validate(&o->sweep, err);
	if (o->command == CMD_SWEEP || o->command == CMD_HISTORY)
		return sweep_options_validate(&o->sweep, o->command == CMD_HISTORY, err);
	if (o->command == CMD_RUN || o->command == CMD_PREFLIGHT) {
		if (!o->image)
			return error_set(err, ERR_USAGE, 0,
					 "--image is required (or set HRR_DOCKER_IMAGE); see --help");
		if (!o->archive)
			return error_set(err, ERR_USAGE, 0, "--archive is required; see --help");
		if (o->progress_timeout_s && o->progress_timeout_s <= o->progress_seconds &&
		    o->command == CMD_RUN)
			return error_set(err, ERR_USAGE, 0,
					 "--progress-timeout %lds must exceed the heartbeat period "
					 "(--progress-seconds %ld), or a healthy replay is stopped between heartbeats",
					 o->progress_timeout_s, o->progress_seconds);
		if (o->progress_seconds == 0)
			return error_set(err, ERR_USAGE, 0,
					 "--progress-seconds must be at least 1");
	}
	return 0;
}

int options_parse(struct options *o, int argc, char **argv, env_lookup_fn env,
		  void *env_ud, char **envp, struct error *err)
{
	bool seen[N_OPTIONS];
	int first = 1;
	int r;

	memset(seen, 0, sizeof(seen));
	if (argc > 1 && argv[1][0] != '-') {
		const struct command_def *cmd = command_find(argv[1]);

		if (!cmd)
			return error_set(err, ERR_USAGE, 0,
					 "unknown command '%s'; use run, preflight, analyze, gc, sweep, bisect or history (see --help)",
					 argv[1]);
		o->command = cmd->id;
		first = 2;
		const struct history_action *act =
			cmd->id == CMD_HISTORY && argc > 2 ? history_action_find(argv[2]) : NULL;

		if (act) {
			o->sweep.history_action = act->name;
			first = 3;
		}
		if (act && !strcmp(act->name, "site")) {
			/* `history site DIR` (docs/sweep.md "The history site"). */
			if (argc < 4 || argv[3][0] == '-')
				return error_set(err, ERR_USAGE, 0,
						 "history site needs a directory: history site DIR");
			o->sweep.site_dir = xstrdup(argv[3]);
			o->sweep.last = SITE_DEFAULT_LAST;
			first = 4;
		}
		if (act && !strcmp(act->name, "prune"))
			/* `history prune --keep N` (docs/sweep.md); --keep is also
			 * run's flag, so the table spells this one --keep-last. */
			for (int i = first; i < argc; i++)
				if (!strcmp(argv[i], "--keep"))
					argv[i] = (char *)"--keep-last";
	}
	if (o->command == CMD_HELP)
		return 0;
	if ((r = parse_argv(o, argc, argv, first, seen, err)) != 0)
		return r < 0 ? -1 : 0;
	if (apply_environment(o, seen, env, env_ud, envp, err) < 0)
		return -1;
	apply_defaults(o);
	return validate(o, err);
}

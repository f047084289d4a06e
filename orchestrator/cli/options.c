/* The parser: argv and the environment over the option table's slices
 * (options_table.h), the defaults, the checks that need every option. */
#include "orchestrator/cli/options.h"
#include "orchestrator/cli/options_table.h"
#include "orchestrator/cli/bisect_options.h"
#include "orchestrator/cli/commands.h"
#include "orchestrator/cli/history_options.h"
#include "common/cleanup.h"
#include "common/xalloc.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROWS(a) (sizeof(a) / sizeof(a[0]))

/* Each module's slice of the option table, in the order --help lists
 * them: a module's rows live with the code that applies them. */
static const struct option_slice *const slices[] = {
	&replay_option_slice,
	&sweep_option_slice,
	&history_option_slice,
	&bisect_option_slice,
	&perf_option_slice,
	&general_option_slice,
};

/* An upper bound of the rows, for the parser's arrays: each row has its
 * own id (option_ids.h). */
#define N_OPTIONS_MAX OPTION_ID_COUNT

size_t option_count(void)
{
	size_t n = 0;

	for (size_t k = 0; k < ROWS(slices); k++)
		n += slices[k]->n;
	return n;
}

/* The slice row i is in; *i becomes its index there. */
static const struct option_slice *slice_of(size_t *i)
{
	for (size_t k = 0; k < ROWS(slices); *i -= slices[k]->n, k++)
		if (*i < slices[k]->n)
			return slices[k];
	return NULL;
}

const struct option_def *option_at(size_t i)
{
	const struct option_slice *s = slice_of(&i);

	return s ? &s->rows[i] : NULL;
}

/* Apply row i's value (from argv or its env twin) with its slice's code. */
static int apply_option(struct options *o, size_t i, const char *val, const char *from,
			bool from_env, struct error *err)
{
	const struct option_slice *s = slice_of(&i);

	return s->apply ? s->apply(o, s->rows[i].id, val, from, from_env, err)
			: s->apply_sweep(&o->sweep, s->rows[i].id, val, from, from_env, err);
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
	playback_args_release(&o->playback_args);
	kernel_replacements_release(&o->replace_kernels);
	strvec_clear(&o->logs);
	strvec_clear(&o->hip_hrr_env);
	seccomp_choice_release(&o->seccomp);
	sweep_options_release(&o->sweep);
	options_init(o);
}

static const struct option_def *option_by_id(int id)
{
	for (size_t i = 0; i < option_count(); i++)
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
	struct option longopts[N_OPTIONS_MAX + 1];
	char shortopts[64];
	size_t n = option_count(), ns = 0;
	int c;

	if (n > N_OPTIONS_MAX)
		return error_set(err, ERR_USAGE, 0, "internal: two rows of the option table share an id");
	for (size_t i = 0; i < n; i++) {
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
	memset(&longopts[n], 0, sizeof(longopts[0]));
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

		for (size_t i = 0; i < n; i++)
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
		if (apply_option(o, at, optarg ? optarg : "", from, false, err) < 0)
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
	for (size_t i = 0; i < option_count(); i++) {
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
		if (apply_option(o, i, val, d->env, true, err) < 0)
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
	if (o->command == CMD_HISTORY)
		return history_options_validate(&o->sweep, err);
	if (o->command == CMD_SWEEP)
		return sweep_options_validate(&o->sweep, err);
	if (o->command == CMD_GC && !o->gc_pulled_images && (o->sweep.dry_run || o->gc_older_than_s))
		return error_set(err, ERR_USAGE, 0, "--dry-run and --older-than go with gc --pulled-images");
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
		if (o->command == CMD_RUN && perf_options_validate(&o->sweep, err) < 0)
			return -1;
	}
	return 0;
}

int options_parse(struct options *o, int argc, char **argv, env_lookup_fn env,
		  void *env_ud, char **envp, struct error *err)
{
	bool seen[N_OPTIONS_MAX];
	int first = 1;
	int r;

	memset(seen, 0, sizeof(seen));
	if (argc > 1 && argv[1][0] != '-') {
		const struct command_def *cmd = command_find(argv[1]);

		if (!cmd) {
			cleanup_strbuf struct strbuf names = STRBUF_INIT;

			command_names(&names);
			return error_set(err, ERR_USAGE, 0, "unknown command '%s'; use %s (see --help)",
					 argv[1], names.buf);
		}
		o->command = cmd->id;
		first = 2;
		if (cmd->id == CMD_HISTORY &&
		    (first = history_options_words(&o->sweep, argc, argv, err)) < 0)
			return -1;
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

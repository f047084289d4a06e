/* The general slice of the option table: the rows of no replay (the
 * engine, gc's, verbosity, --version, --help) and their apply code. */
#include "orchestrator/cli/options.h"
#include "orchestrator/cli/options_table.h"

#include <errno.h>
#include <stdlib.h>

static const struct option_def general_rows[] = {
	{ OPT_ENGINE, "engine", 0, "auto|podman-service", "HRR_ENGINE", FOR_REPLAY | FOR_GC,
	  "auto: DOCKER_HOST, else dockerd's or a Podman socket found; podman-service:\n"
	  "                                   start a private rootless Podman service, stop it at the end" },
	{ OPT_ALL, "all", 0, NULL, NULL, FOR_GC,
	  "also remove containers of dead runs that used --keep" },
	{ OPT_ALL_USERS, "all-users", 0, NULL, NULL, FOR_GC,
	  "root only: every user's dead runs, not only yours" },
	{ OPT_PULLED_IMAGES, "pulled-images", 0, NULL, NULL, FOR_GC,
	  "remove the images this tool pulled on this host that no running sweep holds" },
	{ OPT_OLDER_THAN, "older-than", 0, "AGE", NULL, FOR_GC,
	  "with --pulled-images: only those last used more than AGE ago (7d, 12h, 30m, 90s)" },
	{ OPT_QUIET, "quiet", 'q', NULL, NULL, FOR_ALL & ~FOR_HISTORY,
	  "quieter: no live replay log on stderr" },
	{ OPT_VERBOSE, "verbose", 'v', NULL, NULL, FOR_ALL & ~FOR_HISTORY, "more verbose" },
	{ OPT_VERSION, "version", 0, NULL, NULL, FOR_ALL & ~(FOR_SWEEP | FOR_HISTORY | FOR_BISECT),
	  "print the version and exit" },
	{ OPT_HELP, "help", 'h', NULL, NULL, FOR_ALL,
	  "print this help and exit" },
};

/* "7d", "12h", "30m", "90s" or plain seconds, at least one second. */
static int parse_age(const char *from, const char *v, long long *out, struct error *err)
{
	static const struct { char unit; long long s; } units[] = {
		{ 's', 1 }, { 'm', 60 }, { 'h', 3600 }, { 'd', 86400 },
	};
	char *end;
	long long n;

	errno = 0;
	n = strtoll(v, &end, 10);
	if (errno || end == v || n <= 0 || n > (1LL << 40))
		goto bad;
	if (!*end) {
		*out = n;
		return 0;
	}
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]) && !end[1]; i++)
		if (*end == units[i].unit) {
			*out = n * units[i].s;
			return 0;
		}
bad:
	return error_set(err, ERR_USAGE, 0, "%s: '%s' is not an age (7d, 12h, 30m, 90s)", from, v);
}

/* The flags here have no env twin, so from_env is never true. */
static int general_option_apply(struct options *o, enum option_id id, const char *val,
				const char *from, bool from_env, struct error *err)
{
	(void)from_env;
	switch (id) {
	case OPT_ENGINE:
		return options_apply_choice(o, id, val, from, err);
	case OPT_ALL:
		o->gc_all = true;
		return 0;
	case OPT_ALL_USERS:
		o->gc_all_users = true;
		return 0;
	case OPT_PULLED_IMAGES:
		o->gc_pulled_images = true;
		return 0;
	case OPT_OLDER_THAN:
		return parse_age(from, val, &o->gc_older_than_s, err);
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
		/* The parser acts on these itself (options.c's parse_argv). */
		return 0;
	default:
		return error_set(err, ERR_USAGE, 0, "internal: %s is not a general option", from);
	}
}

const struct option_slice general_option_slice = OPTION_SLICE(general_rows, general_option_apply);

#include <criterion/criterion.h>
#include <string.h>

#include "orchestrator/sweep_options.h"

#define ARGC(a) ((int)(sizeof(a) / sizeof((a)[0])))

Test(sweep_options, sweep_options_are_taken_run_options_forwarded_in_order)
{
	struct sweep_options o;
	struct error err;
	char *argv[] = { "sweep", "--image", "a:1", "--archive=/lib", "--image=b:2", "--timeout",
			 "60", "--label", "nightly", "-e", "--label=x", "--yes", "--gpus", "0,2",
			 "--retry-failed", "1", "--format", "json", "--fail-on", "new,flaky",
			 "--workdir", "/w" };

	sweep_options_init(&o);
	cr_assert_eq(sweep_options_parse(&o, ARGC(argv), argv, &err), 0, "%s", err.msg);
	cr_assert_eq(o.images.n, 2);
	cr_assert_str_eq(o.images.v[1], "b:2");
	cr_assert_str_eq(o.archives.v[0], "/lib");
	cr_assert_str_eq(o.label, "nightly");
	cr_assert_eq(o.n_gpus, 2);
	cr_assert_eq(o.gpus[1], 2);
	cr_assert_eq(o.retry_failed, 1);
	cr_assert(o.json);
	cr_assert(o.fail_on & SWEEP_STATUS_BIT(ST_NEW));
	cr_assert(o.fail_on & SWEEP_STATUS_BIT(ST_REGRESSED), "the default set stays");
	cr_assert_eq(o.run_args.n, 6, "--timeout 60 -e --label=x --yes --workdir=/w");
	cr_assert_str_eq(o.run_args.v[0], "--timeout");
	cr_assert_str_eq(o.run_args.v[1], "60");
	cr_assert_str_eq(o.run_args.v[3], "--label=x", "an -e value is never a sweep option");
	cr_assert_str_eq(o.run_args.v[4], "--yes");
	cr_assert_str_eq(o.run_args.v[5], "--workdir=/w");
	sweep_options_release(&o);
}

static void refused(char *opt, char *val, const char *expect)
{
	struct sweep_options o;
	struct error err;
	char *argv[] = { "sweep", opt, val };

	sweep_options_init(&o);
	cr_assert_eq(sweep_options_parse(&o, val ? 3 : 2, argv, &err), -1, "%s", opt);
	cr_assert_eq(err.kind, ERR_USAGE);
	cr_assert(strstr(err.msg, expect), "%s", err.msg);
	sweep_options_release(&o);
}

Test(sweep_options, what_a_sweep_refuses)
{
	refused("--gpu", "1", "--gpus");
	refused("-o", "x", "--summary");
	refused("--label", "a/b", "--label");
	refused("--jobs", "0", "--jobs");
	refused("--fail-on", "new,nope", "nope");
	refused("--shard", "2/2", "--shard");
	refused("--slurm", NULL, "Slurm");
	refused("--format", "xml", "--format");
}

Test(sweep_options, history_and_prune)
{
	struct history_options o;
	struct error err;
	char *a1[] = { "history", "--label", "n", "--case=lib/pid-1", "--last", "3", "--format",
		       "json" };
	char *a2[] = { "history", "prune", "--keep", "2" };
	char *a3[] = { "history", "prune" };

	history_options_init(&o);
	cr_assert_eq(history_options_parse(&o, 8, a1, &err), 0, "%s", err.msg);
	cr_assert_str_eq(o.case_name, "lib/pid-1");
	cr_assert_eq(o.last, 3);
	cr_assert(o.json && !o.prune);
	history_options_release(&o);
	cr_assert_eq(history_options_parse(&o, 4, a2, &err), 0, "%s", err.msg);
	cr_assert(o.prune);
	cr_assert_eq(o.keep, 2);
	history_options_release(&o);
	cr_assert_eq(history_options_parse(&o, 2, a3, &err), -1);
	cr_assert(strstr(err.msg, "--keep"), "%s", err.msg);
	history_options_release(&o);
}

#include <criterion/criterion.h>
#include <string.h>

#include "common/cleanup.h"
#include "orchestrator/cli/options.h"
#include "orchestrator/cli/options_table.h"
#include "orchestrator/cli/sweep_runopts_json.h"
#include "tests/support/env_none.h"

static const char *image_env(const char *name, void *ud)
{
	(void)ud;
	return !strcmp(name, "HRR_DOCKER_IMAGE") ? "env:img" : NULL;
}

#define PARSE(o, env, ...)                                                                 \
	({                                                                                 \
		char *argv_[] = { "hrr-docker-replay", __VA_ARGS__ };                    \
		options_parse((o), (int)(sizeof(argv_) / sizeof(argv_[0])), argv_, (env), \
			      NULL, NULL, &err);                                           \
	})

Test(sweep_options, sweep_takes_its_options_and_every_run_option)
{
	struct options o;
	struct error err;

	options_init(&o);
	cr_assert_eq(PARSE(&o, env_none, "sweep", "--image", "a:1", "--archive=/lib", "--image=b:2",
			   "--timeout", "60", "--label", "nightly", "-e", "X=1", "--yes", "--gpus",
			   "0,2", "--retry-failed", "1", "--format", "json", "--fail-on",
			   "new,flaky", "--gpu-wait", "5"),
		     0, "%s", err.msg);
	cr_assert_eq(o.command, CMD_SWEEP);
	cr_assert_eq(o.sweep.images.n, 2);
	cr_assert_str_eq(o.sweep.images.v[1], "b:2");
	cr_assert_str_eq(o.sweep.archives.v[0], "/lib");
	cr_assert_str_eq(o.sweep.label, "nightly");
	cr_assert_eq(o.sweep.n_gpus, 2);
	cr_assert_eq(o.sweep.retry_failed, 1);
	cr_assert_eq(o.sweep.gpu_wait, 5);
	cr_assert(o.sweep.fail_on & SWEEP_STATUS_BIT(ST_NEW));
	cr_assert(o.sweep.fail_on & SWEEP_STATUS_BIT(ST_REGRESSED), "the default set stays");
	cr_assert_eq(o.timeout_s, 60);
	cr_assert(o.yes);
	cr_assert_str_eq(o.env.v[0], "X=1");
	cr_assert_eq(o.format, FORMAT_JSON);
	options_release(&o);
	cr_assert_eq(PARSE(&o, image_env, "sweep", "--archive", "/lib"), 0, "%s", err.msg);
	cr_assert_str_eq(o.sweep.images.v[0], "env:img", "HRR_DOCKER_IMAGE without --image");
	options_release(&o);
}

static void refused(const char *expect, int argc, char **argv)
{
	struct options o;
	struct error err;

	options_init(&o);
	cr_assert_eq(options_parse(&o, argc, argv, env_none, NULL, NULL, &err), -1, "%s", argv[2]);
	cr_assert_eq(err.kind, ERR_USAGE);
	cr_assert(strstr(err.msg, expect), "%s lacks %s", err.msg, expect);
	options_release(&o);
}

Test(sweep_options, what_a_sweep_refuses)
{
	char *a1[] = { "x", "sweep", "--archive", "/l", "--image", "i", "--gpu", "1" };
	char *a2[] = { "x", "sweep", "--archive", "/l", "--image", "i", "-o", "f" };
	char *a3[] = { "x", "sweep", "--archive", "/l", "--image", "i", "--label", "a/b" };
	char *a4[] = { "x", "sweep", "--archive", "/l", "--image", "i", "--fail-on", "nope" };
	char *a5[] = { "x", "sweep", "--archive", "/l", "--image", "i", "--shard", "2/2" };
	char *a6[] = { "x", "sweep" };
	char *a7[] = { "x", "sweep", "--archive", "/l" };
	char *a8[] = { "x", "run", "--archive", "/l", "--image", "i", "--label", "x" };

	refused("--gpus", 8, a1);
	refused("--summary", 8, a2);
	refused("--label", 8, a3);
	refused("nope", 8, a4);
	refused("--shard", 8, a5);
	refused("--archive PATH or --plan", 2, a6);
	refused("--image is required", 4, a7);
	refused("does not apply", 8, a8);
}

Test(sweep_options, perf_adaptive_goes_above_perf)
{
	char *a1[] = { "x", "sweep", "--archive", "/l", "--image", "i", "--perf-adaptive", "15" };
	char *a2[] = { "x", "sweep", "--archive", "/l", "--image", "i", "--perf", "5",
		       "--perf-adaptive", "5" };
	char *a3[] = { "x", "sweep", "--archive", "/l", "--image", "i", "--perf", "5",
		       "--perf-adaptive", "101" };
	char *a4[] = { "x", "run", "--archive", "/l", "--image", "i", "--perf", "5",
		       "--perf-adaptive", "15" };
	struct options o;
	struct error err;

	refused("goes with --perf N", 8, a1);
	refused("not above --perf 5", 10, a2);
	refused("above 100", 10, a3);
	refused("does not apply", 10, a4);
	options_init(&o);
	cr_assert_eq(PARSE(&o, env_none, "sweep", "--archive", "/l", "--image", "i", "--perf", "5",
			   "--perf-adaptive", "15"), 0, "%s", err.msg);
	cr_assert_eq(o.sweep.perf_adaptive, 15);
	options_release(&o);
}

Test(sweep_options, slurm_options_go_with_slurm_and_pass_sbatch_arguments_verbatim)
{
	struct options o;
	struct error err;
	char *a1[] = { "x", "sweep", "--archive", "/l", "--image", "i", "--wait" };
	char *a2[] = { "x", "sweep", "--resume", "s", "--slurm", "--shard", "0/2" };
	char *a3[] = { "x", "sweep", "--merge", "s", "--status", "s" };
	char *a4[] = { "x", "sweep", "--resume", "s", "--shard-cases", "f" };

	options_init(&o);
	cr_assert_eq(PARSE(&o, env_none, "sweep", "--archive", "/l", "--image", "i", "--slurm",
			   "--slurm-opt", "--partition=mi300", "--slurm-opt=--time=1:00:00",
			   "--slurm-tasks", "16", "--slurm-max-running", "4", "--wait"),
		     0, "%s", err.msg);
	cr_assert(o.sweep.backend.name && !strcmp(o.sweep.backend.name, "slurm") && o.sweep.wait);
	cr_assert_eq(o.sweep.backend.opts.n, 2);
	cr_assert_str_eq(o.sweep.backend.opts.v[0], "--partition=mi300");
	cr_assert_str_eq(o.sweep.backend.opts.v[1], "--time=1:00:00");
	cr_assert_eq(o.sweep.backend.tasks_per_array, 16);
	cr_assert_eq(o.sweep.backend.max_running, 4);
	options_release(&o);
	refused("go with --slurm", 7, a1);
	refused("submits the shards", 7, a2);
	refused("separate commands", 6, a3);
	refused("goes with --shard", 6, a4);
}

Test(sweep_options, history_and_prune)
{
	struct options o;
	struct error err;

	options_init(&o);
	cr_assert_eq(PARSE(&o, env_none, "history", "--label", "n", "--case=lib/pid-1", "--last", "3"),
		     0, "%s", err.msg);
	cr_assert_eq(o.command, CMD_HISTORY);
	cr_assert_str_eq(o.sweep.case_name, "lib/pid-1");
	cr_assert_eq(o.sweep.last, 3);
	cr_assert_null(o.sweep.history_action);
	options_release(&o);
	cr_assert_eq(PARSE(&o, env_none, "history", "prune", "--keep", "2"), 0, "%s", err.msg);
	cr_assert_str_eq(o.sweep.history_action, "prune");
	cr_assert_eq(o.sweep.keep, 2);
	options_release(&o);
	cr_assert_eq(PARSE(&o, env_none, "history", "prune"), -1);
	cr_assert(strstr(err.msg, "--keep"), "%s", err.msg);
	options_release(&o);
}

Test(sweep_options, run_options_round_trip_through_plan_json)
{
	struct options a, b;
	struct error err;
	cJSON *j;

	options_init(&a);
	options_init(&b);
	cr_assert_eq(PARSE(&a, env_none, "sweep", "--archive", "/l", "--image", "i", "--timeout", "7",
			   "-e", "A=1", "--extra-ld", "/x:/y", "--skip-preflight", "--pull", "never",
			   "--diagnose", "all", "--diagnose-timeout", "5", "--memory", "64m",
			   "--seccomp", "unconfined", "--as-root", "--log-limit", "7m",
			   "--devices", "cdi"),
		     0, "%s", err.msg);
	j = sweep_runopts_to_json(&a, true);
	cr_assert_eq(sweep_runopts_from_json(&b, j, &err), 0);
	cJSON_Delete(j);
	cr_assert_eq(b.timeout_s, 7);
	cr_assert_str_eq(b.env.v[0], "A=1");
	cr_assert_eq(b.extra_ld.n, 2);
	cr_assert(b.skip_preflight);
	cr_assert_eq(b.pull, PULL_NEVER);
	cr_assert_eq(b.diagnose, DIAGNOSE_ALL, "--diagnose reaches a resumed sweep's workers");
	cr_assert_eq(b.diagnose_timeout_s, 5);
	cr_assert_eq(b.memory_bytes, 64LL << 20, "--memory reaches a Slurm task");
	cr_assert_eq(b.seccomp.mode, SECCOMP_MODE_UNCONFINED, "--seccomp reaches a Slurm task");
	cr_assert(b.as_root, "--as-root reaches a Slurm task");
	cr_assert_eq(b.log_limit_bytes, 7LL << 20);
	cr_assert_eq(b.devices, DEVICES_CDI, "--devices reaches a sweep's Slurm tasks");
	options_release(&a);
	options_release(&b);
}

/* A run option added to the option table is carried to Slurm tasks and
 * --resume (a line in sweep_runopts_json.c), or listed there as one
 * invocation's. */
Test(sweep_options, every_run_option_is_carried_or_said_not_to_be)
{
	for (size_t i = 0; i < option_count(); i++) {
		const struct option_def *d = option_at(i);
		bool per_invocation = false;

		if (!(d->commands & (FOR_RUN | FOR_PREFLIGHT)))
			continue;
		for (const int *p = sweep_runopts_per_invocation; *p; p++)
			per_invocation |= *p == (int)d->id;
		cr_expect(sweep_runopts_carries((int)d->id) != per_invocation,
			  "--%s: carry it in orchestrator/cli/sweep_runopts_json.c's table, or list it "
			  "as one invocation's (not both)", d->name);
	}
}

Test(sweep_options, records_others_read_carry_env_none_values)
{
	struct options a, b;
	struct error err;
	cleanup_free char *shown = NULL, *old = NULL;
	cJSON *j;

	options_init(&a);
	options_init(&b);
	cr_assert_eq(PARSE(&a, env_none, "sweep", "--archive", "/l", "--image", "i", "-e",
			   "HF_TOKEN=secret123", "-e", "A=1"), 0, "%s", err.msg);
	j = sweep_runopts_to_json(&a, false);
	shown = cJSON_PrintUnformatted(j);
	cr_assert_null(strstr(shown, "secret123"), "%s", shown);
	cr_assert(strstr(shown, "\"env_names\":[\"HF_TOKEN\",\"A\"]"), "%s", shown);
	strvec_push(&b.env, "KEEP=1");
	cr_assert_eq(sweep_runopts_from_json(&b, j, &err), 0);
	cr_assert_eq(b.env.n, 1, "a redacted record leaves the env as it is");
	cJSON_Delete(j);
	old = sweep_runopts_redact_text("{\"env\":[\"HF_TOKEN=secret123\"],\"timeout_s\":5}");
	cr_assert_null(strstr(old, "secret123"), "%s", old);
	cr_assert(strstr(old, "HF_TOKEN") && strstr(old, "\"timeout_s\":5"), "%s", old);
	options_release(&a);
	options_release(&b);
}

static const char *budget_env(const char *name, void *ud)
{
	(void)ud;
	return !strcmp(name, "HRR_IMAGE_BUDGET") ? "500m" : NULL;
}

/* --image-budget: binary units as --log-limit's, its env twin when not
 * given, refused below 6m or malformed. */
Test(sweep_options, image_budget_sizes_and_env_twin)
{
	struct options o;
	struct error err;

	options_init(&o);
	cr_assert_eq(PARSE(&o, env_none, "sweep", "--image", "a:1", "--archive", "/lib"), 0,
		     "%s", err.msg);
	cr_assert_eq(o.sweep.image_budget, 0, "no budget by default");
	options_release(&o);
	cr_assert_eq(PARSE(&o, env_none, "sweep", "--image", "a:1", "--archive", "/lib",
			   "--image-budget", "40g"), 0, "%s", err.msg);
	cr_assert_eq(o.sweep.image_budget, 40LL << 30);
	options_release(&o);
	cr_assert_eq(PARSE(&o, budget_env, "sweep", "--image", "a:1", "--archive", "/lib"), 0,
		     "%s", err.msg);
	cr_assert_eq(o.sweep.image_budget, 500LL << 20, "HRR_IMAGE_BUDGET");
	options_release(&o);
	cr_assert_eq(PARSE(&o, env_none, "sweep", "--image", "a:1", "--archive", "/lib",
			   "--image-budget", "1m"), -1);
	cr_assert(strstr(err.msg, "--image-budget"), "%s", err.msg);
	options_release(&o);
	cr_assert_eq(PARSE(&o, env_none, "sweep", "--image", "a:1", "--archive", "/lib",
			   "--image-budget", "2x"), -1);
	options_release(&o);
}

/* gc --pulled-images [--older-than AGE] [--dry-run]; the two others alone
 * are usage errors. */
Test(sweep_options, gc_pulled_images_ages_and_dry_run)
{
	struct options o;
	struct error err;

	options_init(&o);
	cr_assert_eq(PARSE(&o, env_none, "gc", "--pulled-images", "--older-than", "7d",
			   "--dry-run"), 0, "%s", err.msg);
	cr_assert(o.gc_pulled_images);
	cr_assert_eq(o.gc_older_than_s, 7 * 86400);
	cr_assert(o.sweep.dry_run);
	options_release(&o);
	cr_assert_eq(PARSE(&o, env_none, "gc", "--pulled-images", "--older-than", "90"), 0,
		     "%s", err.msg);
	cr_assert_eq(o.gc_older_than_s, 90);
	options_release(&o);
	cr_assert_eq(PARSE(&o, env_none, "gc", "--pulled-images", "--older-than", "3w"), -1);
	options_release(&o);
	cr_assert_eq(PARSE(&o, env_none, "gc", "--dry-run"), -1);
	cr_assert(strstr(err.msg, "--pulled-images"), "%s", err.msg);
	options_release(&o);
}

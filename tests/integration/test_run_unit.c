/* The replay unit without the CLI: what a sweep, a Slurm task or a
 * debugger run will call. Two replays in one process on the two fake GPUs
 * of tests/fixtures/sysfs/mi300x-2, and two forked workers at once. */
#include <criterion/criterion.h>
#include <curl/curl.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "orchestrator/replay/replay_json.h"
#include "orchestrator/replay/replay_unit.h"
#include "tests/support/run_support.h"

static void unit_init(void)
{
	curl_global_init(CURL_GLOBAL_DEFAULT);
	tenv_init();
}

TestSuite(run_unit, .init = unit_init, .fini = tenv_fini, .timeout = 120);

static int open_host(struct replay_host *h)
{
	struct replay_host_config cfg = {
		.workdir = tenv.workdir, .device_root = tenv.devroot, .sysfs_root = tenv.sysfs,
		.need_gpu = true, .verbosity = -1,
	};
	struct replay_failure f = { 0 };

	return replay_host_open(h, &cfg, &f);
}

static int pin_image(struct replay_host *h, struct image_facts *img)
{
	struct error err;

	memset(img, 0, sizeof(*img));
	return image_ensure(h->engine, SIM_IMAGE, PULL_NEVER, NULL, -1, img, &err);
}

/* What a caller reads and chooses before a replay, once: the capture's
 * manifest and its GPU (both outlive the description). */
struct caller_choice {
	struct capture_manifest cap;
	struct gpu_choice gpus;
};

static void describe(struct replay_desc *d, struct caller_choice *c, const struct replay_host *h,
		     const struct image_facts *img, const char *pid_dir, const int *gpu)
{
	capture_manifest_load(&c->cap, pid_dir);
	gpu_choice_named(&c->gpus, &h->topo, gpu, 1, NULL);
	replay_desc_init(d);
	d->pid_dir = pid_dir;
	d->image = img;
	d->capture = &c->cap;
	d->gpus = &c->gpus;
	d->limits.timeout_s = 60;
	d->confirm = REPLAY_CONFIRM_REFUSE;
	d->verbosity = -1;
}

static const cJSON *key(const cJSON *j, const char *k)
{
	return cJSON_GetObjectItemCaseSensitive(j, k);
}

/* run.json's GPU and the render node its container got. */
static void assert_on_gpu(const char *run_dir, int gpu, const char *render_node)
{
	cleanup_cjson cJSON *run = read_json(run_dir, "run.json");
	cleanup_free char *spec_text = NULL;

	cr_assert_not_null(run, "no run.json in %s", run_dir);
	cr_assert_eq(cJSON_GetArraySize(key(run, "gpus")), 1);
	cr_assert_eq(cJSON_GetArrayItem(key(run, "gpus"), 0)->valueint, gpu);
	spec_text = cJSON_PrintUnformatted(key(key(run, "container"), "spec"));
	cr_assert(strstr(spec_text, render_node), "GPU %d's container lacks %s: %s", gpu,
		  render_node, spec_text);
}

Test(run_unit, two_replays_in_one_process_on_two_gpus)
{
	struct replay_host host;
	struct image_facts img;
	cleanup_free char *pass_dir = fixture_pid_dir("pass");
	cleanup_free char *maf_dir = fixture_pid_dir("maf");
	static const int gpu0 = 0, gpu1 = 1;
	struct replay_desc d0, d1;
	struct caller_choice c0, c1;
	struct replay_unit_result r0, r1;
	cleanup_cjson cJSON *f0 = NULL, *f1 = NULL;

	cr_assert_eq(open_host(&host), 0);
	cr_assert_eq(pin_image(&host, &img), 0, "image %s missing: make images", SIM_IMAGE);
	describe(&d0, &c0, &host, &img, pass_dir, &gpu0);
	describe(&d1, &c1, &host, &img, maf_dir, &gpu1);
	d1.create_by_id = true; /* as a sweep does with its pinned image */

	cr_assert_eq(replay_unit_run(&host, &d0, &r0), EXIT_PASS, "%s", r0.failure.msg);
	cr_assert_eq(replay_unit_run(&host, &d1, &r1), EXIT_NOT_PASS, "%s", r1.failure.msg);

	cr_assert_eq(r0.failure.stage, REPLAY_STAGE_NONE);
	cr_assert_eq(r0.verdict.outcome, OUTCOME_PASS);
	cr_assert_eq(r1.verdict.outcome, OUTCOME_MAF);
	cr_assert_not_null(r0.run_dir);
	cr_assert_not_null(r1.run_dir);
	cr_assert_str_neq(r0.run_dir, r1.run_dir);
	cr_assert_str_neq(r0.run_id, r1.run_id);
	cr_assert_eq(r0.n_gpus, 1);
	cr_assert_eq(r0.gpus[0], 0);
	cr_assert_eq(r1.gpus[0], 1);
	cr_assert(r0.timings.exit_s >= 0 && r0.timings.wall_s >= r0.timings.exit_s);

	f0 = read_json(r0.run_dir, "finding.json");
	f1 = read_json(r1.run_dir, "finding.json");
	cr_assert_not_null(f0);
	cr_assert_not_null(f1);
	cr_assert_str_eq(key(f0, "outcome")->valuestring, "PASS");
	cr_assert_str_eq(key(f1, "outcome")->valuestring, "MAF");
	cr_assert(r1.has_verdict);
	cr_assert_eq(r1.verdict.outcome, OUTCOME_MAF);
	cr_assert_str_eq(key(replay_finding_json(r1.finding_doc), "outcome")->valuestring, "MAF",
			 "the result carries the finding the folder holds");
	cr_assert(file_exists(r0.run_dir, "replay.log") && file_exists(r1.run_dir, "replay.log"));
	cr_assert(file_exists(r0.run_dir, "preflight.md") && file_exists(r1.run_dir, "preflight.md"));
	assert_on_gpu(r0.run_dir, 0, "renderD128");
	assert_on_gpu(r1.run_dir, 1, "renderD136");
	{
		cleanup_cjson cJSON *run = read_json(r1.run_dir, "run.json");
		const cJSON *spec = key(key(run, "container"), "spec");

		cr_assert_str_eq(key(spec, "Image")->valuestring, img.id,
				 "a pinned replay is created from the image ID");
	}

	replay_unit_result_release(&r0);
	replay_unit_result_release(&r1);
	capture_manifest_release(&c0.cap);
	capture_manifest_release(&c1.cap);
	image_facts_release(&img);
	replay_host_release(&host);
}

/* A failure before the replay is a result too: the stage and the message. */
Test(run_unit, a_missing_gpu_is_a_preflight_block_with_its_stage)
{
	struct replay_host host;
	struct image_facts img;
	cleanup_free char *pass_dir = fixture_pid_dir("pass");
	static const int gpu7 = 7;
	struct replay_desc d;
	struct caller_choice c;
	struct replay_unit_result r;

	cr_assert_eq(open_host(&host), 0);
	cr_assert_eq(pin_image(&host, &img), 0);
	describe(&d, &c, &host, &img, pass_dir, &gpu7);
	cr_assert_eq(replay_unit_run(&host, &d, &r), EXIT_BLOCKED);
	cr_assert_eq(r.failure.stage, REPLAY_STAGE_PREFLIGHT);
	cr_assert_str_eq(replay_stage_name(r.failure.stage), "preflight");
	cr_assert(strstr(r.failure.msg, "GPU 7"), "%s", r.failure.msg);
	cr_assert_not(r.has_verdict);
	cr_assert_null(replay_finding_json(r.finding_doc));
	cr_assert_not_null(r.run_dir, "a blocked replay keeps its run folder (run.json)");
	cr_assert(file_exists(r.run_dir, "run.json"));
	replay_unit_result_release(&r);
	capture_manifest_release(&c.cap);
	image_facts_release(&img);
	replay_host_release(&host);
}

/* One worker process per replay, as the sweep runs them: each opens its
 * own engine connection and calls the unit once. */
static int worker(const char *pid_dir, int gpu)
{
	struct replay_host host;
	struct image_facts img;
	struct replay_desc d;
	struct caller_choice c;
	struct replay_unit_result r;
	int code;

	if (open_host(&host) != 0 || pin_image(&host, &img) != 0)
		_exit(99);
	describe(&d, &c, &host, &img, pid_dir, &gpu);
	code = replay_unit_run(&host, &d, &r);
	replay_unit_result_release(&r);
	capture_manifest_release(&c.cap);
	image_facts_release(&img);
	replay_host_release(&host);
	return code;
}

static size_t count_findings(const char *workdir)
{
	DIR *dir = opendir(workdir);
	struct dirent *de;
	size_t n = 0;

	cr_assert_not_null(dir);
	while ((de = readdir(dir))) {
		cleanup_free char *run_dir = xasprintf("%s/%s", workdir, de->d_name);

		if (de->d_name[0] != '.' && strcmp(de->d_name, "cache") &&
		    file_exists(run_dir, "finding.json"))
			n++;
	}
	closedir(dir);
	return n;
}

Test(run_unit, two_concurrent_workers_on_two_gpus_both_finish)
{
	cleanup_free char *a = fixture_pid_dir("slow");
	cleanup_free char *b = fixture_pid_dir("pass");
	pid_t pids[2];
	int status;

	fflush(NULL);
	for (int i = 0; i < 2; i++) {
		pids[i] = fork();
		cr_assert_neq(pids[i], -1);
		if (pids[i] == 0)
			_exit(worker(i ? b : a, i));
	}
	for (int i = 0; i < 2; i++) {
		cr_assert_eq(waitpid(pids[i], &status, 0), pids[i]);
		cr_assert(WIFEXITED(status), "worker %d did not exit", i);
		cr_assert_eq(WEXITSTATUS(status), EXIT_PASS, "worker %d: exit %d", i,
			     WEXITSTATUS(status));
	}
	cr_assert_eq(count_findings(tenv.workdir), 2);
}

/* `sweep --slurm` on the real single-node Slurm of tests/setup-slurm.sh
 * (docs/slurm.md): job arrays whose tasks replay on the GPUs Slurm
 * allocated, the merge job, a cancelled task's cases `missing` until
 * `--resume --slurm` runs only them, and a task cancelled mid-replay that
 * leaves no container. Real sbatch, squeue, scancel, scontrol and dockerd;
 * skipped when no cluster answers here. */
#include <criterion/criterion.h>

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "tests/support/run_support.h"
#include "tests/support/slurm_support.h"

static char sysfs4[PATH_MAX + 64], dbpath[400], library[400];

static void init(void)
{
	tenv_init_four_gpus(sysfs4, sizeof(sysfs4));
	snprintf(dbpath, sizeof(dbpath), "%s/history.sqlite", tenv.root);
	snprintf(library, sizeof(library), "%s/library", tenv.root);
}

TestSuite(slurm_sweep, .init = init, .fini = tenv_fini, .timeout = 300);

/* library/c<i>/capture.hrr/pid-4242 from a fixture. */
static void add_case(int i, const char *fixture)
{
	cleanup_free char *src = fixture_root(fixture);
	cleanup_free char *cmd = xasprintf("mkdir -p '%s/c%d' && cp -r '%s' '%s/c%d/'", library, i,
					   src, library, i);

	cr_assert_eq(system(cmd), 0, "%s", cmd);
}

/* sweep with the test's GPUs, workdir and database, plus args; the tasks
 * get HRR_LOCK_DIR through sbatch's exported environment. */
static void sweep(struct tool_run *r, const char *const *args)
{
	const char *argv[64] = { "sweep", "--workdir", tenv.workdir, "--device-root", tenv.devroot,
				 "--sysfs-root", sysfs4, "--db", dbpath, "--timeout", "120",
				 "--stop-grace", "1" };
	size_t n = 13;

	for (size_t i = 0; args[i]; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	tool_run(r, argv, NULL);
}

/* The one sweep folder under the workdir. */
static char *the_folder(void)
{
	cleanup_free char *sweeps = xasprintf("%s/sweeps", tenv.workdir);
	DIR *d = opendir(sweeps);
	struct dirent *e;
	char *out = NULL;

	cr_assert_not_null(d, "%s", sweeps);
	while ((e = readdir(d)))
		if (e->d_name[0] != '.') {
			cr_assert_null(out, "two sweep folders");
			out = xasprintf("%s/%s", sweeps, e->d_name);
		}
	closedir(d);
	cr_assert_not_null(out, "no sweep folder");
	return out;
}

/* The job id after `prefix` in what sweep printed ("submitted job array 12"). */
static char *job_after(const char *text, const char *prefix)
{
	const char *p = strstr(text, prefix);

	cr_assert_not_null(p, "no '%s' in:\n%s", prefix, text);
	p += strlen(prefix);
	return xstrndup(p, strspn(p, "0123456789"));
}

static int merge_exit(const char *folder, const char *merge)
{
	cleanup_free char *path = xasprintf("%s/slurm/merge-%s.exit", folder, merge);
	struct strbuf text = STRBUF_INIT;
	int code;

	cr_assert(read_text(path, &text), "the merge left no exit file %s", path);
	code = atoi(text.buf);
	strbuf_release(&text);
	return code;
}

static const char *str(const cJSON *j, const char *key)
{
	return cJSON_GetStringValue(cJSON_GetObjectItem(j, key));
}

/* summary.json's status of case c<i>. */
static const char *status_of(const cJSON *summary, int i)
{
	const cJSON *c;
	char want[64];

	snprintf(want, sizeof(want), "library/c%d/", i);
	cJSON_ArrayForEach(c, cJSON_GetObjectItem(summary, "cases"))
		if (!strncmp(str(c, "case"), want, strlen(want)))
			return str(c, "status");
	cr_assert_fail("no case c%d in summary.json", i);
	return NULL;
}

/* Lines of results.<job>_<task>.jsonl (parsed; caller deletes). */
static cJSON *results_of(const char *folder, const char *job, int task)
{
	cleanup_free char *path = xasprintf("%s/results.%s_%d.jsonl", folder, job, task);
	struct strbuf text = STRBUF_INIT;
	cJSON *all = cJSON_CreateArray();

	if (read_text(path, &text))
		for (char *l = strtok(text.buf, "\n"); l; l = strtok(NULL, "\n")) {
			cJSON *j = cJSON_Parse(l);

			cr_assert_not_null(j, "%s: %s", path, l);
			cJSON_AddItemToArray(all, j);
		}
	strbuf_release(&text);
	return all;
}

/* The gres index the task's output file says Slurm gave it. */
static int task_gres_index(const char *folder, const char *job, int task)
{
	cleanup_free char *path = xasprintf("%s/slurm/%s_%d.out", folder, job, task);
	struct strbuf text = STRBUF_INIT;
	const char *p;
	int idx;

	cr_assert(read_text(path, &text), "no task output %s", path);
	p = strstr(text.buf, "_GPUS=");
	cr_assert_not_null(p, "%s names no GPUs:\n%s", path, text.buf);
	idx = atoi(p + 6);
	cr_assert(p[6 + strspn(p + 6, "0123456789")] == ' ', "task %d got more than one GPU", task);
	strbuf_release(&text);
	return idx;
}

/* Every render node run.json of run_dir passed in: exactly renderD<minor>. */
static void assert_only_render_node(const char *folder, const char *run_dir, int minor)
{
	cleanup_free char *dir = xasprintf("%s/%s", folder, run_dir);
	cleanup_cjson cJSON *run = read_json(dir, "run.json");
	const cJSON *dev;
	char want[32];
	int n = 0;

	cr_assert_not_null(run, "%s: no run.json", dir);
	snprintf(want, sizeof(want), "/dri/renderD%d", minor);
	cJSON_ArrayForEach(dev, cJSON_GetObjectItem(run, "devices")) {
		const char *host = str(dev, "host");

		if (!host || !strstr(host, "renderD"))
			continue;
		n++;
		cr_assert(strstr(host, want) && !host[strstr(host, want) - host + strlen(want)],
			  "%s got %s, its task was given renderD%d", dir, host, minor);
	}
	cr_assert_eq(n, 1, "%s: %d render nodes", dir, n);
}

/* Each task's results name only cases of its shard, each replayed on the
 * render node of the gres index Slurm gave that task; returns the count. */
static int check_tasks(const char *folder, const char *job, int tasks)
{
	int total = 0;

	for (int t = 0; t < tasks; t++) {
		cleanup_cjson cJSON *res = results_of(folder, job, t);
		int minor = slurm_render_minor_of_index((unsigned)task_gres_index(folder, job, t));
		const cJSON *r;

		cr_assert_geq(minor, 128, "task %d: gres index without a render node", t);
		cJSON_ArrayForEach(r, res) {
			assert_only_render_node(folder, str(r, "run_dir"), minor);
			total++;
		}
	}
	return total;
}

/* The sweep's row in the history database (written by the merge only)
 * names the array and the merge job. */
static void assert_db_names_jobs(const char *job, const char *merge)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	char want_job[64], want_merge[64];
	const char *opts;

	cr_assert_eq(sqlite3_open_v2(dbpath, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK, "%s",
		     dbpath);
	cr_assert_eq(sqlite3_prepare_v2(db, "SELECT options FROM sweeps", -1, &st, NULL), SQLITE_OK);
	cr_assert_eq(sqlite3_step(st), SQLITE_ROW, "no sweep in the database");
	opts = (const char *)sqlite3_column_text(st, 0);
	snprintf(want_job, sizeof(want_job), "\"job\":\"%s\"", job);
	snprintf(want_merge, sizeof(want_merge), "\"merge\":\"%s\"", merge);
	cr_assert(opts && strstr(opts, want_job) && strstr(opts, want_merge), "options: %s",
		  opts ? opts : "(null)");
	cr_assert(strstr(opts, "\"backend\":{\"name\":\"slurm\",\"record\":{") &&
		  !strstr(opts, "\"slurm\":{"), "options: %s", opts);
	sqlite3_finalize(st);
	sqlite3_close(db);
}

Test(slurm_sweep, an_array_of_four_tasks_gives_every_case_one_result_on_its_own_gpu)
{
	struct tool_run r;
	cleanup_free char *folder = NULL, *job = NULL, *merge = NULL;
	cleanup_cjson cJSON *summary = NULL;
	const char *reports[] = { "summary.md", "summary.json", "junit.xml", "report.html" };

	slurm_need_cluster();
	for (int i = 1; i <= 8; i++)
		add_case(i, "pass");
	/* Four tasks, two at a time: two GPUs in use at once. */
	sweep(&r, (const char *const[]){ "--slurm", "--archive", library, "--image", SIM_IMAGE,
					 "--slurm-tasks", "4", "--slurm-max-running", "2", "--wait",
					 NULL });
	cr_assert_eq(r.status, 0, "exit %d:\n%s\n%s", r.status, r.out.buf, r.err.buf);
	job = job_after(r.out.buf, "submitted job array ");
	merge = job_after(r.out.buf, "submitted merge job ");
	folder = the_folder();
	cr_assert_eq(merge_exit(folder, merge), 0);
	for (size_t i = 0; i < sizeof(reports) / sizeof(reports[0]); i++)
		cr_assert(file_exists(folder, reports[i]), "no %s", reports[i]);
	summary = read_json(folder, "summary.json");
	cr_assert_not_null(summary);
	for (int i = 1; i <= 8; i++)
		cr_assert_str_eq(status_of(summary, i), "new", "c%d", i);
	/* Exactly one result per case, all from the four tasks. */
	cr_assert_eq(check_tasks(folder, job, 4), 8);
	cr_assert(!file_exists(folder, "results.jsonl"), "a task wrote the single-host file");
	/* Each task's images file, combined per node by the merge. */
	for (int t = 0; t < 4; t++) {
		cleanup_free char *name = xasprintf("images.%s_%d.json", job, t);

		cr_expect(file_exists(folder, name), "no %s", name);
	}
	cr_expect(!file_exists(folder, "images.json"), "a task wrote the single-host images file");
	{
		const cJSON *im = cJSON_GetArrayItem(cJSON_GetObjectItem(summary, "images"), 0);
		const cJSON *on = cJSON_GetArrayItem(cJSON_GetObjectItem(im, "nodes"), 0);

		cr_expect_geq(cJSON_GetArraySize(cJSON_GetObjectItem(summary, "image_nodes")), 1);
		cr_assert_not_null(on, "no node of %s", cJSON_Print(im));
		cr_expect_not_null(cJSON_GetStringValue(cJSON_GetObjectItem(on, "host")));
		cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(on, "kept")),
				 cJSON_GetStringValue(cJSON_GetObjectItem(im, "kept")));
	}
	assert_db_names_jobs(job, merge);
	tool_run_release(&r);
}

/* Wait for the merge job to leave the queue. */
static void wait_merge(const char *merge)
{
	cr_assert(slurm_wait_state(merge, NULL), "merge job %s did not end", merge);
}

Test(slurm_sweep, a_task_cancelled_before_it_runs_is_missing_until_resume_submits_it)
{
	struct tool_run r, again, merge_twice, status;
	cleanup_free char *folder = NULL, *job = NULL, *merge = NULL, *t2 = NULL, *job2 = NULL,
			  *merge2 = NULL, *want = NULL;
	cleanup_cjson cJSON *summary = NULL, *after = NULL, *rerun = NULL;

	slurm_need_cluster();
	for (int i = 1; i <= 8; i++)
		add_case(i, "pass");
	sweep(&r, (const char *const[]){ "--slurm", "--archive", library, "--image", SIM_IMAGE,
					 "--slurm-tasks", "4", "--slurm-opt=--hold", NULL });
	cr_assert_eq(r.status, 0, "exit %d:\n%s\n%s", r.status, r.out.buf, r.err.buf);
	job = job_after(r.out.buf, "submitted job array ");
	merge = job_after(r.out.buf, "submitted merge job ");
	folder = the_folder();
	t2 = xasprintf("%s_2", job);
	cr_assert_eq(slurm_cmd((const char *const[]){ "scancel", t2, NULL }, NULL), 0);
	cr_assert_eq(slurm_cmd((const char *const[]){ "scontrol", "release", job, NULL }, NULL), 0);
	cr_assert_eq(slurm_cmd((const char *const[]){ "scontrol", "release", merge, NULL }, NULL), 0);
	wait_merge(merge);
	/* Task 2 had plan cases 2 and 6: c3 and c7. */
	cr_assert_eq(merge_exit(folder, merge), 1, "missing cases must fail the merge");
	summary = read_json(folder, "summary.json");
	cr_assert_not_null(summary);
	for (int i = 1; i <= 8; i++)
		cr_assert_str_eq(status_of(summary, i), i == 3 || i == 7 ? "missing" : "new", "c%d",
				 i);
	cr_assert_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(summary, "exit")), 1);

	/* The merge is idempotent: again by hand, the same verdict. */
	sweep(&merge_twice, (const char *const[]){ "--merge", folder, "--format", "json", NULL });
	cr_assert_eq(merge_twice.status, 1, "%s", merge_twice.err.buf);
	rerun = read_json(folder, "summary.json");
	cr_assert_str_eq(status_of(rerun, 3), "missing");

	sweep(&again, (const char *const[]){ "--resume", folder, "--slurm", "--wait", NULL });
	cr_assert_eq(again.status, 0, "exit %d:\n%s\n%s", again.status, again.out.buf,
		     again.err.buf);
	cr_assert(strstr(again.out.buf, ": 2 case(s) needing 1 GPU(s) as 2 task(s)"),
		  "resubmitted more than the missing:\n%s", again.out.buf);
	job2 = job_after(again.out.buf, "submitted job array ");
	merge2 = job_after(again.out.buf, "submitted merge job ");
	cr_assert_eq(merge_exit(folder, merge2), 0);
	after = read_json(folder, "summary.json");
	for (int i = 1; i <= 8; i++)
		cr_assert_str_eq(status_of(after, i), "new", "c%d after the resume", i);
	cr_assert_eq(check_tasks(folder, job2, 2), 2, "the resume ran other cases");

	/* --status: both rounds, the merges' exits, Slurm's word on the jobs. */
	sweep(&status, (const char *const[]){ "--status", folder, NULL });
	cr_assert_eq(status.status, 0, "%s", status.err.buf);
	cr_assert(strstr(status.out.buf, "8 of 8 cases have a result"), "%s", status.out.buf);
	want = xasprintf("round 2: array %s (2 task(s), 1 GPU(s) each); merge %s ended with exit 0",
			 job2, merge2);
	cr_assert(strstr(status.out.buf, want), "%s", status.out.buf);
	cr_assert(strstr(status.out.buf, "ended with exit 1"), "round 1's merge: %s",
		  status.out.buf);
	cr_assert(strstr(status.out.buf, "COMPLETED"), "no squeue states: %s", status.out.buf);
	tool_run_release(&status);
	tool_run_release(&r);
	tool_run_release(&merge_twice);
	tool_run_release(&again);
}

/* Lines in every results file of the folder. */
static int results_lines(const char *folder)
{
	cleanup_free char *cmd = xasprintf("cat '%s'/results.*.jsonl 2>/dev/null | wc -l", folder);
	FILE *p = popen(cmd, "r");
	int n = 0;

	cr_assert_not_null(p);
	if (fscanf(p, "%d", &n) != 1)
		n = 0;
	pclose(p);
	return n;
}

Test(slurm_sweep, a_task_cancelled_mid_replay_leaves_no_container_and_keeps_its_results)
{
	struct tool_run r;
	cleanup_free char *folder = NULL, *job = NULL, *merge = NULL, *t1 = NULL, *cid = NULL,
			  *runs = NULL;
	cleanup_cjson cJSON *kept = NULL, *summary = NULL;
	int i;

	slurm_need_cluster();
	/* Two tasks: task 0 runs c1 and c3, task 1 runs c2 then c4, which hangs. */
	add_case(1, "pass");
	add_case(2, "pass");
	add_case(3, "pass");
	add_case(4, "hang");
	sweep(&r, (const char *const[]){ "--slurm", "--archive", library, "--image", SIM_IMAGE,
					 "--slurm-tasks", "2", NULL });
	cr_assert_eq(r.status, 0, "exit %d:\n%s\n%s", r.status, r.out.buf, r.err.buf);
	job = job_after(r.out.buf, "submitted job array ");
	merge = job_after(r.out.buf, "submitted merge job ");
	folder = the_folder();
	t1 = xasprintf("%s_1", job);
	runs = xasprintf("%s/runs", folder);
	/* Three results in, and c4's container running. */
	for (i = 0; i < 600 && results_lines(folder) < 3; i++)
		usleep(200000);
	cr_assert_eq(results_lines(folder), 3, "the three quick cases did not finish");
	cid = wait_for_tool_container(runs, 60);
	cr_assert_not_null(cid, "c4's replay never started");
	cr_assert_eq(slurm_cmd((const char *const[]){ "scancel", t1, NULL }, NULL), 0);
	wait_merge(merge);
	cr_assert_eq(count_tool_containers(runs), 0,
		     "the cancelled task left its replay's container");
	kept = results_of(folder, job, 1);
	cr_assert_eq(cJSON_GetArraySize(kept), 1, "task 1 should keep c2's result only");
	cr_assert(strstr(str(cJSON_GetArrayItem(kept, 0), "case"), "library/c2/"));
	cr_assert_eq(merge_exit(folder, merge), 1);
	summary = read_json(folder, "summary.json");
	cr_assert_str_eq(status_of(summary, 4), "missing");
	cr_assert_str_eq(status_of(summary, 2), "new");
	tool_run_release(&r);
}

/* A job whose time left (a minute) is shorter than a case's timeout (120
 * s) starts no case: its cases stay missing, and the task says why. */
Test(slurm_sweep, a_task_starts_no_case_its_time_left_cannot_hold)
{
	struct tool_run r;
	cleanup_free char *folder = NULL, *job = NULL, *merge = NULL, *out = NULL;
	cleanup_cjson cJSON *summary = NULL;
	struct strbuf text = STRBUF_INIT;

	slurm_need_cluster();
	add_case(1, "pass");
	add_case(2, "pass");
	sweep(&r, (const char *const[]){ "--slurm", "--archive", library, "--image", SIM_IMAGE,
					 "--slurm-tasks", "1", "--slurm-opt=--time=1", "--wait", NULL });
	cr_assert_eq(r.status, 1, "exit %d:\n%s\n%s", r.status, r.out.buf, r.err.buf);
	job = job_after(r.out.buf, "submitted job array ");
	merge = job_after(r.out.buf, "submitted merge job ");
	folder = the_folder();
	summary = read_json(folder, "summary.json");
	cr_assert_str_eq(status_of(summary, 1), "missing");
	cr_assert_str_eq(status_of(summary, 2), "missing");
	out = xasprintf("%s/slurm/%s_0.out", folder, job);
	cr_assert(read_text(out, &text), "%s", out);
	cr_assert(strstr(text.buf, "no more cases start"), "%s", text.buf);
	strbuf_release(&text);
	tool_run_release(&r);
}

/* Submitting from a machine without Slurm's clients: one clear error,
 * exit 5, nothing written. Needs no cluster. */
Test(slurm_sweep, without_sbatch_on_path_submitting_is_one_clear_error)
{
	struct tool_run r;
	cleanup_free char *sweeps = xasprintf("%s/sweeps", tenv.workdir);
	const char *argv[] = { "sweep", "--slurm", "--archive", library, "--image", SIM_IMAGE,
			       "--workdir", tenv.workdir, "--db", dbpath, NULL };

	add_case(1, "pass");
	tool_run(&r, argv, (const char *const[]){ "PATH=/nonexistent", NULL });
	cr_assert_eq(r.status, 5, "exit %d: %s", r.status, r.err.buf);
	cr_assert(strstr(r.err.buf, "sbatch is not on PATH"), "%s", r.err.buf);
	cr_assert_eq(strchr(r.err.buf, '\n'), r.err.buf + r.err.len - 1, "more than one line:\n%s",
		     r.err.buf);
	cr_assert_neq(access(sweeps, F_OK), 0, "a sweep folder was written");
	tool_run_release(&r);
}

/* The run.json of the one run folder under folder/runs (which also holds
 * the replay host's cache/: skipped, whatever order readdir gives). */
static cJSON *the_run_json(const char *folder)
{
	cleanup_free char *runs = xasprintf("%s/runs", folder);
	DIR *d = opendir(runs);
	struct dirent *e;
	cJSON *j = NULL;

	cr_assert_not_null(d, "%s", runs);
	while ((e = readdir(d)))
		if (!strncmp(e->d_name, "pid-", 4)) {
			cleanup_free char *dir = xasprintf("%s/%s", runs, e->d_name);

			cr_assert_null(j, "two run folders");
			j = read_json(dir, "run.json");
		}
	closedir(d);
	cr_assert_not_null(j, "no run.json under %s", runs);
	return j;
}

/* Every run option reaches a Slurm task (they were
 * dropped: no memory limit, the default profile), and the -e value
 * reaches no record others may read. */
Test(slurm_sweep, a_task_replays_with_every_run_option_of_the_sweep)
{
	struct tool_run r;
	cleanup_free char *folder = NULL, *plan_path = NULL;
	cleanup_cjson cJSON *run = NULL;
	cleanup_strbuf struct strbuf plan = STRBUF_INIT;
	const cJSON *hc, *spec;

	cleanup_free char *co = xasprintf("%s/k.hsaco", tenv.root);
	cleanup_free char *replace = xasprintf("_Z1kv=%s", co);
	const cJSON *m;
	bool copy_mounted = false, arg_passed = false;

	slurm_need_cluster();
	add_case(1, "pass");
	scratch_code_object(co, "");
	sweep(&r, (const char *const[]){ "--slurm", "--archive", library, "--image", SIM_IMAGE,
					 "--memory", "64m", "--seccomp", "unconfined", "--as-root",
					 "-e", "HF_TOKEN=hf_not_for_others", "--playback-arg",
					 "--regions-strict", "--replace-kernel", replace, "--wait",
					 NULL });
	cr_assert_eq(r.status, 0, "exit %d:\n%s\n%s", r.status, r.out.buf, r.err.buf);
	folder = the_folder();
	run = the_run_json(folder);
	spec = cJSON_GetObjectItem(cJSON_GetObjectItem(run, "container"), "spec");
	hc = cJSON_GetObjectItem(spec, "HostConfig");
	cr_assert_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(hc, "Memory")), 64.0 * 1024 * 1024,
		     "--memory reached the task");
	cr_assert_str_eq(str(cJSON_GetObjectItem(run, "seccomp"), "mode"), "unconfined");
	cr_assert_str_eq(str(spec, "User"), "0:0", "--as-root reached the task");
	cJSON_ArrayForEach(m, cJSON_GetObjectItem(spec, "Cmd"))
		arg_passed |= !strcmp(cJSON_GetStringValue(m), "--regions-strict");
	cr_assert(arg_passed, "--playback-arg reached the task");
	cJSON_ArrayForEach(m, cJSON_GetObjectItem(hc, "Mounts"))
		copy_mounted |= strstr(cJSON_GetStringValue(cJSON_GetObjectItem(m, "Source")),
				       "/kernels/") != NULL;
	cr_assert(copy_mounted, "the task mounted the sweep folder's code object");
	plan_path = xasprintf("%s/plan.json", folder);
	cr_assert(read_text(plan_path, &plan));
	cr_assert_null(strstr(plan.buf, "hf_not_for_others"), "plan.json: %s", plan.buf);
	cr_assert(strstr(plan.buf, "HF_TOKEN"), "the name is kept");
	{
		sqlite3 *db = NULL;
		sqlite3_stmt *st = NULL;
		const char *opts;

		cr_assert_eq(sqlite3_open_v2(dbpath, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
		cr_assert_eq(sqlite3_prepare_v2(db, "SELECT options FROM sweeps", -1, &st, NULL),
			     SQLITE_OK);
		cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
		opts = (const char *)sqlite3_column_text(st, 0);
		cr_assert(opts && !strstr(opts, "hf_not_for_others"), "options: %s", opts);
		sqlite3_finalize(st);
		sqlite3_close(db);
	}
	tool_run_release(&r);
}

/* A bad GPU in a cluster sweep (docs/sweep.md "Suspect GPUs"): one task
 * holds all four GPUs (--slurm-opt's --gres comes after the array's),
 * every replay on GPU 0 fails (HRR_SIM_FAIL_ON_RENDER=128, as in
 * test_sweep_gpus.c) and its retries pass on another GPU. The merge reads
 * only the results files, and now names GPU 0 suspect with its node. */
Test(slurm_sweep, the_merged_summary_names_a_gpu_whose_cases_failed_there_and_passed_elsewhere)
{
	struct tool_run r;
	cleanup_free char *folder = NULL, *md_path = NULL;
	cleanup_cjson cJSON *summary = NULL;
	cleanup_strbuf struct strbuf md = STRBUF_INIT;
	const cJSON *g, *bad = NULL, *c;
	const char *host = NULL;

	slurm_need_cluster();
	for (int i = 1; i <= 8; i++)
		add_case(i, "pass");
	sweep(&r, (const char *const[]){ "--slurm", "--archive", library, "--image", SIM_IMAGE,
					 "--slurm-tasks", "1", "--slurm-opt=--gres=gpu:4",
					 "--env", "HRR_SIM_FAIL_ON_RENDER=128", "--retry-failed", "3",
					 "--wait", NULL });
	folder = the_folder();
	summary = read_json(folder, "summary.json");
	cr_assert_not_null(summary, "no merged summary.json:\n%s\n%s", r.out.buf, r.err.buf);
	cJSON_ArrayForEach(c, cJSON_GetObjectItem(summary, "cases"))
		host = str(c, "host");
	cr_assert_not_null(host, "the results name their node");
	cJSON_ArrayForEach(g, cJSON_GetObjectItem(summary, "suspect_gpus")) {
		cr_expect_str_eq(str(g, "unique_id"), "2102120316582010921",
				 "only GPU 0 is suspect: %s", r.out.buf);
		bad = g;
	}
	cr_assert_not_null(bad, "the merge names the bad GPU:\n%s\n%s", r.out.buf, r.err.buf);
	cr_expect_str_eq(str(bad, "host"), host);
	cr_expect_eq((int)cJSON_GetNumberValue(cJSON_GetObjectItem(bad, "gpu")), 0);
	cr_expect(cJSON_IsFalse(cJSON_GetObjectItem(bad, "quarantined")));
	{
		cleanup_free char *want = xasprintf("cases failed on %s GPU 0 and passed on another "
						    "GPU", host);

		cr_expect(strstr(str(bad, "reason"), want), "%s", str(bad, "reason"));
	}
	/* Its cases failed only there: not flaky. */
	cr_expect_geq(cJSON_GetNumberValue(cJSON_GetObjectItem(cJSON_GetObjectItem(summary, "kinds"),
								"failed_only_on_suspect_gpu")), 2);
	md_path = xasprintf("%s/summary.md", folder);
	cr_assert(read_text(md_path, &md));
	cr_expect(strstr(md.buf, "## Quarantined and suspect GPUs") &&
			  strstr(md.buf, "| host | GPU | unique_id | quarantined | why |"),
		  "%s", md.buf);
	tool_run_release(&r);
}

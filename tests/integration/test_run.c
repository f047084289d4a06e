/* End to end: the binary, the real engine, the simulator image. */
#include <criterion/criterion.h>
#include <limits.h>
#include <signal.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tests/support/scratch.h"
#include "common//cleanup.h"
#include "common/strvec.h"
#include "common/xalloc.h"
#include "docker/internal.h"
#include "tests/support/run_support.h"


TestSuite(run, .init = tenv_init, .fini = tenv_fini, .timeout = 120);

/* argv for a replay of a fixture scenario, plus extra options. */
#define REPLAY_ARGS(pid_dir, ...)                                                     \
	((const char *const[]){ "--image", SIM_IMAGE, "--archive", pid_dir, "--workdir", \
				tenv.workdir, "--device-root", tenv.devroot, "--sysfs-root",    \
				tenv.sysfs, "--format", "json", "-q", __VA_ARGS__ })

static const char *str_of(const cJSON *j, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static void assert_log_has(const char *run_dir, const char *needle)
{
	cleanup_free char *path = xasprintf("%s/replay.log", run_dir);
	cleanup_strbuf struct strbuf log = STRBUF_INIT;

	cr_assert(read_text(path, &log), "no replay.log in %s", run_dir);
	cr_assert(strstr(log.buf, needle), "replay.log lacks '%s':\n%s", needle, log.buf);
}

static void assert_log_lacks(const char *run_dir, const char *needle)
{
	cleanup_free char *path = xasprintf("%s/replay.log", run_dir);
	cleanup_strbuf struct strbuf log = STRBUF_INIT;

	cr_assert(read_text(path, &log));
	cr_assert_null(strstr(log.buf, needle), "replay.log has '%s'", needle);
}

/* Replay a scenario and check the code, the outcome and what must be kept. */
static void check_scenario(const char *scenario, int want_code, const char *want_outcome,
			   const char *want_marker, const char *const *extra)
{
	cleanup_free char *pid_dir = fixture_pid_dir(scenario);
	uint64_t before = tree_hash(pid_dir);
	const char *args[32];
	const char *const *base = REPLAY_ARGS(pid_dir, NULL);
	struct tool_run r;
	cleanup_cjson cJSON *finding = NULL;
	cleanup_cjson cJSON *stdout_json = NULL;
	size_t n = 0;

	for (; base[n]; n++)
		args[n] = base[n];
	for (size_t i = 0; extra && extra[i]; i++)
		args[n++] = extra[i];
	args[n] = NULL;
	tool_run(&r, args, NULL);
	cr_assert_eq(r.status, want_code, "%s: exit %d, want %d\nstderr:\n%s", scenario, r.status,
		     want_code, r.err.buf);
	cr_assert_not_null(r.run_dir, "no 'run folder:' line:\n%s", r.err.buf);
	cr_assert(file_exists(r.run_dir, "replay.log"));
	cr_assert(file_exists(r.run_dir, "finding.md"));
	cr_assert(file_exists(r.run_dir, "preflight.md"));
	cr_assert(file_exists(r.run_dir, "run.json"));
	finding = read_json(r.run_dir, "finding.json");
	cr_assert_not_null(finding, "finding.json missing or not JSON");
	cr_assert_str_eq(str_of(finding, "outcome"), want_outcome, "%s", scenario);
	stdout_json = cJSON_Parse(r.out.buf);
	cr_assert_not_null(stdout_json, "--format json prints the finding as JSON on stdout");
	cr_assert_str_eq(str_of(stdout_json, "outcome"), want_outcome);
	if (want_marker)
		assert_log_has(r.run_dir, want_marker);
	else
		assert_log_lacks(r.run_dir, "[hrr-docker-replay]");
	cr_assert_eq(tree_hash(pid_dir), before, "the archive changed");
	cr_assert_eq(count_tool_containers(tenv.workdir), 0);
	tool_run_release(&r);
}

Test(run, pass_exits_0)
{
	check_scenario("pass", 0, "PASS", NULL, NULL);
}

Test(run, d2h_fail_exits_1)
{
	check_scenario("d2h-fail", 1, "FAIL", NULL, NULL);
}

Test(run, memory_fault_exits_1_with_abort_signal_marker)
{
	check_scenario("maf", 1, "MAF", "[hrr-docker-replay] replay killed by signal 6", NULL);
}

Test(run, fatal_api_error_exits_1)
{
	check_scenario("fatal", 1, "ABORT", NULL, NULL);
}

Test(run, crash_by_signal_exits_1_with_marker)
{
	check_scenario("crash", 1, "ABORT", "[hrr-docker-replay] replay killed by signal 11", NULL);
}

Test(run, hang_is_stopped_by_the_timeout)
{
	static const char *const extra[] = { "--timeout", "4", "--stop-grace", "2", NULL };

	check_scenario("hang", 1, "HANG", "[hrr-docker-replay] replay timed out after 4s", extra);
}

Test(run, silent_replay_is_stopped_by_the_progress_timeout)
{
	static const char *const extra[] = { "--progress-timeout", "3", "--progress-seconds",
					     "1", "--stop-grace", "1", NULL };

	check_scenario("hang", 1, "HANG",
		       "[hrr-docker-replay] replay timed out after 3s without output", extra);
}

Test(run, hang_stop_takes_no_longer_than_the_grace)
{
	cleanup_free char *pid_dir = fixture_pid_dir("hang");
	struct tool_run r;
	cleanup_cjson cJSON *run = NULL;
	const cJSON *t;

	tool_run(&r, REPLAY_ARGS(pid_dir, "--timeout", "3", "--stop-grace", "2", NULL), NULL);
	cr_assert_eq(r.status, 1, "%s", r.err.buf);
	run = read_json(r.run_dir, "run.json");
	cr_assert_not_null(run);
	t = cJSON_GetObjectItemCaseSensitive(run, "timings");
	/* Exit within timeout + grace (+ engine slack): the stop really stops. */
	cr_assert_lt(cJSON_GetObjectItemCaseSensitive(t, "exit_s")->valuedouble, 3 + 2 + 3.0);
	cr_assert_str_eq(str_of(cJSON_GetObjectItemCaseSensitive(run, "exit"), "ended_by"),
			 "timeout");
	cr_assert(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(run, "container"), "removed")));
	tool_run_release(&r);
}

/* Start a replay of a scenario in the background and return once its
 * container runs and its log has the replay's first lines, so a signal
 * sent then lands mid-replay. */
static pid_t spawn_replay_in_progress(const char *scenario, const char *grace, const char *dir)
{
	cleanup_free char *pid_dir = fixture_pid_dir(scenario);
	cleanup_free char *id = NULL;
	char cmd[600];
	pid_t pid;

	/* -v after REPLAY_ARGS' -q: the tool's own status lines reach stderr. */
	pid = tool_spawn(REPLAY_ARGS(pid_dir, "--timeout", "0", "--stop-grace", grace, "-v", NULL),
			 NULL, dir);
	id = wait_for_tool_container(tenv.workdir, 30);
	cr_assert_not_null(id, "no replay container appeared");
	snprintf(cmd, sizeof(cmd), "grep -qs 'Archive' %s/*/replay.log", tenv.workdir);
	for (int i = 0; i < 200 && system(cmd) != 0; i++)
		usleep(100000);
	return pid;
}

Test(run, interrupt_stops_the_container_and_keeps_the_log)
{
	char dir[] = "/tmp/hrr-int-XXXXXX";
	cleanup_strbuf struct strbuf err = STRBUF_INIT;
	cleanup_free char *err_path = NULL;
	cleanup_free char *run_dir = NULL;
	const char *p;
	pid_t pid;
	int status;

	cr_assert_not_null(mkdtemp(dir));
	pid = spawn_replay_in_progress("hang", "2", dir);
	kill(pid, SIGINT);
	status = tool_wait(pid, 30);
	err_path = xasprintf("%s/stderr", dir);
	read_text(err_path, &err);
	cr_assert_eq(status, 5, "interrupt exits 5:\n%s", err.buf);
	cr_assert_eq(count_tool_containers(tenv.workdir), 0, "container left after Ctrl-C");
	p = strstr(err.buf, "run folder: ");
	cr_assert_not_null(p);
	run_dir = xstrndup(p + 12, strcspn(p + 12, "\n"));
	assert_log_has(run_dir, "[HRR] Archive");
	assert_log_has(run_dir, "[hrr-docker-replay] replay interrupted by the user (SIGINT)");
	{
		cleanup_cjson cJSON *f = read_json(run_dir, "finding.json");

		cr_assert_not_null(f);
		cr_assert_str_eq(str_of(f, "outcome"), "ABORT");
	}
	unlink(err_path);
	free(err_path);
	err_path = xasprintf("%s/stdout", dir);
	unlink(err_path);
	rmdir(dir);
}

/* The `hrr-playback --info` step after the replay hangs (the fixture's
 * simulator never ends --info); with no --timeout its own bound is far off,
 * so only the interrupt can end it: at once, exit 5, its container gone. */
Test(run, interrupt_ends_a_hanging_info_step_and_removes_its_container)
{
	cleanup_free char *pid_dir = fixture_pid_dir("maf-info-hang");
	cleanup_free char *id = NULL;
	char dir[] = "/tmp/hrr-info-XXXXXX";
	char cmd[600];
	pid_t pid;
	int status, i;

	cr_assert_not_null(mkdtemp(dir));
	pid = tool_spawn(REPLAY_ARGS(pid_dir, "--timeout", "0", "--stop-grace", "2", NULL), NULL,
			 dir);
	snprintf(cmd, sizeof(cmd), "ls %s/*/diagnostics/hrr-playback-info.txt >/dev/null 2>&1",
		 tenv.workdir);
	for (i = 0; i < 600 && system(cmd) != 0; i++)
		usleep(100000);
	cr_assert_lt(i, 600, "the --info step did not begin");
	id = wait_for_tool_container(tenv.workdir, 30);
	cr_assert_not_null(id, "no --info container appeared");
	kill(pid, SIGINT);
	/* Far below the step's own bound (--timeout 0: 1800 s + the grace). */
	status = tool_wait(pid, 30);
	cr_assert_eq(status, 5, "an interrupted --info step exits 5 (%d)", status);
	cr_assert_eq(count_tool_containers(tenv.workdir), 0, "the --info container was left");
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_assert_eq(system(cmd), 0);
}

Test(run, gc_removes_what_a_killed_orchestrator_left)
{
	cleanup_free char *pid_dir = fixture_pid_dir("hang");
	char dir[] = "/tmp/hrr-gc-XXXXXX";
	cleanup_free char *id = NULL;
	struct tool_run r;
	pid_t pid;

	cr_assert_not_null(mkdtemp(dir));
	pid = tool_spawn(REPLAY_ARGS(pid_dir, "--timeout", "0", NULL), NULL, dir);
	id = wait_for_tool_container(tenv.workdir, 30);
	cr_assert_not_null(id);
	/* gc must not touch a live run. */
	tool_run(&r, (const char *const[]){ "gc", NULL }, NULL);
	cr_assert_eq(r.status, 0);
	cr_assert_eq(count_tool_containers(tenv.workdir), 1, "gc removed a live run's container");
	tool_run_release(&r);
	kill(pid, SIGKILL);
	tool_wait(pid, 10);
	cr_assert_eq(count_tool_containers(tenv.workdir), 1, "SIGKILL leaves the container (nothing can run)");
	tool_run(&r, (const char *const[]){ "gc", NULL }, NULL);
	cr_assert_eq(r.status, 0, "%s", r.err.buf);
	cr_assert(strstr(r.out.buf, "removed"), "%s", r.out.buf);
	cr_assert_eq(count_tool_containers(tenv.workdir), 0);
	tool_run_release(&r);
	{
		char path[300];

		snprintf(path, sizeof(path), "%s/stdout", dir);
		unlink(path);
		snprintf(path, sizeof(path), "%s/stderr", dir);
		unlink(path);
		rmdir(dir);
	}
}

/* ---- bad inputs: one line, the documented code ---- */

static void check_bad(const char *const *argv, const char *const *extra_env, int want,
		      const char *needle)
{
	struct tool_run r;
	bool json = false;

	for (size_t i = 0; argv[i]; i++)
		json |= !strcmp(argv[i], "json");
	tool_run(&r, argv, extra_env);
	cr_assert_eq(r.status, want, "exit %d, want %d:\n%s", r.status, want, r.err.buf);
	cr_assert(strstr(r.err.buf, needle), "stderr lacks '%s':\n%s", needle, r.err.buf);
	if (json) {
		/* --format json: the one object of a result without a finding. */
		cleanup_cjson cJSON *j = cJSON_ParseWithOpts(r.out.buf, NULL, 1);

		cr_assert_not_null(j, "stdout is not one JSON object:\n%s", r.out.buf);
		cr_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(j, "outcome")));
		cr_assert_eq(cJSON_GetObjectItemCaseSensitive(j, "exit")->valueint, want);
		cr_assert(strstr(cJSON_GetObjectItemCaseSensitive(j, "error")->valuestring, needle),
			  "%s", r.out.buf);
	} else {
		cr_assert_eq(r.out.len, 0, "markdown: nothing on stdout without a finding");
	}
	cr_assert_eq(count_tool_containers(tenv.workdir), 0);
	tool_run_release(&r);
}

Test(run, missing_archive_exits_5)
{
	check_bad(REPLAY_ARGS("/nonexistent/capture.hrr", NULL), NULL, 5, "/nonexistent/capture.hrr");
}

Test(run, pid_dir_without_events_exits_5)
{
	cleanup_free char *pid_dir = fixture_pid_dir("no-events");

	check_bad(REPLAY_ARGS(pid_dir, NULL), NULL, 5, "events.bin");
}

Test(run, bad_magic_exits_5)
{
	cleanup_free char *pid_dir = fixture_pid_dir("bad-magic");

	check_bad(REPLAY_ARGS(pid_dir, NULL), NULL, 5, "magic");
}

Test(run, absent_image_with_pull_never_exits_5)
{
	cleanup_free char *pid_dir = fixture_pid_dir("pass");
	const char *const argv[] = { "--image", "hrr-no-such-image:nope", "--archive", pid_dir,
				     "--workdir", tenv.workdir, "--device-root", tenv.devroot,
				     "--sysfs-root", tenv.sysfs, "--pull", "never", NULL };

	check_bad(argv, NULL, 5, "hrr-no-such-image:nope");
}

Test(run, image_missing_from_registry_exits_5)
{
	cleanup_free char *pid_dir = fixture_pid_dir("pass");
	const char *const argv[] = { "--image", "127.0.0.1:5000/hrr/none:missing", "--archive",
				     pid_dir, "--workdir", tenv.workdir, "--device-root", tenv.devroot,
				     "--sysfs-root", tenv.sysfs, "-q", NULL };

	check_bad(argv, NULL, 5, "127.0.0.1:5000/hrr/none:missing");
}

Test(run, registry_refusing_credentials_exits_5)
{
	cleanup_free char *pid_dir = fixture_pid_dir("pass");
	const char *const argv[] = { "--image", "127.0.0.1:5001/hrr/sim:any", "--archive", pid_dir,
				     "--workdir", tenv.workdir, "--device-root", tenv.devroot,
				     "--sysfs-root", tenv.sysfs, "-q", NULL };
	char cfg[400], dcfg[420];
	FILE *f;

	snprintf(cfg, sizeof(cfg), "%s/docker-config", tenv.root);
	mkdir(cfg, 0700);
	snprintf(dcfg, sizeof(dcfg), "%s/config.json", cfg);
	f = fopen(dcfg, "w");
	cr_assert_not_null(f);
	/* hrrtest:wrong */
	fputs("{\"auths\":{\"127.0.0.1:5001\":{\"auth\":\"aHJydGVzdDp3cm9uZw==\"}}}", f);
	fclose(f);
	snprintf(dcfg, sizeof(dcfg), "DOCKER_CONFIG=%s", cfg);
	check_bad(argv, (const char *const[]){ dcfg, NULL }, 5, "127.0.0.1:5001");
}

Test(run, engine_not_running_exits_5_without_a_run_folder)
{
	cleanup_free char *pid_dir = fixture_pid_dir("pass");
	struct tool_run r;

	tool_run(&r, REPLAY_ARGS(pid_dir, NULL),
		 (const char *const[]){ "DOCKER_HOST=unix:///tmp/hrr-no-engine.sock", NULL });
	cr_assert_eq(r.status, 5, "%s", r.err.buf);
	cr_assert(strstr(r.err.buf, "hrr-no-engine.sock"), "%s", r.err.buf);
	cr_assert_null(r.run_dir, "an engine that does not answer creates no run folder");
	tool_run_release(&r);
}

Test(run, missing_gpu_ordinal_exits_4_with_preflight_report)
{
	cleanup_free char *pid_dir = fixture_pid_dir("pass");
	struct tool_run r;
	cleanup_strbuf struct strbuf pf = STRBUF_INIT;
	cleanup_free char *path = NULL;

	tool_run(&r, REPLAY_ARGS(pid_dir, "--gpu", "7", "--skip-preflight", NULL), NULL);
	cr_assert_eq(r.status, 4, "%s", r.err.buf);
	cr_assert(strstr(r.err.buf,
			 "requested replay GPU 7 but replay environment only has 2 GPU(s) (0..1)"),
		  "%s", r.err.buf);
	cr_assert_not_null(r.run_dir);
	cr_assert(file_exists(r.run_dir, "run.json"));
	cr_assert_not(file_exists(r.run_dir, "finding.json"), "no finding before a replay");
	path = xasprintf("%s/preflight.md", r.run_dir);
	cr_assert(read_text(path, &pf));
	cr_assert(strstr(pf.buf, "requested replay GPU 7"));
	tool_run_release(&r);
}

Test(run, no_kfd_topology_exits_5)
{
	cleanup_free char *pid_dir = fixture_pid_dir("pass");
	const char *const argv[] = { "--image", SIM_IMAGE, "--archive", pid_dir, "--workdir",
				     tenv.workdir, "--device-root", tenv.devroot, "--sysfs-root",
				     "/nonexistent-sysfs", NULL };

	check_bad(argv, NULL, 5, "no AMD GPU found under /nonexistent-sysfs");
}

Test(run, usage_error_exits_64)
{
	check_bad((const char *const[]){ "--image", SIM_IMAGE, "--timeout", "soon", NULL }, NULL,
		  64, "--timeout");
}

Test(run, workdir_inside_archive_is_refused)
{
	cleanup_free char *root = fixture_root("pass");
	cleanup_free char *inside = xasprintf("%s/out", root);
	const char *const argv[] = { "--image", SIM_IMAGE, "--archive", root, "--workdir", inside,
				     "--device-root", tenv.devroot, "--sysfs-root", tenv.sysfs, NULL };
	uint64_t before = tree_hash(root);

	check_bad(argv, NULL, 64, "inside the archive");
	cr_assert_eq(tree_hash(root), before);
}

/* ---- what the container gets ---- */

static const cJSON *get(const cJSON *o, const char *k)
{
	return cJSON_GetObjectItemCaseSensitive(o, k);
}

static const cJSON *ulimit_named(const cJSON *ulimits, const char *name)
{
	const cJSON *u;

	cJSON_ArrayForEach(u, ulimits)
		if (!strcmp(str_of(u, "Name"), name))
			return u;
	cr_assert_fail("no ulimit %s", name);
	return NULL;
}

Test(run, container_spec_is_exactly_what_cli_md_says)
{
	cleanup_free char *pid_dir = fixture_pid_dir("pass");
	struct tool_run r;
	struct engine *e = NULL;
	struct error err;
	cleanup_cjson cJSON *c = NULL;
	cleanup_cjson cJSON *run = NULL;
	const cJSON *hc, *it, *cfg;
	const char *id;
	bool podman;
	int n;

	tool_run(&r, REPLAY_ARGS(pid_dir, "--keep", "--gpu", "1", NULL), NULL);
	cr_assert_eq(r.status, 0, "%s", r.err.buf);
	run = read_json(r.run_dir, "run.json");
	id = str_of(get(run, "container"), "id");
	cr_assert_not_null(id);
	cr_assert_eq(engine_open(&e, NULL, &err), 0);
	podman = !strcmp(engine_name(e), "podman");
	cr_assert_eq(engine_container_inspect_json(e, id, &c, &err), 0, "--keep keeps it: %s",
		     err.msg);
	hc = get(c, "HostConfig");
	cfg = get(c, "Config");
	n = 0;
	/* Podman's inspect names a device by the /dev node of its numbers and
	 * leaves out one without (the fake renderD136); rootless, devices are
	 * bind mounts: there, what the tool sent is checked (docs/engines.md) */
	cJSON_ArrayForEach(it, get(podman ? get(get(get(run, "container"), "spec"), "HostConfig")
				 : hc, "Devices")) {
		const char *p = str_of(it, "PathInContainer");

		cr_assert(!strcmp(p, "/dev/kfd") || !strcmp(p, "/dev/dri/renderD136"),
			  "unexpected device %s", p);
		n++;
	}
	cr_assert_eq(n, 2, "kfd + the chosen GPU's render node only");
	n = 0;
	cJSON_ArrayForEach(it, get(c, "Mounts")) {
		if (podman && !strncmp(str_of(it, "Destination"), "/dev/", 5))
			continue;
		cr_assert_str_eq(str_of(it, "Source"), pid_dir);
		cr_assert(cJSON_IsFalse(get(it, "RW")), "archive mounted read-only");
		n++;
	}
	cr_assert_eq(n, 1, "only the pid directory is mounted");
	cr_assert_str_eq(str_of(hc, "NetworkMode"), "none");
	cr_assert(cJSON_IsTrue(get(hc, "Init")));
	if (podman) {
		/* Podman stores CapDrop ALL as the list of the default
		 * capabilities and shows limits as it likes (RLIMIT_<NAME>
		 * root, none rootless): what was sent is checked */
		const cJSON *sent = get(get(get(run, "container"), "spec"), "HostConfig");

		cr_assert_gt(cJSON_GetArraySize(get(hc, "CapDrop")), 0);
		cr_assert_str_eq(cJSON_GetArrayItem(get(sent, "CapDrop"), 0)->valuestring, "ALL");
		cr_assert_eq(get(ulimit_named(get(sent, "Ulimits"), "core"), "Hard")->valueint, 0);
	} else {
		cr_assert_str_eq(cJSON_GetArrayItem(get(hc, "CapDrop"), 0)->valuestring, "ALL");
		cr_assert_str_eq(str_of(cJSON_GetArrayItem(get(hc, "Ulimits"), 0), "Name"), "core");
		cr_assert_eq(get(cJSON_GetArrayItem(get(hc, "Ulimits"), 0), "Hard")->valueint, 0);
	}
	/* rootless Podman on cgroup v1 drops it, and run.json says so */
	if (get(get(run, "orchestrator"), "engine_limits"))
		cr_assert_gt(get(get(get(get(run, "container"), "spec"), "HostConfig"), "PidsLimit")
				     ->valueint, 0);
	else
		cr_assert_gt(get(hc, "PidsLimit")->valueint, 0);
	cr_assert_not_null(str_of(get(cfg, "Labels"), "hrr-docker-replay.run"));
	cr_assert_not_null(str_of(get(cfg, "Labels"), "hrr-docker-replay.owner"));
	cr_assert_str_eq(str_of(get(cfg, "Labels"), "hrr-docker-replay.archive"), pid_dir);
	cr_assert_str_eq(str_of(get(cfg, "Labels"), "hrr-docker-replay.image"), SIM_IMAGE);
	{
		bool visible = false;

		cJSON_ArrayForEach(it, get(cfg, "Env"))
			if (!strcmp(it->valuestring, "HIP_VISIBLE_DEVICES=0"))
				visible = true;
		cr_assert(visible, "HIP_VISIBLE_DEVICES=0 for one GPU");
	}
	engine_container_remove(e, id, true, &err);
	engine_close(e);
	tool_run_release(&r);
}

Test(run, overlay_mounts_host_playback_and_orders_the_library_path)
{
	cleanup_free char *pid_dir = fixture_pid_dir("pass");
	char clr[400], rocr[400], lib[450], playback[PATH_MAX];
	char env_pb[PATH_MAX + 20], env_clr[420], env_rocr[420];
	struct tool_run r;
	FILE *f;

	cr_assert_not_null(realpath("build/sim/hrr-playback", playback));
	snprintf(clr, sizeof(clr), "%s/clr-lib", tenv.root);
	snprintf(rocr, sizeof(rocr), "%s/rocr-lib", tenv.root);
	mkdir(clr, 0755);
	mkdir(rocr, 0755);
	snprintf(lib, sizeof(lib), "%s/libamdhip64.so.7.13.0-overlay", clr);
	f = fopen(lib, "w");
	cr_assert_not_null(f);
	fclose(f);
	snprintf(env_pb, sizeof(env_pb), "HRR_PLAYBACK=%s", playback);
	snprintf(env_clr, sizeof(env_clr), "CLR_LIB=%s", clr);
	snprintf(env_rocr, sizeof(env_rocr), "ROCR_LIB=%s", rocr);
	tool_run(&r, REPLAY_ARGS(pid_dir, "--mount-clr", "-e", "HRR_SIM_REPORT=1", NULL),
		 (const char *const[]){ env_pb, env_clr, env_rocr, NULL });
	cr_assert_eq(r.status, 0, "%s", r.err.buf);
	assert_log_has(r.run_dir, "ld=/opt/hrr/lib:/opt/hrr/rocr:/opt/rocm/lib");
	{
		cleanup_cjson cJSON *run = read_json(r.run_dir, "run.json");
		const cJSON *spec = get(get(run, "container"), "spec");
		const cJSON *mounts = get(get(spec, "HostConfig"), "Mounts");
		const cJSON *m;
		int seen = 0;

		cJSON_ArrayForEach(m, mounts) {
			const char *t = str_of(m, "Target");

			cr_assert(cJSON_IsTrue(get(m, "ReadOnly")), "%s not read-only", t);
			if (!strcmp(t, "/opt/hrr/bin/hrr-playback")) {
				seen |= 1;
				cr_assert_str_eq(str_of(m, "Source"), playback);
			}
			if (!strcmp(t, "/opt/hrr/lib"))
				seen |= 2;
			if (!strcmp(t, "/opt/hrr/rocr"))
				seen |= 4;
		}
		cr_assert_eq(seen, 7, "overlay mounts missing (%d)", seen);
		cr_assert_str_eq(cJSON_GetArrayItem(get(spec, "Entrypoint"), 0)->valuestring,
				 "/opt/hrr/bin/hrr-playback");
	}
	tool_run_release(&r);
}

Test(run, multi_process_root_gets_one_folder_per_pid)
{
	cleanup_free char *root = fixture_root("multi-process");
	struct tool_run r;
	const char *p;
	int folders = 0;

	tool_run(&r, REPLAY_ARGS(root, NULL), NULL);
	cr_assert_lt(r.status, 2, "%s", r.err.buf);
	for (p = r.err.buf; (p = strstr(p, "run folder: ")); p++)
		folders++;
	cr_assert_eq(folders, 2, "%s", r.err.buf);
	{
		cleanup_cjson cJSON *f = read_json(r.run_dir, "finding.json");
		const cJSON *l;
		bool multi = false;

		cJSON_ArrayForEach(l, get(f, "labels"))
			if (!strcmp(l->valuestring, "MULTI-PROCESS"))
				multi = true;
		cr_assert(multi, "each finding is labelled MULTI-PROCESS");
	}
	tool_run_release(&r);
}

Test(run, pulls_a_missing_image_from_a_registry_and_records_its_digest)
{
	cleanup_free char *pid_dir = fixture_pid_dir("pass");
	const char *ref = "127.0.0.1:5000/hrr/sim-e2e:pull";
	struct tool_run r;
	cleanup_cjson cJSON *run = NULL;
	const cJSON *img;
	const char *digest;
	char cmd[512];

	/* A fresh copy in the registry, none in the engine. */
	snprintf(cmd, sizeof(cmd),
		 "docker tag %s %s && docker push %s >/dev/null && docker rmi %s >/dev/null",
		 SIM_IMAGE, ref, ref, ref);
	cr_assert_eq(system(cmd), 0, "could not push %s", ref);
	{
		const char *const argv[] = { "--image", ref, "--archive", pid_dir, "--workdir",
					     tenv.workdir, "--device-root", tenv.devroot, "--sysfs-root",
					     tenv.sysfs, "--format", "json", NULL };

		tool_run(&r, argv, NULL);
	}
	cr_assert_eq(r.status, 0, "%s", r.err.buf);
	cr_assert(strstr(r.err.buf, "pull"), "pull progress is shown:\n%s", r.err.buf);
	run = read_json(r.run_dir, "run.json");
	img = cJSON_GetObjectItemCaseSensitive(run, "image");
	cr_assert(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(img, "pulled")));
	digest = str_of(img, "digest");
	cr_assert(digest && !strncmp(digest, "127.0.0.1:5000/hrr/sim-e2e@sha256:", 34),
		  "digest %s", digest ? digest : "(none)");
	cr_assert_not_null(str_of(img, "id"));
	tool_run_release(&r);
	snprintf(cmd, sizeof(cmd), "docker rmi %s >/dev/null 2>&1", ref);
	cr_assert_eq(system(cmd), 0, "the pulled image is present");
}

Test(run, gc_removes_probe_containers_only_once_they_are_stale)
{
	struct engine *e = NULL;
	struct error err;
	cleanup_free char *id = NULL;
	struct tool_run r;

	cr_assert_eq(engine_open(&e, NULL, &err), 0, "%s", err.msg);
	id = create_probe_like(e);
	tool_run(&r, (const char *const[]){ "gc", NULL }, NULL);
	cr_assert_eq(r.status, 0, "%s", r.err.buf);
	tool_run_release(&r);
	cr_assert_eq(engine_container_inspect(e, id, NULL, &err), 0,
		     "a fresh probe may belong to a live run: kept");
	tool_run(&r, (const char *const[]){ "gc", NULL },
		 (const char *const[]){ "HRR_GC_PROBE_AGE=0", NULL });
	cr_assert_eq(r.status, 0, "%s", r.err.buf);
	cr_assert(strstr(r.out.buf, "image probe"), "%s", r.out.buf);
	tool_run_release(&r);
	cr_assert_eq(engine_container_inspect(e, id, NULL, &err), -1, "the stale probe is gone");
	cr_assert_eq(err.kind, ERR_NOT_FOUND);
	engine_close(e);
}

Test(run, a_replay_deaf_to_sigterm_is_killed_when_the_grace_ends)
{
	cleanup_free char *pid_dir = fixture_pid_dir("hang-unkillable");
	struct tool_run r;
	cleanup_cjson cJSON *run = NULL;
	double exit_s;

	tool_run(&r, REPLAY_ARGS(pid_dir, "--timeout", "2", "--stop-grace", "2", NULL), NULL);
	cr_assert_eq(r.status, 1, "%s", r.err.buf);
	assert_log_has(r.run_dir, "[hrr-docker-replay] replay timed out after 2s");
	run = read_json(r.run_dir, "run.json");
	exit_s = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(run, "timings"),
						  "exit_s")->valuedouble;
	cr_assert_geq(exit_s, 2 + 2 - 0.5, "SIGTERM was ignored: the whole grace passed (%.2fs)", exit_s);
	cr_assert_lt(exit_s, 2 + 2 + 3.0, "then SIGKILL ended it (%.2fs)", exit_s);
	tool_run_release(&r);
}

Test(run, a_second_interrupt_skips_the_grace)
{
	char dir[] = "/tmp/hrr-int2-XXXXXX";
	struct timespec t0, t1;
	char cmd[600];
	pid_t pid;
	int status;

	cr_assert_not_null(mkdtemp(dir));
	pid = spawn_replay_in_progress("hang-unkillable", "60", dir);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	kill(pid, SIGINT);
	/* The second SIGINT must land once the stop has begun. */
	snprintf(cmd, sizeof(cmd), "%s/stderr", dir);
	cr_assert(wait_for_text(cmd, "SIGINT received: stopping the replay", 20),
		  "the first SIGINT did not start the stop");
	cr_assert(wait_for_text(cmd, "(up to 60 s); Ctrl-C again to kill now", 5),
		  "the first SIGINT says how long the stop may take and how to cut it short");
	kill(pid, SIGINT);
	status = tool_wait(pid, 30);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	cr_assert_eq(status, 5);
	cr_assert_lt((t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9, 15.0,
		     "the second Ctrl-C did not cut the 60 s grace short");
	cr_assert_eq(count_tool_containers(tenv.workdir), 0);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_assert_eq(system(cmd), 0);
}

Test(run, image_without_playback_exits_5_suggesting_the_overlay)
{
	cleanup_free char *pid_dir = fixture_pid_dir("pass");
	const char *const argv[] = { "--image", test_image("stack-a"), "--archive", pid_dir,
				     "--workdir", tenv.workdir, "--device-root", tenv.devroot,
				     "--sysfs-root", tenv.sysfs, "-q", NULL };

	check_bad(argv, NULL, 5, "--mount-clr");
}

Test(run, output_file_holds_what_stdout_printed_in_markdown_by_default)
{
	cleanup_free char *pid_dir = fixture_pid_dir("d2h-fail");
	cleanup_free char *out = xasprintf("%s/finding-copy.md", tenv.root);
	cleanup_strbuf struct strbuf copy = STRBUF_INIT;
	const char *const argv[] = { "--image", SIM_IMAGE, "--archive", pid_dir, "--workdir",
				     tenv.workdir, "--device-root", tenv.devroot, "--sysfs-root",
				     tenv.sysfs, "-q", "-o", out, NULL };
	struct tool_run r;

	tool_run(&r, argv, NULL);
	cr_assert_eq(r.status, 1, "%s", r.err.buf);
	cr_assert(!strncmp(r.out.buf, "## HRR Triage", 13), "markdown on stdout:\n%s", r.out.buf);
	cr_assert(strstr(r.out.buf, "FAIL"));
	cr_assert(read_text(out, &copy));
	cr_assert_str_eq(copy.buf, r.out.buf, "-o PATH is what stdout printed");
	tool_run_release(&r);
}

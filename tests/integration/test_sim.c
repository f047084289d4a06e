/* The simulator image (hrr-sim:dev, `make images`) run the way a replay
 * runs it: docker-init as PID 1, no network, fake device nodes passed with
 * --device, the pid directory mounted read-only. Each scenario must end
 * with the real program's status and lines, and leave the archive
 * byte-identical. Uses the docker CLI: this tests the image, not the
 * engine client. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/strbuf.h"
#include "common/strvec.h"
#include "common/xalloc.h"
#include "tests/support/sim_run.h"

static struct strbuf devdir = STRBUF_INIT;

static void setup(void)
{
	static const unsigned minors[] = { 128 };
	const char *inspect[] = { "docker", "image", "inspect", SIM_RUN_IMAGE, NULL };
	struct sim_result r;
	struct error err = { 0 };

	sim_result_init(&r);
	cr_assert_eq(sim_run(inspect, NULL, 30, &r, &err), 0, "%s", err.msg);
	cr_assert_eq(r.status, 0, "%s is missing: run `make images`", SIM_RUN_IMAGE);
	sim_result_release(&r);
	cr_assert_eq(sim_tmpdir(&devdir, &err), 0, "%s", err.msg);
	cr_assert_eq(sim_make_device_nodes(devdir.buf, minors, 1, &err), 0, "%s", err.msg);
}

static void teardown(void)
{
	cleanup_free char *mine = xasprintf("label=%s", sim_test_label());
	const char *ps[] = { "docker", "ps", "-aq", "--filter", mine, NULL };
	struct sim_result r;
	struct error err = { 0 };

	/* a failed test may leave a detached container behind */
	sim_result_init(&r);
	if (sim_run(ps, NULL, 30, &r, &err) == 0 && r.out.len) {
		struct strvec rm = STRVEC_INIT;
		struct sim_result r2;
		char *save = NULL;

		strvec_pushv(&rm, (const char *const[]){ "docker", "rm", "-f", NULL });
		for (char *id = strtok_r(r.out.buf, "\n", &save); id; id = strtok_r(NULL, "\n", &save))
			strvec_push(&rm, id);
		sim_result_init(&r2);
		sim_run((const char *const *)rm.v, NULL, 30, &r2, &err);
		sim_result_release(&r2);
		strvec_clear(&rm);
	}
	sim_result_release(&r);
	sim_rmtree(devdir.buf);
	strbuf_release(&devdir);
}

TestSuite(sim_image, .init = setup, .fini = teardown, .timeout = 120);

/* docker run the simulator on a fixture (with the fake GPU unless
 * no_devices) and check that the archive did not change. */
static void sim_docker(struct sim_result *r, const char *fixture, bool no_devices,
		       const char *const *env, const char *const *args)
{
	char *pid = sim_fixture_pid_dir(fixture);
	struct strvec argv = STRVEC_INIT;
	struct strbuf before = STRBUF_INIT, after = STRBUF_INIT;
	struct error err = { 0 };

	cr_assert_not_null(pid, "fixture %s missing", fixture);
	cr_assert_eq(sim_tree_hash(pid, &before, &err), 0, "%s", err.msg);
	sim_docker_argv(&argv, no_devices ? NULL : devdir.buf, pid, env, args);
	sim_result_init(r);
	cr_assert_eq(sim_run((const char *const *)argv.v, NULL, 60, r, &err), 0, "%s", err.msg);
	cr_assert(!r->timed_out, "docker run timed out:\n%s", r->all.buf);
	cr_assert_eq(sim_tree_hash(pid, &after, &err), 0, "%s", err.msg);
	cr_assert_str_eq(before.buf, after.buf, "the archive %s changed", pid);
	strvec_clear(&argv);
	strbuf_release(&before);
	strbuf_release(&after);
	free(pid);
}

static void assert_line(const char *text, const char *prefix)
{
	struct strbuf line = STRBUF_INIT;

	cr_assert(sim_find_line(text, prefix, &line), "no line starting '%s' in:\n%s", prefix, text);
	strbuf_release(&line);
}

static const char *const SYNC[] = { "--sync-after-launch", NULL };

/* A scenario that gets as far as the device prints the start lines. */
static void assert_started(const struct sim_result *r)
{
	assert_line(r->out.buf, "[HRR] Archive : ");
	assert_line(r->out.buf, "[HRR] Device  : AMD Instinct MI300X (gfx942:sramecc+:xnack-)");
	assert_line(r->out.buf, "[HRR] Runtime : /opt/rocm-7.13.0/lib/libamd_comgr.so.2.8.60200");
	assert_line(r->out.buf, "[HRR]         : /opt/rocm-7.13.0/lib/libamdhip64.so.7.13.0-abc123");
}

static void scenario(const char *fixture, int status, const char *stream, const char *prefix)
{
	struct sim_result r;
	struct strbuf last = STRBUF_INIT;

	sim_docker(&r, fixture, false, NULL, SYNC);
	cr_assert_eq(r.status, status, "%s: status %d, want %d\n%s", fixture, r.status, status,
		     r.all.buf);
	if (status != 1 || strcmp(fixture, "version-mismatch") != 0)
		assert_started(&r);
	assert_line(strcmp(stream, "out") == 0 ? r.out.buf : r.err.buf, prefix);
	if (status == 0) {
		sim_last_line(r.out.buf, &last);
		cr_assert_str_eq(last.buf, "[HRR] PASS");
	}
	strbuf_release(&last);
	sim_result_release(&r);
}

Test(sim_image, pass_exits_0)
{
	scenario("pass", 0, "out", "[HRR]   D2H checks     : 2 pass (2 exact, 0 within tol), 0 fail, 0 skipped");
}

Test(sim_image, zero_kernel_pass_exits_0)
{
	scenario("pass-zero-kernels", 0, "out", "[HRR]   Kernels launched: 0");
}

Test(sim_image, legacy_incomplete_and_two_gpu_captures_pass)
{
	scenario("legacy", 0, "out", "[HRR]   Kernels launched: 2");
	scenario("incomplete", 0, "out", "[HRR]   Kernels launched: 2");
	scenario("two-gpus", 0, "out", "[HRR]   Kernels launched: 2");
}

Test(sim_image, d2h_fail_exits_1)
{
	scenario("d2h-fail", 1, "err", "[HRR] DtoHAsync D2H FAIL seq=");
}

Test(sim_image, memory_fault_aborts_134_under_docker_init)
{
	scenario("maf", 134, "err",
		 "Memory access fault by GPU node-2 (Agent handle: 0x1) on address 0x7f91da000000. "
		 "Reason: Unknown.");
	scenario("maf-read-only", 134, "err", ":0:rocdevice.cpp:3020: Memory Fault Error [GPU index: 0, "
		 "faulting addr: 0xdeadbeef, kernel: Cijk_Alik_");
}

Test(sim_image, queue_abort_aborts_134)
{
	scenario("queue-abort", 134, "err", ":0:rocdevice.cpp            :2993: ");
}

Test(sim_image, fatal_exits_1)
{
	scenario("fatal", 1, "err", "[HRR] Replay aborted due to fatal HIP error — exiting");
}

Test(sim_image, version_mismatch_exits_1)
{
	scenario("version-mismatch", 1, "err", "[HRR] Version mismatch: file=7 reader=8");
}

Test(sim_image, crash_is_a_real_sigsegv_139)
{
	scenario("crash", 139, "out", "[HRR] All code objects pre-loaded OK.");
}

Test(sim_image, watchdog_exits_124)
{
	scenario("watchdog", 124, "err", "[HRR][WATCHDOG] GPU sync did not complete within 200 ms at: ");
}

Test(sim_image, divergence_exits_2)
{
	scenario("divergence", 2, "err", "[HRR] replay DIVERGED at recorded event seq ");
}

Test(sim_image, reports_what_the_container_got)
{
	struct sim_result r;

	sim_docker(&r, "pass", false,
		   (const char *const[]){ "HRR_SIM_REPORT=1", "HIP_VISIBLE_DEVICES=0", NULL }, SYNC);
	cr_assert_eq(r.status, 0, "%s", r.all.buf);
	assert_line(r.err.buf, "[sim] visible=0 devices=/dev/dri/renderD128 ld=/opt/rocm/lib "
		    "args=/opt/rocm/bin/hrr-playback /arch/pid-4242 --sync-after-launch");
	cr_assert(strstr(r.err.buf, " init=docker-init "), "%s", r.err.buf);
	cr_assert(strstr(r.err.buf, "[sim] kfd=yes "), "%s", r.err.buf);
	sim_result_release(&r);
}

Test(sim_image, without_devices_no_gpu_but_info_and_version_work)
{
	struct sim_result r;

	sim_docker(&r, "pass", true, NULL, SYNC);
	cr_assert_eq(r.status, 1);
	assert_line(r.err.buf, "[HRR] No GPU devices found");
	sim_result_release(&r);

	sim_docker(&r, "pass", true, NULL, (const char *const[]){ "--info", NULL });
	cr_assert_eq(r.status, 0, "%s", r.all.buf);
	assert_line(r.out.buf, "HRR Archive: /arch/pid-4242");
	assert_line(r.out.buf, "Complete:     yes (clean shutdown)");
	sim_result_release(&r);

	sim_docker(&r, "pass", true, NULL, (const char *const[]){ "--version", NULL });
	cr_assert_eq(r.status, 0);
	assert_line(r.out.buf, "hrr-playback (HIP Record & Replay)");
	sim_result_release(&r);
}

Test(sim_image, bad_archives_are_rejected)
{
	struct sim_result r;

	sim_docker(&r, "bad-magic", false, NULL, SYNC);
	cr_assert_eq(r.status, 1);
	assert_line(r.err.buf, "[HRR] Bad magic 0x45525248 in /arch/pid-4242/events.bin (expected 0x52524845)");
	sim_result_release(&r);

	sim_docker(&r, "no-events", false, NULL, SYNC);
	cr_assert_eq(r.status, 1);
	assert_line(r.err.buf, "[HRR] Cannot open /arch/pid-4242/events.bin");
	sim_result_release(&r);
}

Test(sim_image, flood_arrives_whole)
{
	struct sim_result r;
	struct strbuf last = STRBUF_INIT;

	sim_docker(&r, "flood", false, NULL, SYNC);
	cr_assert_eq(r.status, 0);
	cr_assert_geq(r.all.len, 4194304, "only %zu bytes arrived", r.all.len);
	sim_last_line(r.out.buf, &last);
	cr_assert_str_eq(last.buf, "[HRR] PASS");
	strbuf_release(&last);
	sim_result_release(&r);
}

static void docker(struct sim_result *r, const char *const *argv)
{
	struct error err = { 0 };

	sim_result_init(r);
	cr_assert_eq(sim_run(argv, NULL, 60, r, &err), 0, "%s", err.msg);
}

/* A hung replay is silent and stops at once on SIGTERM (through
 * docker-init): no handler delays it, no timer keeps it talking. */
Test(sim_image, hang_is_silent_and_stops_promptly)
{
	char *pid = sim_fixture_pid_dir("hang"), *name, *vol, *kfd, *render;
	struct sim_result r;
	struct strbuf logs = STRBUF_INIT;
	int tries;

	name = xasprintf("hrr-sim-test-hang-%d", (int)getpid());
	vol = xasprintf("%s:/arch/pid-4242:ro", pid);
	kfd = xasprintf("%s/kfd:/dev/kfd", devdir.buf);
	render = xasprintf("%s/renderD128:/dev/dri/renderD128", devdir.buf);
	docker(&r, (const char *const[]){ "docker", "run", "-d", "--init", "--name", name,
		"--label", sim_test_label(), "--network", "none",
		"--device", kfd, "--device", render, "-v", vol, SIM_RUN_IMAGE,
		"/opt/rocm/bin/hrr-playback", "/arch/pid-4242", "--sync-after-launch",
		"--progress-seconds", "30", "--verbose", NULL });
	cr_assert_eq(r.status, 0, "%s", r.all.buf);
	sim_result_release(&r);

	/* wait for the heartbeat of the first launch */
	for (tries = 0; tries < 200; tries++) {
		docker(&r, (const char *const[]){ "docker", "logs", name, NULL });
		strbuf_reset(&logs);
		strbuf_add(&logs, r.all.buf, r.all.len);
		sim_result_release(&r);
		if (strstr(logs.buf, "[HRR] Event 7: ") && strstr(logs.buf, "[HRR progress] "))
			break;
		usleep(50 * 1000);
	}
	cr_assert(strstr(logs.buf, "[HRR progress] "), "no heartbeat:\n%s", logs.buf);
	cr_assert_null(strstr(logs.buf, "[HRR] Event 8: "), "it ran past the hung launch");
	cr_assert_null(strstr(logs.buf, "Replay summary"));

	docker(&r, (const char *const[]){ "docker", "stop", "-t", "2", name, NULL });
	cr_assert_eq(r.status, 0, "%s", r.all.buf);
	cr_assert_lt(r.seconds, 1.8, "stop took %.2fs: SIGTERM did not end it", r.seconds);
	sim_result_release(&r);
	docker(&r, (const char *const[]){ "docker", "inspect", "-f", "{{.State.ExitCode}}", name, NULL });
	cr_assert_str_eq(r.out.buf, "143\n", "exit code %s (docker inspect: status %d, %s)",
			 r.out.buf, r.status, r.err.buf);
	sim_result_release(&r);
	docker(&r, (const char *const[]){ "docker", "rm", "-f", name, NULL });
	sim_result_release(&r);
	strbuf_release(&logs);
	free(render);
	free(kfd);
	free(vol);
	free(name);
	free(pid);
}

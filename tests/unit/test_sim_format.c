/* The simulator's output formats, checked on the host-built binary (no
 * engine, no root): a fake library dir and a fake /dev under a scratch
 * directory stand in for ROCm and the GPU (HRR_SIM_DEV_ROOT). The formats
 * are those docs/formats.md quotes; each is checked by parsing a line with
 * the printf format and printing it back: a byte that differs fails. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <string.h>

#include "common/strbuf.h"
#include "common/strvec.h"
#include "common/xalloc.h"
#include "orchestrator/finding/finding.h"
#include "tests/support/finding_samples.h"
#include "tests/support/sim_run.h"

#define K_ATEN "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEESt5arrayIPcLm1EEEEviT0_T1_"
#define K_CIJK "Cijk_Ailk_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT128x192x128_MI16x16x1_SN_LDSB1_AFC1_AFEM1_ASEM1_CLR1_CADS0_EPS0_GRVWA8_GRVWB8_GSUAMB_ISA942_IU1_K1_LBSPPA2048_LPA16_LPB16_MIAV1_MIWT4_3_NTn1_PGR2_PLR1_SIA3_SS1_SVW8_SK3_SKXCCM8_TLDS1_VWA8_WG32_4_1"

static struct strbuf scratch = STRBUF_INIT;

static void setup(void)
{
	static const unsigned minors[] = { 128 };
	struct error err = { 0 };

	cr_assert_eq(sim_tmpdir(&scratch, &err), 0, "%s", err.msg);
	cr_assert_eq(sim_make_host_env(scratch.buf, minors, 1, &err), 0, "%s", err.msg);
}

static void teardown(void)
{
	sim_rmtree(scratch.buf);
	strbuf_release(&scratch);
}

TestSuite(sim_format, .init = setup, .fini = teardown, .timeout = 30);

/* Run the simulator with argv (NULL-terminated, without argv[0]) in the
 * scratch environment, plus extra "K=V" (or "K" to unset) entries. */
static void run(struct sim_result *r, const char *const *args, const char *const *extra)
{
	struct strvec argv = STRVEC_INIT, env = STRVEC_INIT;
	struct error err = { 0 };

	strvec_push(&argv, sim_host_binary());
	strvec_pushv(&argv, args);
	strvec_pushf(&env, "LD_LIBRARY_PATH=%s/lib", scratch.buf);
	strvec_pushf(&env, "HRR_SIM_DEV_ROOT=%s/dev", scratch.buf);
	strvec_pushv(&env, (const char *const[]){ "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES",
		"HIP_HRR_REPLAY_PROGRESS_SECONDS", "HIP_HRR_REPLAY_PROGRESS_KERNELS",
		"HIP_HRR_REPLAY_SYNC_WATCHDOG_MS", "HIP_HRR_D2H_EXACT", "HIP_HRR_D2H_ATOL",
		"HIP_HRR_D2H_RTOL", "HIP_HRR_REPLAY_DIVERGENCE_ABORT", "HRR_SIM_SCENARIO",
		"HRR_SIM_FLOOD_BYTES", "HRR_SIM_REPORT", "HRR_SIM_JITTER", "HRR_SIM_SEED",
		"HRR_SIM_SLOWDOWN_FILE", NULL });
	if (extra)
		strvec_pushv(&env, extra);
	sim_result_init(r);
	cr_assert_eq(sim_run((const char *const *)argv.v, (const char *const *)env.v, 20, r, &err),
		     0, "%s", err.msg);
	cr_assert(!r->timed_out, "simulator timed out");
	strvec_clear(&argv);
	strvec_clear(&env);
}

static char *pid_dir(const char *fixture)
{
	char *p = sim_fixture_pid_dir(fixture);

	cr_assert_not_null(p, "fixture %s missing (run from the source tree)", fixture);
	return p;
}

/* A copy of a fixture's pid directory whose sim-scenario is replaced. */
static char *scenario_copy(const char *fixture, const char *scenario_text)
{
	char *src = pid_dir(fixture), *dst, *file;
	struct error err = { 0 };
	FILE *f;

	dst = xasprintf("%s/pid-4242", scratch.buf);
	cr_assert_eq(sim_copy_tree(src, dst, &err), 0, "%s", err.msg);
	file = xasprintf("%s/sim-scenario", dst);
	f = fopen(file, "w");
	cr_assert_not_null(f);
	fputs(scenario_text, f);
	fclose(f);
	free(file);
	free(src);
	return dst;
}

static void assert_has_line(const char *text, const char *line)
{
	struct strbuf found = STRBUF_INIT;

	cr_assert(sim_find_line(text, line, &found), "no line starting '%s' in:\n%s", line, text);
	cr_assert_str_eq(found.buf, line, "line differs:\n got: %s\nwant: %s", found.buf, line);
	strbuf_release(&found);
}

#define HEARTBEAT_FMT                                                             \
	"[HRR progress] elapsed_s=%.1f seq=%llu kernels=%zu d2h_pass=%zu "        \
	"d2h_fail=%zu d2h_attempted=%zu last=\"%s\""

/* Parse every heartbeat in text, re-render it with the real format and
 * compare; collect the last= names. Returns the number of heartbeats. */
static size_t check_heartbeats(const char *text, struct strvec *names, size_t *kernels_out)
{
	size_t n = 0;

	for (const char *l = text; l && *l;) {
		const char *nl = strchr(l, '\n');
		size_t len = nl ? (size_t)(nl - l) : strlen(l);

		if (strncmp(l, "[HRR progress] ", 15) == 0) {
			char *line = xstrndup(l, len), name[512], again[1024];
			double el;
			unsigned long long seq;
			size_t k, p, f, a;
			int pos = 0;

			cr_assert_eq(sscanf(line, "[HRR progress] elapsed_s=%lf seq=%llu kernels=%zu "
					    "d2h_pass=%zu d2h_fail=%zu d2h_attempted=%zu last=\"%n",
					    &el, &seq, &k, &p, &f, &a, &pos), 6, "%s", line);
			cr_assert(pos > 0 && line[len - 1] == '"', "%s", line);
			snprintf(name, sizeof(name), "%.*s", (int)(len - 1 - (size_t)pos), line + pos);
			snprintf(again, sizeof(again), HEARTBEAT_FMT, el, seq, k, p, f, a, name);
			cr_assert_str_eq(again, line);
			if (names)
				strvec_push(names, name);
			if (kernels_out)
				kernels_out[n] = k;
			n++;
			free(line);
		}
		l = nl ? nl + 1 : NULL;
	}
	return n;
}

Test(sim_format, heartbeat_per_kernel_count_matches_the_real_format)
{
	char *dir = pid_dir("pass");
	struct sim_result r;
	struct strvec names = STRVEC_INIT;
	size_t kernels[8] = { 0 };

	run(&r, (const char *const[]){ dir, "--progress-kernels", "1", NULL }, NULL);
	cr_assert_eq(r.status, 0, "%s", r.all.buf);
	cr_assert_eq(check_heartbeats(r.err.buf, &names, kernels), 3, "%s", r.err.buf);
	cr_assert_eq(kernels[0], 1);
	cr_assert_eq(kernels[2], 3);
	cr_assert_str_eq(names.v[0], K_ATEN); /* 98 characters: kept whole */
	cr_assert(strstr(r.err.buf, "seq=7006 kernels=1 "), "seq is the recorded sequence");
	strvec_clear(&names);
	sim_result_release(&r);
	free(dir);
}

Test(sim_format, heartbeat_shortens_long_names_to_96_dots_21)
{
	char *dir = pid_dir("pass");
	struct sim_result r;
	struct strvec names = STRVEC_INIT;
	char want[121];

	snprintf(want, sizeof(want), "%.96s...%s", K_CIJK, &K_CIJK[strlen(K_CIJK) - 21]);
	run(&r, (const char *const[]){ dir, "--progress-kernels", "1", NULL }, NULL);
	cr_assert_eq(check_heartbeats(r.err.buf, &names, NULL), 3);
	cr_assert_gt(strlen(K_CIJK), 120);
	cr_assert_eq(strlen(names.v[1]), 120);
	cr_assert_str_eq(names.v[1], want);
	strvec_clear(&names);
	sim_result_release(&r);
	free(dir);
}

Test(sim_format, name_of_120_is_kept_and_121_is_shortened)
{
	char n120[121], n121[122], want[121], *text, *dir;
	struct sim_result r;
	struct strvec names = STRVEC_INIT;

	for (int i = 0; i < 120; i++)
		n120[i] = (char)('a' + i % 26);
	n120[120] = '\0';
	snprintf(n121, sizeof(n121), "%sZ", n120);
	snprintf(want, sizeof(want), "%.96s...%s", n121, n121 + 100);
	text = xasprintf("scenario=pass\nkernels=%s,%s\n", n120, n121);
	dir = scenario_copy("pass", text);
	run(&r, (const char *const[]){ dir, "--progress-kernels", "1", NULL }, NULL);
	cr_assert_eq(check_heartbeats(r.err.buf, &names, NULL), 2, "%s", r.all.buf);
	cr_assert_str_eq(names.v[0], n120);
	cr_assert_str_eq(names.v[1], want);
	strvec_clear(&names);
	sim_result_release(&r);
	free(text);
	free(dir);
}

Test(sim_format, progress_seconds_beats_only_as_kernels_launch)
{
	char *dir = pid_dir("pass");
	struct sim_result r;

	/* A 30 s period: the first launch beats, the rest come too soon. */
	run(&r, (const char *const[]){ dir, "--progress-seconds", "30", NULL }, NULL);
	cr_assert_eq(check_heartbeats(r.err.buf, NULL, NULL), 1);
	cr_assert(strstr(r.err.buf, "[HRR progress] elapsed_s=0.0 seq=7006 kernels=1 "));
	sim_result_release(&r);

	run(&r, (const char *const[]){ dir, NULL },
	    (const char *const[]){ "HIP_HRR_REPLAY_PROGRESS_SECONDS=30", NULL });
	cr_assert_eq(check_heartbeats(r.err.buf, NULL, NULL), 1, "the env var sets the period");
	sim_result_release(&r);

	run(&r, (const char *const[]){ dir, NULL }, NULL);
	cr_assert_eq(check_heartbeats(r.err.buf, NULL, NULL), 0, "no period, no heartbeat");
	sim_result_release(&r);
	free(dir);
}

Test(sim_format, start_and_summary_lines_of_a_pass)
{
	char *dir = pid_dir("pass");
	struct sim_result r;
	struct strbuf line = STRBUF_INIT, want = STRBUF_INIT;

	run(&r, (const char *const[]){ dir, "--sync-after-launch", NULL }, NULL);
	cr_assert_eq(r.status, 0, "%s", r.all.buf);
	assert_has_line(r.out.buf, "[HRR] Archive : 13 events, 3 kernels, 3 blobs, 1 code objects");
	assert_has_line(r.out.buf, "[HRR] Device  : AMD Instinct MI300X (gfx942:sramecc+:xnack-)");
	/* the loaded libraries, sorted by loaded name, each resolved */
	strbuf_addf(&want, "[HRR] Runtime : %s/lib/libamd_comgr.so.2.8.60200", scratch.buf);
	assert_has_line(r.out.buf, want.buf);
	strbuf_reset(&want);
	strbuf_addf(&want, "[HRR]         : %s/lib/libamdhip64.so.7.13.0-abc123", scratch.buf);
	assert_has_line(r.out.buf, want.buf);
	assert_has_line(r.out.buf, "[HRR] -- Replay summary ------------------------------");
	cr_assert(sim_find_line(r.out.buf, "[HRR]   Wall time      : ", &line));
	cr_assert(strstr(line.buf, " ms"));
	assert_has_line(r.out.buf, "[HRR]   Kernels launched: 3");
	assert_has_line(r.out.buf, "[HRR]   Graphs launched : 0");
	assert_has_line(r.out.buf,
			"[HRR]   D2H checks     : 2 pass (2 exact, 0 within tol), 0 fail, 0 skipped");
	cr_assert_eq(sim_count_lines(r.out.buf, "[HRR]   GPU "), 0, "GPU times only with --timing");
	sim_last_line(r.out.buf, &line);
	cr_assert_str_eq(line.buf, "[HRR] PASS");
	sim_result_release(&r);

	run(&r, (const char *const[]){ dir, "--timing", NULL }, NULL);
	cr_assert(sim_find_line(r.out.buf, "[HRR]   GPU kernel time : ", &line));
	cr_assert(sim_find_line(r.out.buf, "[HRR]   GPU graph time  : ", &line));
	cr_assert(sim_find_line(r.out.buf, "[HRR]   GPU total time  : ", &line));
	sim_result_release(&r);
	strbuf_release(&line);
	strbuf_release(&want);
	free(dir);
}

/* --timing's GPU time (images/sim/timing.c): gpu_ms= from the archive, the
 * image's slowdown file per perf_group, seeded jitter. */
static double gpu_kernel_ms(const char *dir, const char *const *extra)
{
	struct sim_result r;
	struct strbuf line = STRBUF_INIT;
	double ms = -1;

	run(&r, (const char *const[]){ dir, "--timing", NULL }, extra);
	cr_assert(sim_find_line(r.out.buf, "[HRR]   GPU kernel time : ", &line), "%s", r.out.buf);
	cr_assert_eq(sscanf(line.buf, "[HRR]   GPU kernel time : %lf ms", &ms), 1, "%s", line.buf);
	cr_assert(sim_find_line(r.out.buf, "[HRR]   GPU total time  : ", &line));
	sim_result_release(&r);
	strbuf_release(&line);
	return ms;
}

Test(sim_format, timing_reports_a_base_a_slowdown_and_seeded_jitter)
{
	char *dir = scenario_copy("pass", "scenario=pass\ngpu_ms=40\nperf_group=hot\n");
	char *slow = xasprintf("%s/slowdown", scratch.buf);
	char *file_env = xasprintf("HRR_SIM_SLOWDOWN_FILE=%s", slow);
	const char *none[] = { "HRR_SIM_SLOWDOWN_FILE=/nonexistent", "HRR_SIM_JITTER", NULL };
	const char *slowed[] = { file_env, "HRR_SIM_JITTER", NULL };
	const char *jit1[] = { "HRR_SIM_SLOWDOWN_FILE=/nonexistent", "HRR_SIM_JITTER=0.02",
			       "HRR_SIM_SEED=7", NULL };
	const char *jit2[] = { "HRR_SIM_SLOWDOWN_FILE=/nonexistent", "HRR_SIM_JITTER=0.02",
			       "HRR_SIM_SEED=8", NULL };
	FILE *f;

	cr_assert_float_eq(gpu_kernel_ms(dir, none), 40.0, 1e-9);
	f = fopen(slow, "w");
	cr_assert_not_null(f);
	fputs("1.10 cold\n", f);
	fclose(f);
	cr_assert_float_eq(gpu_kernel_ms(dir, slowed), 40.0, 1e-9, "another group's line");
	f = fopen(slow, "a");
	fputs("1.10 hot\n", f);
	fclose(f);
	cr_assert_float_eq(gpu_kernel_ms(dir, slowed), 44.0, 1e-9);
	f = fopen(slow, "w");
	fputs("1.5\n", f);
	fclose(f);
	cr_assert_float_eq(gpu_kernel_ms(dir, slowed), 60.0, 1e-9, "a line for every archive");

	double a = gpu_kernel_ms(dir, jit1), b = gpu_kernel_ms(dir, jit1), c = gpu_kernel_ms(dir, jit2);

	cr_assert_float_eq(a, b, 1e-9, "the same seed, the same time");
	cr_assert_neq(a, c);
	cr_assert(a > 30 && a < 50 && c > 30 && c < 50, "%f %f", a, c);
	free(file_env);
	free(slow);
	free(dir);
}

Test(sim_format, zero_kernel_pass_says_zero_and_no_blobs)
{
	char *dir = pid_dir("pass-zero-kernels");
	struct sim_result r;

	run(&r, (const char *const[]){ dir, "--progress-seconds", "1", NULL }, NULL);
	cr_assert_eq(r.status, 0);
	assert_has_line(r.out.buf, "[HRR]   Kernels launched: 0");
	assert_has_line(r.out.buf,
			"[HRR]   (no D2H validation blobs in archive -- re-capture to enable)");
	cr_assert_eq(check_heartbeats(r.err.buf, NULL, NULL), 0);
	sim_result_release(&r);
	free(dir);
}

Test(sim_format, d2h_failures_in_both_formats)
{
	char *dir = pid_dir("d2h-fail");
	struct sim_result r;
	struct strbuf line = STRBUF_INIT, last = STRBUF_INIT;
	char tag[32], fit[16], again[1024];
	unsigned long long seq;
	size_t bytes, differ, total, first, bad, elems;
	unsigned got, exp;
	double pct, atol, rtol, maxd, maxrel;

	run(&r, (const char *const[]){ dir, NULL }, NULL);
	cr_assert_eq(r.status, 1);
	cr_assert_eq(sim_count_lines(r.err.buf, "[HRR] DtoH D2H FAIL seq="), 1, "%s", r.err.buf);
	cr_assert(sim_find_line(r.err.buf, "[HRR] DtoH D2H FAIL seq=", &line));
	cr_assert_eq(sscanf(line.buf, "[HRR] %31s D2H FAIL seq=%llu: %zu bytes, %zu/%zu bytes differ "
			    "(%lf%%), first@%zu (got 0x%x exp 0x%x); best fit %15[^:]: %zu/%zu "
			    "elems exceed tol (atol=%lf rtol=%lf), max|d|=%lf maxrel=%lf",
			    tag, &seq, &bytes, &differ, &total, &pct, &first, &got, &exp, fit, &bad,
			    &elems, &atol, &rtol, &maxd, &maxrel), 16, "%s", line.buf);
	snprintf(again, sizeof(again),
		 "[HRR] %s D2H FAIL seq=%llu: %zu bytes, %zu/%zu bytes differ (%.2f%%), "
		 "first@%zu (got 0x%02x exp 0x%02x); best fit %s: %zu/%zu elems exceed "
		 "tol (atol=%g rtol=%g), max|d|=%.4g maxrel=%.4g",
		 tag, seq, bytes, differ, total, pct, first, got, exp, fit, bad, elems, atol, rtol,
		 maxd, maxrel);
	cr_assert_str_eq(again, line.buf);
	cr_assert(strstr(line.buf, "(atol=0.001 rtol=0.001)"), "default tolerances");

	cr_assert(sim_find_line(r.err.buf, "[HRR] DtoHAsync D2H FAIL seq=", &line));
	cr_assert_eq(sscanf(line.buf, "[HRR] %31s D2H FAIL seq=%llu (exact): %zu bytes, %zu/%zu "
			    "bytes differ, first@%zu (got 0x%x exp 0x%x)",
			    tag, &seq, &bytes, &differ, &total, &first, &got, &exp), 8, "%s", line.buf);
	snprintf(again, sizeof(again),
		 "[HRR] %s D2H FAIL seq=%llu (exact): %zu bytes, %zu/%zu bytes differ, "
		 "first@%zu (got 0x%02x exp 0x%02x)",
		 tag, seq, bytes, differ, total, first, got, exp);
	cr_assert_str_eq(again, line.buf);

	assert_has_line(r.out.buf,
			"[HRR]   D2H checks     : 10 pass (8 exact, 2 within tol), 2 fail, 0 skipped");
	sim_last_line(r.out.buf, &last);
	cr_assert_str_eq(last.buf, "[HRR] FAIL");
	sim_result_release(&r);

	run(&r, (const char *const[]){ dir, NULL },
	    (const char *const[]){ "HIP_HRR_D2H_EXACT=1", NULL });
	cr_assert_eq(sim_count_lines(r.err.buf, "[HRR] DtoH D2H FAIL seq=7009 (exact): "), 1,
		     "%s", r.err.buf);
	sim_result_release(&r);
	strbuf_release(&line);
	strbuf_release(&last);
	free(dir);
}

Test(sim_format, verbose_names_each_event_and_launch)
{
	char *dir = pid_dir("pass");
	struct sim_result r;

	run(&r, (const char *const[]){ dir, "--verbose", NULL }, NULL);
	assert_has_line(r.err.buf, "[HRR] Event 0: hipSetDevice");
	assert_has_line(r.err.buf, "[HRR] Event 6: hipModuleLaunchKernel -> Kernel '" K_ATEN "'");
	assert_has_line(r.err.buf, "[HRR]   arg[0]: ptr 0x7f91da000000 -> 0x7f91da000000");
	cr_assert_eq(sim_count_lines(r.err.buf, "[HRR] Event "), 13);
	sim_result_release(&r);
	free(dir);
}

Test(sim_format, fatal_and_abort_lines)
{
	char *dir = pid_dir("fatal");
	struct sim_result r;

	run(&r, (const char *const[]){ dir, "--sync-after-launch", NULL }, NULL);
	cr_assert_eq(r.status, 1);
	assert_has_line(r.err.buf, "[HRR] Fatal: T4243 Event 7 (hipModuleLaunchKernel) returned 1 "
			"(invalid argument) — aborting replay");
	assert_has_line(r.err.buf, "[HRR] Replay aborted due to fatal HIP error — exiting");
	cr_assert_null(strstr(r.out.buf, "Replay summary"));
	sim_result_release(&r);

	run(&r, (const char *const[]){ dir, "--continue-on-error", NULL }, NULL);
	cr_assert_eq(r.status, 1);
	assert_has_line(r.err.buf, "[HRR] Error: T4243 Event 7 (hipModuleLaunchKernel) returned 1 "
			"(invalid argument) — continuing");
	assert_has_line(r.out.buf, "[HRR]   Events failed  : 1 (continued past each)");
	assert_has_line(r.out.buf, "[HRR] FAIL");
	sim_result_release(&r);
	free(dir);
}

Test(sim_format, memory_fault_lines_and_abort)
{
	char *dir = pid_dir("maf"), *ro = NULL;
	struct sim_result r;
	struct strbuf line = STRBUF_INIT;

	run(&r, (const char *const[]){ dir, "--sync-after-launch", NULL }, NULL);
	cr_assert(r.signaled);
	cr_assert_eq(r.status, 134);
	assert_has_line(r.err.buf, "Memory access fault by GPU node-2 (Agent handle: 0x1) on address "
			"0x7f91da000000. Reason: Unknown.");
	cr_assert(sim_find_line(r.err.buf, ":0:rocdevice.cpp:", &line));
	cr_assert(strstr(line.buf, ": Memory Fault Error [host: "), "%s", line.buf);
	cr_assert(strstr(line.buf, ", GPU index: 0, faulting addr: 0x7f91da000000, kernel: " K_CIJK "]"),
		  "%s", line.buf);
	sim_result_release(&r);

	ro = pid_dir("maf-read-only");
	run(&r, (const char *const[]){ ro, NULL }, NULL);
	cr_assert_eq(r.status, 134);
	assert_has_line(r.err.buf, "Memory access fault by GPU node-2 (Agent handle: 0x1) on address "
			"0xdeadbeef. Reason: Write access to a read-only page");
	cr_assert(sim_find_line(r.err.buf, ":0:rocdevice.cpp:", &line));
	cr_assert(strstr(line.buf, ": Memory Fault Error [GPU index: 0, faulting addr: 0xdeadbeef"));
	sim_result_release(&r);
	strbuf_release(&line);
	free(ro);
	free(dir);
}

Test(sim_format, fault_surfaces_later_without_sync_after_launch)
{
	char *copy;
	struct sim_result r;
	const char *fault, *later;

	copy = scenario_copy("hang", "scenario=maf\nfault_at=0\n");
	run(&r, (const char *const[]){ copy, "--verbose", NULL }, NULL);
	fault = strstr(r.err.buf, "Memory access fault");
	later = strstr(r.err.buf, "[HRR] Event 7:");
	cr_assert(fault && later && later < fault, "the replay moved on before the fault:\n%s",
		  r.err.buf);
	sim_result_release(&r);

	run(&r, (const char *const[]){ copy, "--verbose", "--sync-after-launch", NULL }, NULL);
	cr_assert_null(strstr(r.err.buf, "[HRR] Event 7:"), "synced: the fault stops the launch");
	cr_assert_not_null(strstr(r.err.buf, "Memory access fault"));
	sim_result_release(&r);
	free(copy);
}

Test(sim_format, queue_abort_watchdog_divergence_crash)
{
	char *dir = pid_dir("queue-abort");
	struct sim_result r;
	struct strbuf line = STRBUF_INIT;

	run(&r, (const char *const[]){ dir, NULL }, NULL);
	cr_assert_eq(r.status, 134);
	cr_assert(sim_find_line(r.err.buf, ":0:rocdevice.cpp            :2993: ", &line));
	cr_assert(strstr(line.buf, " us:  Callback: Queue 0x7f3a2c000000 aborting with error : "
			 "HSA_STATUS_ERROR_EXCEPTION: An HSAIL operation resulted in a hardware "
			 "exception. code: 0x1016 [GPU index: 0, kernel: " K_CIJK "]"), "%s", line.buf);
	sim_result_release(&r);
	free(dir);

	dir = pid_dir("watchdog");
	run(&r, (const char *const[]){ dir, NULL }, NULL);
	cr_assert_eq(r.status, 124);
	assert_has_line(r.err.buf, "[HRR][WATCHDOG] GPU sync did not complete within 200 ms at: "
			K_CIJK);
	sim_result_release(&r);
	run(&r, (const char *const[]){ dir, "--sync-watchdog-ms", "50", NULL }, NULL);
	cr_assert(strstr(r.err.buf, "within 50 ms at: "), "the option wins over the scenario");
	sim_result_release(&r);
	free(dir);

	dir = pid_dir("divergence");
	run(&r, (const char *const[]){ dir, NULL }, NULL);
	cr_assert_eq(r.status, 2);
	cr_assert(sim_find_line(r.err.buf, "[HRR] replay DIVERGED at recorded event seq ", &line));
	cr_assert(strstr(line.buf, ": 2/8 D2H validations failed "), "%s", line.buf);
	sim_result_release(&r);
	run(&r, (const char *const[]){ dir, NULL },
	    (const char *const[]){ "HIP_HRR_REPLAY_DIVERGENCE_ABORT=0", NULL });
	cr_assert_eq(r.status, 1, "guard disabled: the replay runs on and FAILs");
	sim_result_release(&r);
	free(dir);

	dir = pid_dir("crash");
	run(&r, (const char *const[]){ dir, NULL }, NULL);
	cr_assert(r.signaled);
	cr_assert_eq(r.status, 139);
	cr_assert_null(strstr(r.out.buf, "[HRR] PASS"));
	sim_result_release(&r);
	strbuf_release(&line);
	free(dir);
}

Test(sim_format, archive_rejections)
{
	char *dir = pid_dir("version-mismatch"), *root;
	struct sim_result r;
	struct strbuf want = STRBUF_INIT;

	run(&r, (const char *const[]){ dir, NULL }, NULL);
	cr_assert_eq(r.status, 1);
	assert_has_line(r.err.buf, "[HRR] Version mismatch: file=7 reader=8");
	sim_result_release(&r);
	free(dir);

	dir = pid_dir("bad-magic");
	run(&r, (const char *const[]){ dir, NULL }, NULL);
	cr_assert_eq(r.status, 1);
	strbuf_addf(&want, "[HRR] Bad magic 0x45525248 in %s/events.bin (expected 0x52524845)", dir);
	assert_has_line(r.err.buf, want.buf);
	sim_result_release(&r);
	free(dir);

	dir = pid_dir("no-events");
	run(&r, (const char *const[]){ dir, NULL }, NULL);
	cr_assert_eq(r.status, 1);
	strbuf_reset(&want);
	strbuf_addf(&want, "[HRR] Cannot open %s/events.bin", dir);
	assert_has_line(r.err.buf, want.buf);
	sim_result_release(&r);
	free(dir);

	root = sim_fixture_root("multi-process");
	run(&r, (const char *const[]){ root, NULL }, NULL);
	cr_assert_eq(r.status, 1);
	cr_assert(strstr(r.err.buf, "contains multiple process captures"));
	cr_assert_eq(sim_count_lines(r.err.buf, "[HRR]   "), 2, "both pid dirs listed");
	sim_result_release(&r);
	free(root);

	root = sim_fixture_root("pass");
	run(&r, (const char *const[]){ root, NULL }, NULL);
	cr_assert_eq(r.status, 0, "a root with one pid directory replays it");
	sim_result_release(&r);
	free(root);
	strbuf_release(&want);
}

Test(sim_format, no_gpu_and_visible_devices)
{
	char *dir = pid_dir("pass"), *copy, *dri;
	struct sim_result r;
	struct strbuf dev = STRBUF_INIT;
	FILE *f;

	strbuf_addf(&dev, "HRR_SIM_DEV_ROOT=%s/nothing", scratch.buf);
	run(&r, (const char *const[]){ dir, NULL }, (const char *const[]){ dev.buf, NULL });
	cr_assert_eq(r.status, 1);
	assert_has_line(r.err.buf, "[HRR] No GPU devices found");
	assert_has_line(r.out.buf, "[HRR] Archive : 13 events, 3 kernels, 3 blobs, 1 code objects");
	sim_result_release(&r);

	/* one GPU exposed, but the mask names a second */
	run(&r, (const char *const[]){ dir, NULL },
	    (const char *const[]){ "HIP_VISIBLE_DEVICES=1", NULL });
	cr_assert_eq(r.status, 1);
	assert_has_line(r.err.buf, "[HRR] No GPU devices found");
	sim_result_release(&r);

	/* two GPUs: the mask picks which is device 0 */
	dri = xasprintf("%s/dev/dri/renderD136", scratch.buf);
	f = fopen(dri, "w");
	cr_assert_not_null(f);
	fclose(f);
	copy = scenario_copy("pass", "scenario=pass\ndevice_arch=gfx942:sramecc+:xnack-,gfx950:sramecc+:xnack-\n");
	run(&r, (const char *const[]){ copy, NULL },
	    (const char *const[]){ "HIP_VISIBLE_DEVICES=1", NULL });
	cr_assert_eq(r.status, 0, "%s", r.all.buf);
	assert_has_line(r.out.buf, "[HRR] Device  : AMD Instinct MI300X (gfx950:sramecc+:xnack-)");
	sim_result_release(&r);
	free(dri);
	free(copy);
	strbuf_release(&dev);
	free(dir);
}

Test(sim_format, report_line_says_what_the_process_got)
{
	char *dir = pid_dir("pass");
	struct sim_result r;
	struct strbuf want = STRBUF_INIT;

	run(&r, (const char *const[]){ dir, "--sync-after-launch", NULL },
	    (const char *const[]){ "HRR_SIM_REPORT=1", "HIP_VISIBLE_DEVICES=0", NULL });
	strbuf_addf(&want, "[sim] visible=0 devices=%s/dev/dri/renderD128 ld=%s/lib args=%s %s "
		    "--sync-after-launch", scratch.buf, scratch.buf, sim_host_binary(), dir);
	assert_has_line(r.err.buf, want.buf);
	cr_assert_eq(sim_count_lines(r.out.buf, "[sim]"), 0, "never on stdout");
	sim_result_release(&r);
	run(&r, (const char *const[]){ dir, NULL }, NULL);
	cr_assert_eq(sim_count_lines(r.all.buf, "[sim]"), 0, "only when asked");
	sim_result_release(&r);
	strbuf_release(&want);
	free(dir);
}

Test(sim_format, version_help_info_need_no_gpu)
{
	char *dir = pid_dir("incomplete"), *root = sim_fixture_root("multi-process");
	struct sim_result r;
	struct strbuf dev = STRBUF_INIT, want = STRBUF_INIT;

	strbuf_addf(&dev, "HRR_SIM_DEV_ROOT=%s/nothing", scratch.buf);
	run(&r, (const char *const[]){ "--version", NULL }, (const char *const[]){ dev.buf, NULL });
	cr_assert_eq(r.status, 0);
	assert_has_line(r.out.buf, "  archive format version : 8");
	assert_has_line(r.out.buf, "  hip runtime version    : 71300000");
	sim_result_release(&r);

	run(&r, (const char *const[]){ "--help", NULL }, (const char *const[]){ dev.buf, NULL });
	cr_assert_eq(r.status, 0);
	cr_assert(strstr(r.err.buf, "Usage: "));
	sim_result_release(&r);

	run(&r, (const char *const[]){ dir, "--info", NULL }, (const char *const[]){ dev.buf, NULL });
	cr_assert_eq(r.status, 0, "%s", r.all.buf);
	strbuf_addf(&want, "HRR Archive: %s", dir);
	assert_has_line(r.out.buf, want.buf);
	assert_has_line(r.out.buf, "Complete:     NO (no shutdown trailer; capture likely crashed)");
	assert_has_line(r.out.buf, "Kernels:      2");
	cr_assert(strstr(r.out.buf, "  0    _ZN2at6native29vectorized_elementwise_kernelILi... "
			 "[304,1,1]       [256,1,1]       0\n"), "%s", r.out.buf);
	sim_result_release(&r);

	run(&r, (const char *const[]){ root, "--info", NULL }, (const char *const[]){ dev.buf, NULL });
	cr_assert_eq(r.status, 0);
	assert_has_line(r.out.buf, "Owner PID:    4242");
	assert_has_line(r.out.buf, "Processes:    2");
	sim_result_release(&r);

	run(&r, (const char *const[]){ NULL }, NULL);
	cr_assert_eq(r.status, 1, "no archive: usage and 1");
	sim_result_release(&r);
	strbuf_release(&dev);
	strbuf_release(&want);
	free(root);
	free(dir);
}

Test(sim_format, missing_hip_library_fails_like_the_loader)
{
	char *dir = pid_dir("pass");
	struct sim_result r;

	run(&r, (const char *const[]){ dir, NULL },
	    (const char *const[]){ "LD_LIBRARY_PATH=/nonexistent", NULL });
	cr_assert_eq(r.status, 127);
	cr_assert(strstr(r.err.buf, ": error while loading shared libraries: libamdhip64.so.7: "
			 "cannot open shared object file: No such file or directory"));
	sim_result_release(&r);
	free(dir);
}

Test(sim_format, repair_is_refused_and_nothing_changes)
{
	char *copy = scenario_copy("incomplete", "scenario=pass\n");
	struct sim_result r;
	struct strbuf before = STRBUF_INIT, after = STRBUF_INIT;
	struct error err = { 0 };

	cr_assert_eq(sim_tree_hash(copy, &before, &err), 0, "%s", err.msg);
	run(&r, (const char *const[]){ copy, "--repair", NULL }, NULL);
	cr_assert_eq(r.status, 1);
	cr_assert(strstr(r.err.buf, "[HRR] --repair refused"));
	sim_result_release(&r);
	run(&r, (const char *const[]){ copy, "--verbose", "--frobnicate", "--timing", NULL }, NULL);
	cr_assert_eq(r.status, 0, "unknown options are ignored");
	sim_result_release(&r);
	cr_assert_eq(sim_tree_hash(copy, &after, &err), 0, "%s", err.msg);
	cr_assert_str_eq(before.buf, after.buf, "the archive changed");
	strbuf_release(&before);
	strbuf_release(&after);
	free(copy);
}

Test(sim_format, flood_writes_the_bytes_asked_then_passes)
{
	char *dir = pid_dir("flood");
	struct sim_result r;
	struct strbuf last = STRBUF_INIT;

	run(&r, (const char *const[]){ dir, NULL },
	    (const char *const[]){ "HRR_SIM_FLOOD_BYTES=2000000", NULL });
	cr_assert_eq(r.status, 0);
	cr_assert_geq(r.all.len, 2000000);
	cr_assert_gt(sim_count_lines(r.out.buf, "[HRR] Event "), 100, "stdout carries events");
	cr_assert_gt(sim_count_lines(r.err.buf, "[HRR] Event "), 100, "stderr carries events");
	cr_assert_gt(check_heartbeats(r.err.buf, NULL, NULL) + check_heartbeats(r.out.buf, NULL, NULL),
		     10);
	sim_last_line(r.out.buf, &last);
	cr_assert_str_eq(last.buf, "[HRR] PASS");
	sim_result_release(&r);
	strbuf_release(&last);
	free(dir);
}

Test(sim_format, slow_beats_every_period_then_passes)
{
	char *dir = scenario_copy("slow", "scenario=slow\nseconds=1\ninterval=0.25\n");
	struct sim_result r;
	struct strvec names = STRVEC_INIT;
	size_t kernels[16] = { 0 }, n;

	run(&r, (const char *const[]){ dir, "--progress-seconds", "0.4", NULL }, NULL);
	cr_assert_eq(r.status, 0, "%s", r.all.buf);
	cr_assert_geq(r.seconds, 1.0, "4 launches, 0.25 s apart");
	n = check_heartbeats(r.err.buf, &names, kernels);
	cr_assert(n >= 2 && n <= 3, "%zu heartbeats:\n%s", n, r.err.buf);
	cr_assert_eq(kernels[0], 1);
	cr_assert_gt(kernels[1], kernels[0]);
	assert_has_line(r.out.buf, "[HRR]   Kernels launched: 4");
	strvec_clear(&names);
	sim_result_release(&r);
	free(dir);
}

/* Issue 29: the caveats, as upstream prints them, and what the classifier
 * makes of the simulator's output. */
static void classify_text(const char *out, const char *err, struct finding *f)
{
	struct classifier *c = classifier_new("replay.log");

	classifier_feed(c, out, strlen(out));
	classifier_feed(c, err, strlen(err));
	classifier_finish(c, f);
	finding_finalize(f, NULL);
	classifier_free(c);
}

Test(sim_format, placement_runtime_and_watchdog_launch_lines)
{
	char *dir = pid_dir("placement-maf");
	struct sim_result r;
	struct strbuf line = STRBUF_INIT;
	struct finding f;

	run(&r, (const char *const[]){ dir, NULL }, NULL);
	assert_has_line(r.err.buf, "[HRR] Placement: hipMalloc 0x7f0040000000 (4194304 bytes) not "
			"placed at its recorded address: it shares a page with live allocation "
			"0x7f003ff00000. It replays elsewhere, so a copy of its address stored in "
			"device memory is stale");
	cr_assert(sim_find_line(r.err.buf, "[HRR] Placement: from here on, replay scans", &line));
	classify_text(r.out.buf, r.err.buf, &f);
	cr_assert_eq(f.outcome, OUTCOME_MAF);
	cr_assert_eq(f.placement.n_fallbacks, 2);
	cr_assert(fs_has_note(&f, "lies inside hipMalloc 0x7f0040000000"));
	cr_assert_geq(f.runtime_libraries.n, 1, "the Runtime lines of the fake stack");
	finding_release(&f);
	sim_result_release(&r);
	free(dir);

	dir = pid_dir("placement-pass");
	run(&r, (const char *const[]){ dir, NULL }, NULL);
	assert_has_line(r.out.buf, "[HRR]   Placement      : 24 placed at capture address, 0 fell "
			"back, 3 frees deferred");
	sim_result_release(&r);
	free(dir);

	dir = pid_dir("runtime-mixed");
	run(&r, (const char *const[]){ dir, NULL }, NULL);
	cr_assert(sim_find_line(r.out.buf, "[HRR] Runtime : /opt/rocm-7.0.0/lib/libamd_comgr.so.3.0.70000",
				&line), "sorted first: %s", r.out.buf);
	classify_text(r.out.buf, r.err.buf, &f);
	cr_assert(fs_has_note(&f, "different ROCm installs"), "the fake stack is elsewhere");
	finding_release(&f);
	sim_result_release(&r);
	free(dir);

	dir = pid_dir("watchdog-launch");
	run(&r, (const char *const[]){ dir, NULL }, NULL);
	cr_assert_eq(r.status, 124);
	cr_assert(sim_find_line(r.err.buf, "[HRR][WATCHDOG] GPU sync did not complete within 200 ms "
				"at: kernel #2 \"" K_CIJK "\" (seq=", &line), "%s", r.err.buf);
	classify_text(r.out.buf, r.err.buf, &f);
	cr_assert_eq(f.outcome, OUTCOME_HANG);
	cr_assert_str_eq(f.kernel_name, K_CIJK);
	cr_assert(!f.last_progress_kernel || strcmp(f.last_progress_kernel, K_CIJK),
		  "no heartbeat for the launch that never completed");
	finding_release(&f);
	sim_result_release(&r);
	strbuf_release(&line);
	free(dir);
}

/* Each runtime status form, HIP code, FAIL cause and label the simulator
 * prints (its fixtures), read back by the classifier as `analyze` reads a
 * log: the line as the real source prints it, and the verdict. */
Test(sim_format, runtime_statuses_fail_causes_and_labels)
{
	static const struct {
		const char *fixture;
		const char *arg;    /* an extra hrr-playback flag, or NULL */
		const char *line;   /* text the output must hold */
		enum finding_outcome outcome;
		const char *cls;
		const char *label;  /* or NULL */
	} cases[] = {
		{ "queue-abort-illegal-instruction", NULL, " us: Device::callbackQueue aborting with "
		  "error : HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION:  The agent attempted to execute an "
		  "illegal shader instruction. code: 0x2a\n", OUTCOME_ABORT, "illegal_instruction", NULL },
		{ "queue-abort-invalid-isa", NULL, " us: [pid:1290  tid:0x7f21abfff640] Callback: Queue "
		  "0x7f3a2c000000 aborting with error : HSA_STATUS_ERROR_INVALID_ISA: The instruction "
		  "set architecture is invalid. code: 0x100f [GPU index: 0, kernel: ",
		  OUTCOME_ABORT, "code_object_mismatch", NULL },
		{ "queue-abort-out-of-resources", NULL, " Aborting with error : "
		  "HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate the necessary "
		  "resources.", OUTCOME_ABORT, "out_of_resources", NULL },
		{ "queue-abort-code-only", NULL, " us: Device::callbackQueue aborting with status: "
		  "0x1010\n", OUTCOME_ABORT, "code_object_mismatch", NULL },
		{ "queue-abort-aperture", NULL, "\x1b[1;31m:0:rocdevice.cpp            :2993: ",
		  OUTCOME_MAF, "illegal_memory_access", NULL },
		{ "hip-700-launch", "--sync-after-launch", "[HRR] GPU error after '",
		  OUTCOME_MAF, "illegal_memory_access", NULL },
		{ "hip-700-copy", NULL, "(hipMemcpy) returned 700 (an illegal memory access was "
		  "encountered) — aborting replay\n", OUTCOME_MAF, "illegal_memory_access", NULL },
		{ "hip-710", "--sync-after-launch", ": 710 (device-side assert triggered) last=710 ",
		  OUTCOME_ABORT, "device_assert", NULL },
		{ "hip-719", NULL, " returned 719 (unspecified launch failure) — aborting replay\n",
		  OUTCOME_ABORT, "kernel_fault", NULL },
		{ "hip-702", "--sync-after-launch", ": 702 (the launch timed out and was terminated)",
		  OUTCOME_HANG, "gpu_hang", NULL },
		{ "fail-d2h-not-compared", NULL, "[HRR] ERROR: 3 D2H validation event(s) attempted but 0 "
		  "pass/fail recorded", OUTCOME_FAIL, "d2h_not_compared", NULL },
		{ "fail-api-errors", NULL, "[HRR]   Events failed  : 1 (continued past each)\n",
		  OUTCOME_FAIL, "replay_api_errors", NULL },
		{ "fail-code-objects", NULL, "[HRR]   Code objects   : 1 unloadable (continued)\n",
		  OUTCOME_FAIL, "code_object_unloadable", NULL },
		{ "fail-regions", NULL, "[HRR]   Region check   : 4410 pointer(s) checked, 3 "
		  "intra-segment out-of-bounds/stale\n", OUTCOME_FAIL, "region_violation", NULL },
		{ "graph-refusal", NULL, " not in graph_map. HRR only replays stream-capture graphs",
		  OUTCOME_ABORT, "replay_fatal_api", "NOOP-API" },
		{ "noop-handler", NULL, "[HRR] NOOP playback handler called for hipMemAdvise — ",
		  OUTCOME_PASS, "replay_pass", "NOOP-API" },
		{ "multi-process-refusal", NULL, " contains multiple process captures; point "
		  "hrr-playback at a specific pid directory:\n", OUTCOME_UNKNOWN, "unknown",
		  "MULTI-PROCESS" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *dir = pid_dir(cases[i].fixture);
		struct sim_result r;
		struct strbuf all = STRBUF_INIT;
		struct finding f;

		run(&r, (const char *const[]){ dir, cases[i].arg, NULL }, NULL);
		strbuf_add(&all, r.out.buf, r.out.len);
		strbuf_add(&all, r.err.buf, r.err.len);
		cr_expect(strstr(all.buf, cases[i].line), "%s: no '%s' in:\n%s", cases[i].fixture,
			  cases[i].line, all.buf);
		fs_classify_text(all.buf, all.len, 0, cases[i].fixture, &f);
		finding_finalize(&f, NULL);
		cr_expect_eq(f.outcome, cases[i].outcome, "%s: %s", cases[i].fixture,
			     finding_outcome_name(f.outcome));
		cr_expect_str_eq(finding_fault_class_name(f.fault_class), cases[i].cls, "%s",
				 cases[i].fixture);
		if (cases[i].label)
			cr_expect(fs_has_label(&f, cases[i].label), "%s", cases[i].fixture);
		finding_release(&f);
		strbuf_release(&all);
		sim_result_release(&r);
		free(dir);
	}
}

/* Every rule of docs/findings.md against a realistic log, and each rule against
 * the one below it (the samples named *_beats_*). The samples are the
 * classifier fuzzer's seed corpus: tests/fuzz/corpus/classifier. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "orchestrator/finding/finding.h"
#include "tests/support/finding_samples.h"

#define CIJK                                                                                        \
	"Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT256x256x64_MI16x16x1_SN_LDSB1_AFC1_AFEM1_" \
	"ASEM1_CLR1_CADS0_DTVA0_DTVB0_EPS0_FDSI0_GRPM1_GRVWA8_GRVWB8_GSUAMB_IU1_K1_LBSPPA2048_"    \
	"LBSPPB2048_LPA16_LPB16_LRVW8_MIAV1_MIWT8_8_MO40_NTn1_NEPBS16_NLCA1_NLCB1_ONLL1_PGR2_PLR1_"  \
	"PKA1_SIA3_SS1_SVW8_SK3_TLDS1_USL1_VSn1_VWA8_VWB1_WS64_WG32_8_1"
#define CIJK2                                                                                     \
	"Cijk_Ailk_Bljk_HHS_BH_MT128x128x32_MI32x32x8_SN_LDSB0_GRVW8_K1_PGR1_PLR1_SU32_SUS256_SVW4_" \
	"TT4_64_WG32_4_1"
#define ATEN                                                                                 \
	"void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, " \
	"std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul>)"
#define ATEN_M "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_15CUDAFunctor_addIfEESt5arrayIPcLm3EEEEviT0_T1_"
#define AGENT_K "void at::native::index_copy_kernel_impl<at::native::OpaqueType<4> >(at::TensorIterator&, long, long, long)"

#define MAF_ADDR "0x7ef1c0000000"
#define N -1 /* unknown count */
#define BIG 999999999999999LL /* where counts saturate */

struct sample {
	const char *file;
	const char *rule; /* what it shows */
	enum finding_outcome outcome;
	const char *fault_class;
	const char *kernel;  /* NULL: no kernel */
	const char *address; /* NULL: no address */
	long long kernels, d2h_pass, d2h_fail, d2h_attempted;
};

static struct sample samples[] = {
	/* Outcome/class rule 3: PASS. */
	{ "pass_clean.log", "PASS with clean D2H is replay_pass, implicates no kernel",
	  OUTCOME_PASS, "replay_pass", NULL, NULL, 96, 5, 0, 5 },
	{ "pass_zero_kernels.log", "a zero-kernel pass keeps its zeros",
	  OUTCOME_PASS, "replay_pass", NULL, NULL, 0, 0, 0, 0 },
	{ "pass_d2h_fail_in_progress.log", "PASS with D2H failures in progress is a divergence",
	  OUTCOME_PASS, "nan_inf_divergence", NULL, NULL, 61, 3, 2, 5 },
	{ "crlf_prefixed.log", "timestamp-prefixed CRLF lines classify alike; spacing before ':' varies",
	  OUTCOME_PASS, "replay_pass", NULL, NULL, 7, 2, 0, 3 },
	/* Rule 8: FAIL / D2H failures. */
	{ "fail_d2h.log", "[HRR] FAIL with D2H FAIL lines: summary gives attempted = P+F+S",
	  OUTCOME_FAIL, "nan_inf_divergence", NULL, NULL, 96, 3, 2, 6 },
	{ "diverged.log", "a divergence abort is a validation failure",
	  OUTCOME_FAIL, "nan_inf_divergence", NULL, NULL, N, N, N, N },
	/* Rule 5: GPU memory fault lines. */
	{ "maf_read_only_sk3.log", "read-only page fault naming a StreamK GEMM; MAF address wins",
	  OUTCOME_MAF, "read_only_page_fault", CIJK, "0x7f91da000000", 41, 2, 0, 2 },
	{ "maf_then_fatal.log", "memory fault then Fatal: the fault class wins (rule 5 over 6)",
	  OUTCOME_MAF, "illegal_memory_access", CIJK2, MAF_ADDR, N, N, N, N },
	{ "maf_then_signal.log", "memory fault then signal marker: the fault explains the stop",
	  OUTCOME_MAF, "illegal_memory_access", NULL, MAF_ADDR, 1, 0, 0, 0 },
	{ "verbose_attribution.log", "no fault-line kernel: the last launch before the fault",
	  OUTCOME_MAF, "illegal_memory_access", CIJK, MAF_ADDR, N, N, N, N },
	{ "capture_fields.log", "Memory Fault Error without host: names the kernel",
	  OUTCOME_MAF, "illegal_memory_access", CIJK2, MAF_ADDR, N, N, N, N },
	{ "maf_no_kernel.log", "a fault with nothing naming a kernel stays without one",
	  OUTCOME_MAF, "illegal_memory_access", NULL, MAF_ADDR, 1, 0, 0, 0 },
	{ "maf_beats_fail.log", "memory fault outranks [HRR] FAIL (outcome and class)",
	  OUTCOME_MAF, "illegal_memory_access", NULL, MAF_ADDR, 96, 4, 1, 5 },
	{ "pass_beats_maf.log", "[HRR] PASS outranks a fault line",
	  OUTCOME_PASS, "replay_pass", NULL, "0x1000", 96, 5, 0, 5 },
	/* Rule 7: HSA queue aborts. */
	{ "queue_abort_aten.log", "queue abort names an ATen kernel; abort outranks the signal",
	  OUTCOME_ABORT, "replay_aborted", ATEN, NULL, 1, 0, 0, 0 },
	{ "queue_abort_memory_fault.log", "HSA MEMORY_FAULT is a MAF, never a hang",
	  OUTCOME_MAF, "illegal_memory_access", ATEN_M, NULL, N, N, N, N },
	{ "agent_wave.log", "an abort without a kernel takes the debug agent's wave kernel",
	  OUTCOME_ABORT, "replay_aborted", AGENT_K, NULL, N, N, N, N },
	{ "hsa_beats_fail.log", "queue abort outranks FAIL for the class, not for the outcome",
	  OUTCOME_FAIL, "replay_aborted", NULL, NULL, 96, 4, 1, 5 },
	{ "fail_beats_hsa_memory_fault.log", "FAIL outranks HSA MEMORY_FAULT for the outcome",
	  OUTCOME_FAIL, "illegal_memory_access", NULL, NULL, 96, 4, 1, 5 },
	/* Rule 6: Fatal lines. */
	{ "fatal_api.log", "a Fatal line is replay_fatal_api",
	  OUTCOME_ABORT, "replay_fatal_api", NULL, NULL, 1, 0, 0, 0 },
	{ "fatal_beats_hsa.log", "Fatal outranks a queue abort",
	  OUTCOME_ABORT, "replay_fatal_api", NULL, NULL, N, N, N, N },
	{ "gpu_error_after.log", "sync-after-launch's GPU error line: HIP 700 in the kernel it names",
	  OUTCOME_MAF, "illegal_memory_access", CIJK, NULL, N, N, N, N },
	/* Rule 4: out of memory. */
	{ "oom_fatal.log", "Fatal with hipErrorOutOfMemory is replay_oom",
	  OUTCOME_ABORT, "replay_oom", NULL, NULL, N, N, N, N },
	{ "oom_marker.log", "the engine's OOM kill is replay_oom, outcome ABORT",
	  OUTCOME_ABORT, "replay_oom", NULL, NULL, 1, 0, 0, 0 },
	{ "oom_beats_maf.log", "out of memory (any case) outranks a fault line for the class",
	  OUTCOME_MAF, "replay_oom", NULL, MAF_ADDR, N, N, N, N },
	{ "pass_beats_oom.log", "PASS outranks an out-of-memory warning",
	  OUTCOME_PASS, "replay_pass", NULL, NULL, 96, 5, 0, 5 },
	/* Rule 2: hang. */
	{ "triage_timeout.log", "the shell workflow's [triage] timeout marker is a hang",
	  OUTCOME_HANG, "hang", NULL, NULL, 33, 1, 0, 1 },
	{ "progress_timeout.log", "a timeout without output is a hang",
	  OUTCOME_HANG, "hang", NULL, NULL, 1, 0, 0, 0 },
	{ "watchdog_hang.log", "hrr-playback's watchdog is a hang; its at: names the kernel",
	  OUTCOME_HANG, "hang", CIJK2, NULL, 17, 0, 0, 0 },
	{ "watchdog_bare_name.log", "a watchdog at: naming a bare (demangled) kernel",
	  OUTCOME_HANG, "hang", ATEN, NULL, 1, 0, 0, 0 },
	{ "watchdog_sync_point.log", "a watchdog at a sync point: the last verbose launch",
	  OUTCOME_HANG, "hang", "copy_rows_kernel", NULL, N, N, N, N },
	{ "timeout_beats_maf.log", "a timeout outranks a fault line",
	  OUTCOME_HANG, "hang", CIJK2, MAF_ADDR, N, N, N, N },
	{ "timeout_beats_pass.log", "a timeout outranks PASS",
	  OUTCOME_HANG, "hang", NULL, NULL, 96, 5, 0, 5 },
	/* Rule 1: version mismatch. */
	{ "version_mismatch.log", "version mismatch aborts",
	  OUTCOME_ABORT, "version_mismatch", NULL, NULL, N, N, N, N },
	{ "version_beats_timeout.log", "version mismatch outranks hang for the class only",
	  OUTCOME_HANG, "version_mismatch", NULL, NULL, N, N, N, N },
	/* Rule 9: aborted / user interrupt. */
	{ "user_interrupt.log", "a user interrupt aborts and implicates no kernel",
	  OUTCOME_ABORT, "replay_aborted", NULL, NULL, 1, 0, 0, 0 },
	{ "interrupt_beats_signal.log", "an interrupt outranks a signal marker",
	  OUTCOME_ABORT, "replay_aborted", NULL, NULL, 1, 0, 0, 0 },
	{ "fail_beats_aborted.log", "FAIL outranks 'Replay aborted'",
	  OUTCOME_FAIL, "nan_inf_divergence", NULL, NULL, N, N, N, N },
	/* Rule 10: a crash with no verdict. */
	{ "crash_no_verdict.log", "a signal with no verdict is replay_crashed: no kernel",
	  OUTCOME_ABORT, "replay_crashed", NULL, NULL, 1, 0, 0, 0 },
	/* Rule 11. */
	{ "unknown_start_only.log", "start lines only: UNKNOWN",
	  OUTCOME_UNKNOWN, "unknown", NULL, NULL, N, N, N, N },
	{ "empty.log", "an empty log: UNKNOWN",
	  OUTCOME_UNKNOWN, "unknown", NULL, NULL, N, N, N, N },
	{ "info_single_kernel.log", "--info output alone has no verdict",
	  OUTCOME_UNKNOWN, "unknown", NULL, NULL, N, N, N, N },
	{ "info_truncated_names.log", "--info output alone has no verdict",
	  OUTCOME_UNKNOWN, "unknown", NULL, NULL, N, N, N, N },
	{ "missing_handle_noop.log", "MISSING! and NOT REPLAYABLE do not change a PASS",
	  OUTCOME_PASS, "replay_pass", NULL, NULL, 1, 1, 0, 1 },
	/* Untrusted numbers saturate (a fuzzer found the overflow). */
	{ "huge_counts.log", "counts saturate where JSON still prints them exactly",
	  OUTCOME_FAIL, "nan_inf_divergence", NULL, NULL, BIG, BIG, BIG, BIG },
	{ "fuzz_crash_summary_overflow.log", "mangled summary lines from the fuzzer",
	  OUTCOME_FAIL, "nan_inf_divergence", NULL, NULL, N, 4, 1, 5 },
};

#define N_SAMPLES (sizeof(samples) / sizeof(samples[0]))

/* Criterion runs each test in a fresh process: pass an index, not pointers. */
static void free_indices(struct criterion_test_params *p)
{
	cr_free(p->params);
}

ParameterizedTestParameters(finding_classify, samples)
{
	size_t *idx = cr_malloc(N_SAMPLES * sizeof(*idx));

	for (size_t i = 0; i < N_SAMPLES; i++)
		idx[i] = i;
	return cr_make_param_array(size_t, idx, N_SAMPLES, free_indices);
}

static void expect_str(const char *file, const char *what, const char *got, const char *want)
{
	if (!want)
		cr_expect_null(got, "%s: %s should be unset, got '%s'", file, what, got);
	else
		cr_expect(got && !strcmp(got, want), "%s: %s = '%s', want '%s'", file, what,
			  got ? got : "(null)", want);
}

ParameterizedTest(size_t *i, finding_classify, samples)
{
	const struct sample *s = &samples[*i];
	struct finding f;

	fs_analyze_sample(s->file, &f);
	cr_expect_eq(f.outcome, s->outcome, "%s (%s): outcome %s, want %s", s->file, s->rule,
		     finding_outcome_name(f.outcome), finding_outcome_name(s->outcome));
	expect_str(s->file, "fault_class", finding_fault_class_name(f.fault_class), s->fault_class);
	expect_str(s->file, "kernel_name", f.kernel_name, s->kernel);
	expect_str(s->file, "fault_address", f.fault_address, s->address);
	cr_expect_eq(f.kernels_launched, s->kernels, "%s: kernels_launched %lld, want %lld",
		     s->file, f.kernels_launched, s->kernels);
	cr_expect_eq(f.d2h_pass, s->d2h_pass, "%s: d2h_pass %lld want %lld", s->file, f.d2h_pass,
		     s->d2h_pass);
	cr_expect_eq(f.d2h_fail, s->d2h_fail, "%s: d2h_fail %lld want %lld", s->file, f.d2h_fail,
		     s->d2h_fail);
	cr_expect_eq(f.d2h_attempted, s->d2h_attempted, "%s: d2h_attempted %lld want %lld", s->file,
		     f.d2h_attempted, s->d2h_attempted);
	/* A kernel name always comes with its family, and only then. */
	cr_expect_eq(f.kernel_family != NULL, f.kernel_name != NULL, "%s: family vs kernel", s->file);
	cr_expect_eq(f.sources.n, 1u);
	cr_expect_str_eq(f.sources.v[0], s->file);
	finding_release(&f);
}

/* ---- rule details the table does not show ---- */

Test(finding_classify, read_only_fault_fields)
{
	struct finding f;

	fs_analyze_sample("maf_read_only_sk3.log", &f);
	cr_assert_str_eq(f.fault_reason, "Write access to a read-only page");
	cr_assert_str_eq(f.gpu_node, "2");
	cr_assert_str_eq(f.kernel_family, "hipblaslt_gemm/Alik_Bljk/BBS_BH/MT256x256x64/MI16x16x1/streamk");
	cr_assert(f.saw_kernel_from_fault_line);
	cr_assert_eq(f.failing_event_seq, 702);
	/* last= of a name over 120 characters is the compacted one, kept as printed. */
	cr_assert_eq(strlen(f.last_progress_kernel), 120);
	cr_assert(!strncmp(f.last_progress_kernel + 96, "...", 3));
	cr_assert_str_eq(f.last_progress_kernel + 99, CIJK + strlen(CIJK) - 21);
	finding_release(&f);
}

Test(finding_classify, reason_ends_at_first_period)
{
	struct finding f;

	fs_analyze_sample("maf_then_signal.log", &f);
	cr_assert_str_eq(f.fault_reason, "Unknown");
	cr_assert_str_eq(f.gpu_node, "1");
	cr_assert_eq(f.replay_signal, 6);
	cr_assert_str_eq(f.kernel_family ? f.kernel_family : "none", "none");
	finding_release(&f);
}

Test(finding_classify, fatal_line_gives_the_failing_call)
{
	struct finding f;

	fs_analyze_sample("maf_then_fatal.log", &f);
	cr_assert_eq(f.failing_thread, 1);
	cr_assert_eq(f.failing_call_index, 41);
	cr_assert_str_eq(f.failing_api, "hipModuleLaunchKernel");
	/* The kernel came from the verbose last launch: a note says so. */
	cr_assert_str_eq(f.last_event_kernel, CIJK2);
	cr_assert(fs_has_note(&f, "--verbose"));
	finding_release(&f);

	fs_analyze_sample("fatal_api.log", &f);
	cr_assert_eq(f.failing_thread, 2);
	cr_assert_eq(f.failing_call_index, 118);
	cr_assert_str_eq(f.failing_api, "hipMemcpyAsync");
	cr_assert_eq(f.failing_event_seq, 14);
	finding_release(&f);
}

Test(finding_classify, verbose_event_lines_after_the_fault_are_ignored)
{
	struct finding f;

	fs_analyze_sample("verbose_attribution.log", &f);
	cr_assert_eq(f.failing_call_index, 4);
	cr_assert_eq(f.failing_thread, -1);
	cr_assert_str_eq(f.failing_api, "hipExtModuleLaunchKernel");
	cr_assert_str_eq(f.last_event_kernel, CIJK);
	cr_assert_not(f.saw_kernel_from_fault_line);
	cr_assert(fs_has_note(&f, "last launch before the fault"));
	finding_release(&f);
}

Test(finding_classify, pass_clears_kernel_and_failing_event)
{
	struct finding f;

	fs_analyze_sample("pass_beats_maf.log", &f);
	cr_assert_null(f.kernel_name);
	cr_assert_null(f.kernel_family);
	cr_assert_eq(f.failing_event_seq, -1);
	cr_assert_eq(f.failing_call_index, -1);
	cr_assert_null(f.failing_api);
	cr_assert_null(f.last_progress_kernel);
	finding_release(&f);

	fs_analyze_sample("pass_clean.log", &f);
	cr_assert_null(f.kernel_name);
	cr_assert_null(f.last_progress_kernel);
	cr_assert_eq(f.failing_event_seq, -1);
	cr_assert_eq(f.labels.n, 1u);
	cr_assert_str_eq(f.labels.v[0], "CLEAN");
	cr_assert_float_eq(f.gpu_time_kernel_ms, 1840.2, 1e-9);
	cr_assert_float_eq(f.gpu_time_graph_ms, 0.0, 1e-9);
	cr_assert_float_eq(f.gpu_time_total_ms, 1840.2, 1e-9);
	cr_assert(f.kernels_from_summary && f.d2h_from_summary);
	finding_release(&f);
}

Test(finding_classify, crash_implicates_no_kernel_even_with_evidence)
{
	struct finding f;
	struct manifest m;
	struct finding_context ctx = { .manifest = &m };

	/* Verbose events name a launch, and the archive has one kernel: still none. */
	fs_classify_sample("crash_no_verdict.log", &f);
	manifest_init(&m);
	strvec_push(&f.archive_kernel_names, "copy_rows_kernel");
	f.archive_kernels = 1;
	finding_finalize(&f, &ctx);
	cr_assert_str_eq(finding_fault_class_name(f.fault_class), "replay_crashed");
	cr_assert_null(f.kernel_name);
	cr_assert_null(f.last_event_kernel);
	cr_assert_eq(f.failing_call_index, -1);
	cr_assert_eq(f.failing_event_seq, -1);
	cr_assert_eq(f.replay_signal, 11);
	cr_assert(fs_has_note(&f, "died by signal 11 without printing a verdict"));
	cr_assert(fs_has_note(&f, "hrr-playback or its environment"));
	finding_release(&f);
	manifest_release(&m);
}

Test(finding_classify, aten_kernel_keeps_verdict_and_gets_caveat)
{
	struct finding f;

	fs_analyze_sample("queue_abort_aten.log", &f);
	cr_assert(!strncmp(f.kernel_family, "at::native::", 12), "%s", f.kernel_family);
	cr_assert(fs_has_note(&f, "original failure signature"));
	cr_assert(fs_has_note(&f, "HSA_STATUS_ERROR_EXCEPTION"));
	cr_assert_eq(f.replay_signal, 6);
	finding_release(&f);

	fs_analyze_sample("queue_abort_memory_fault.log", &f);
	cr_assert(!strncmp(f.kernel_family, "at::native::", 12), "%s", f.kernel_family);
	cr_assert(fs_has_note(&f, "original failure signature"));
	finding_release(&f);

	/* A GEMM fault carries no such caveat. */
	fs_analyze_sample("maf_read_only_sk3.log", &f);
	cr_assert_not(fs_has_note(&f, "original failure signature"));
	finding_release(&f);
}

Test(finding_classify, debug_agent_kernel_comes_with_a_caveat)
{
	struct finding f;

	fs_analyze_sample("agent_wave.log", &f);
	cr_assert(fs_has_note(&f, "rocm-debug-agent (wave stopped: ASSERT_TRAP)"));
	cr_assert(!strncmp(f.kernel_family, "at::native::", 12), "%s", f.kernel_family);
	finding_release(&f);
}

Test(finding_classify, hang_notes_and_kernel)
{
	struct finding f;

	fs_analyze_sample("triage_timeout.log", &f);
	cr_assert_eq(f.timeout_s, 1800);
	cr_assert_not(f.timeout_without_output);
	cr_assert(fs_has_note(&f, "1800s time limit"));
	finding_release(&f);

	fs_analyze_sample("progress_timeout.log", &f);
	cr_assert_eq(f.timeout_s, 300);
	cr_assert(f.timeout_without_output);
	cr_assert(fs_has_note(&f, "without output"));
	finding_release(&f);

	fs_analyze_sample("watchdog_hang.log", &f);
	cr_assert(f.saw_watchdog);
	cr_assert_eq(f.failing_event_seq, 1234, "the launch the watchdog names, not the last heartbeat's");
	cr_assert_str_eq(f.kernel_family, "hipblaslt_gemm/Ailk_Bljk/HHS_BH/MT128x128x32/MI32x32x8");
	cr_assert(fs_has_note(&f, "60000 ms"));
	finding_release(&f);
}

Test(finding_classify, watchdog_without_progress_gives_its_seq)
{
	static const char log[] =
		"[HRR][WATCHDOG] GPU sync did not complete within 500 ms at: kernel #3 \"k3\" "
		"(seq=77, grid=[1,1,1] block=[64,1,1])\n";
	struct finding f;

	fs_classify_text(log, sizeof(log) - 1, 0, "t", &f);
	finding_finalize(&f, NULL);
	cr_assert_eq(f.outcome, OUTCOME_HANG);
	cr_assert_str_eq(f.kernel_name, "k3");
	cr_assert_eq(f.failing_event_seq, 77);
	finding_release(&f);
}

Test(finding_classify, watchdog_compacted_or_sync_name_is_not_a_kernel)
{
	char log[512];
	char name[121];
	struct finding f;

	memset(name, 'k', 96);
	memcpy(name + 96, "...", 3);
	memset(name + 99, 'z', 21);
	name[120] = '\0';
	snprintf(log, sizeof(log),
		 "[HRR][WATCHDOG] GPU sync did not complete within 500 ms at: kernel #3 \"%s\" "
		 "(seq=77, grid=[1,1,1] block=[64,1,1])\n", name);
	fs_classify_text(log, strlen(log), 0, "t", &f);
	cr_assert_null(f.kernel_name);
	finding_release(&f);

	snprintf(log, sizeof(log), "[HRR][WATCHDOG] GPU sync did not complete within 500 ms at: "
		 "recorded hipDeviceSynchronize event\n");
	fs_classify_text(log, strlen(log), 0, "t", &f);
	cr_assert_eq(f.outcome, OUTCOME_HANG);
	cr_assert_null(f.kernel_name);
	finding_release(&f);
}

Test(finding_classify, version_mismatch_versions)
{
	struct finding f;

	fs_analyze_sample("version_mismatch.log", &f);
	cr_assert_eq(f.archive_format_version, 9);
	cr_assert_eq(f.reader_format_version, 8);
	cr_assert(fs_has_note(&f, "archive format version 9"));
	finding_release(&f);
}

Test(finding_classify, oom_fatal_keeps_its_call)
{
	struct finding f;

	fs_analyze_sample("oom_fatal.log", &f);
	cr_assert_eq(f.failing_call_index, 3);
	cr_assert_str_eq(f.failing_api, "hipMalloc");
	finding_release(&f);

	fs_analyze_sample("oom_marker.log", &f);
	cr_assert(f.saw_oom_marker);
	cr_assert(fs_has_note(&f, "out of memory"));
	finding_release(&f);
}

Test(finding_classify, user_interrupt_note)
{
	struct finding f;

	fs_analyze_sample("user_interrupt.log", &f);
	cr_assert(f.saw_user_interrupt);
	cr_assert_str_eq(f.interrupt_signal, "SIGINT");
	cr_assert(fs_has_note(&f, "stopped by the user (SIGINT): the workload is untested"));
	finding_release(&f);
}

Test(finding_classify, d2h_failures_are_listed_each)
{
	struct finding f;

	fs_analyze_sample("fail_d2h.log", &f);
	cr_assert_eq(f.n_d2h_failures, 3);
	cr_assert_str_eq(f.d2h_failures[0].tag, "DtoH");
	cr_assert_eq(f.d2h_failures[0].seq, 1207);
	cr_assert_eq(f.d2h_failures[0].bytes, 4194304);
	cr_assert_eq(f.d2h_failures[0].bytes_differ, 8192);
	cr_assert(f.d2h_failures[0].has_max);
	cr_assert_float_eq(f.d2h_failures[0].max_abs, 3.125, 1e-12);
	cr_assert_float_eq(f.d2h_failures[0].max_rel, 0.4871, 1e-12);
	cr_assert_str_eq(f.d2h_failures[1].tag, "DtoHAsync");
	cr_assert_eq(f.d2h_failures[1].seq, 1311);
	cr_assert_eq(f.d2h_failures[1].bytes, 65536);
	cr_assert_eq(f.d2h_failures[1].bytes_differ, 12);
	cr_assert_not(f.d2h_failures[1].has_max);
	cr_assert_null(f.d2h_failures[2].tag);
	cr_assert_str_eq(f.d2h_failures[2].src, "0x7f3a1c200000");
	cr_assert_eq(f.d2h_failures[2].seq, -1);
	cr_assert(fs_has_label(&f, "D2H-FAIL"));
	cr_assert_not(fs_has_label(&f, "CLEAN"));
	finding_release(&f);
}

Test(finding_classify, diverged_line)
{
	struct finding f;

	fs_analyze_sample("diverged.log", &f);
	cr_assert_eq(f.n_d2h_failures, 2);
	cr_assert_str_eq(f.d2h_failures[1].tag, "hipMemcpy2DAsync");
	cr_assert(f.d2h_failures[1].has_max);
	cr_assert(f.d2h_failures[1].max_abs != f.d2h_failures[1].max_abs, "max|d|=nan is NaN");
	cr_assert_eq(f.failing_event_seq, 1402);
	cr_assert(fs_has_note(&f, "2/3 D2H validations failed"));
	finding_release(&f);
}

Test(finding_classify, runtime_fields)
{
	struct finding f;

	fs_analyze_sample("capture_fields.log", &f);
	cr_assert_str_eq(f.capture_hip_so, "/opt/rocm-7.13.0/lib/libamdhip64.so.7.13.26291-2ed46569ce");
	/* The dispatch before the fault, not the one printed after it. */
	cr_assert_str_eq(f.kernarg_address, "0x7f2a10004000");
	cr_assert_str_eq(f.grid, "65536,1,1");
	cr_assert_str_eq(f.workgroup, "256,1,1");
	cr_assert_eq(f.archive_events, 1532);
	cr_assert_eq(f.archive_kernels, 96);
	finding_release(&f);
}

Test(finding_classify, labels_missing_handle_and_noop)
{
	struct finding f;

	fs_analyze_sample("missing_handle_noop.log", &f);
	cr_assert(f.saw_missing_handle);
	cr_assert(f.saw_not_replayable);
	cr_assert(fs_has_label(&f, "MISSING-HANDLE"));
	cr_assert(fs_has_label(&f, "NOOP-API"));
	cr_assert_not(fs_has_label(&f, "CLEAN"));
	finding_release(&f);
}

Test(finding_classify, info_output)
{
	struct finding f;

	fs_analyze_sample("info_single_kernel.log", &f);
	cr_assert_eq(f.archive_complete, 0);
	cr_assert_eq(f.archive_recovered_events, 37);
	cr_assert_eq(f.archive_events, 37);
	cr_assert_eq(f.archive_kernels, 1);
	cr_assert_eq(f.archive_distinct_kernels, 1);
	cr_assert_eq(f.archive_kernel_names.n, 1);
	cr_assert_str_eq(f.archive_kernel_names.v[0], "copy_rows_kernel");
	cr_assert(fs_has_label(&f, "CRASH-TRUNCATED"));
	cr_assert(fs_has_note(&f, "no fault type is claimed"));
	finding_release(&f);

	/* Names cut to the column width are never used. */
	fs_analyze_sample("info_truncated_names.log", &f);
	cr_assert_eq(f.archive_complete, 1);
	cr_assert_eq(f.archive_distinct_kernels, 2);
	cr_assert_eq(f.archive_kernel_names.n, 1);
	cr_assert_str_eq(f.archive_kernel_names.v[0], "reduce_rows_kernel");
	finding_release(&f);
}

Test(finding_classify, multi_process_root_info)
{
	static const char info[] =
		"HRR Archive Root: /arch\n"
		"========================================\n"
		"Capture Mode: in-tree\n"
		"Owner PID:    100\n"
		"Processes:    3\n\n";
	struct finding f;

	fs_classify_text(info, sizeof(info) - 1, 0, "t", &f);
	finding_finalize(&f, NULL);
	cr_assert(fs_has_label(&f, "MULTI-PROCESS"));
	finding_release(&f);
}

Test(finding_classify, kernel_family)
{
	char *s;

	s = finding_kernel_family(CIJK);
	cr_assert_str_eq(s, "hipblaslt_gemm/Alik_Bljk/BBS_BH/MT256x256x64/MI16x16x1/streamk");
	free(s);
	s = finding_kernel_family("Cijk_Ailk_Bljk_SB_MT64x32x16_SN");
	cr_assert_str_eq(s, "hipblaslt_gemm/Ailk_Bljk/SB/MT64x32x16");
	free(s);
	s = finding_kernel_family("Cijk_noTile_SK3_x");
	cr_assert_str_eq(s, "hipblaslt_gemm/streamk");
	free(s);
	s = finding_kernel_family(ATEN_M);
	cr_assert_str_eq(s, "at::native::vectorized_elementwise_kernel");
	free(s);
	s = finding_kernel_family(ATEN);
	cr_assert_str_eq(s, "at::native::vectorized_elementwise_kernel");
	free(s);
	s = finding_kernel_family("_Z9my_kernelPfi");
	cr_assert_str_eq(s, "my_kernel");
	free(s);
	cr_assert_null(finding_kernel_family(NULL));
}

Test(finding_classify, needs_info)
{
	struct finding f;

	fs_classify_sample("maf_no_kernel.log", &f);
	cr_assert(finding_needs_info(&f));
	finding_release(&f);
	fs_classify_sample("maf_read_only_sk3.log", &f);
	cr_assert_not(finding_needs_info(&f), "the fault line named a kernel");
	finding_release(&f);
	fs_classify_sample("pass_clean.log", &f);
	cr_assert_not(finding_needs_info(&f), "a PASS implicates no kernel");
	finding_release(&f);
	fs_classify_sample("crash_no_verdict.log", &f);
	cr_assert_not(finding_needs_info(&f), "a crash implicates no kernel");
	finding_release(&f);
}

Test(finding_classify, d2h_failures_are_capped_and_counted)
{
	struct strbuf log = STRBUF_INIT;
	struct finding f;

	for (int i = 0; i < FINDING_MAX_D2H_FAILURES + 10; i++)
		strbuf_addf(&log, "[HRR] DtoH D2H FAIL seq=%d (exact): 16 bytes, 1/16 bytes differ, "
			    "first@0 (got 0x00 exp 0x01)\n", i);
	strbuf_addstr(&log, "[HRR] FAIL\n");
	fs_classify_text(log.buf, log.len, 0, "t", &f);
	cr_assert_eq(f.n_d2h_failures, FINDING_MAX_D2H_FAILURES);
	cr_assert_eq(f.d2h_failure_lines, FINDING_MAX_D2H_FAILURES + 10);
	cr_assert(fs_has_note(&f, "10 more D2H FAIL lines"));
	finding_release(&f);
	strbuf_release(&log);
}

/* Issue: the GPU-time lines' unit was not read: "0.04 s" compared with
 * "44 ms" was a 1,100-fold slowdown. Other units of time are converted to
 * milliseconds; an unknown unit, a missing one or a number that is not a
 * time leaves the time unread, with a note. */
Test(finding_classify, a_gpu_time_is_read_in_its_unit)
{
	static const char log[] = "[HRR]   GPU kernel time : 0.04 s\n"
				  "[HRR]   GPU graph time  : 250 us\n"
				  "[HRR]   GPU total time  : 44.5 ms\n"
				  "[HRR] PASS\n";
	static const char odd[] = "[HRR]   GPU kernel time : 12 furlongs\n"
				  "[HRR]   GPU graph time  : nan ms\n"
				  "[HRR]   GPU total time  : 7\n"
				  "[HRR] PASS\n";
	struct finding f;

	fs_classify_text(log, sizeof(log) - 1, 0, "units.log", &f);
	cr_assert_float_eq(f.gpu_time_kernel_ms, 40.0, 1e-9);
	cr_assert_float_eq(f.gpu_time_graph_ms, 0.25, 1e-9);
	cr_assert_float_eq(f.gpu_time_total_ms, 44.5, 1e-9);
	cr_assert_not(fs_has_note(&f, "unit this does not read"));
	finding_release(&f);

	fs_classify_text(odd, sizeof(odd) - 1, 0, "odd.log", &f);
	cr_assert_lt(f.gpu_time_kernel_ms, 0);
	cr_assert_lt(f.gpu_time_graph_ms, 0);
	cr_assert_lt(f.gpu_time_total_ms, 0);
	cr_assert(fs_has_note(&f, "unit this does not read (furlongs)"));
	finding_release(&f);
}

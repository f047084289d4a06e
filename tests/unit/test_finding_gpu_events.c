/* The GPU's own reports: ROCr's hardware-exception line, the
 * older rocm-debug-agent's memory-fault report, ROCm 7's agent wave line,
 * hrr-playback's archive-health count in finding.json and its own
 * watchdog's exit. The strings are the ones docs/formats.md quotes. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "orchestrator/finding/finding.h"
#include "orchestrator/finding/runtime_status.h"
#include "tests/support/finding_samples.h"

#define LAUNCH "[HRR] Event 41: T0 hipModuleLaunchKernel -> Kernel 'gemm_kernel'\n"
#define HW_HANG "HW Exception by GPU node-1 (Agent handle: 0x12e78350) reason :GPU Hang\n"
#define CRASH "[hrr-docker-replay] replay killed by signal 6\n"

static void analyze(const char *text, struct finding *f)
{
	fs_classify_text(text, strlen(text), 7, "replay.log", f);
	finding_finalize(f, NULL);
}

Test(finding_gpu_events, a_gpu_hang_hw_exception_is_a_gpu_side_hang_not_a_crash)
{
	struct finding f;

	analyze("[HRR] Archive : 90 events, 3 kernels\n" LAUNCH HW_HANG CRASH, &f);
	cr_assert_eq(f.outcome, OUTCOME_HANG, "%s", finding_outcome_name(f.outcome));
	cr_assert_str_eq(finding_fault_class_name(f.fault_class), "gpu_hang");
	cr_assert_str_eq(f.fault_reason, "GPU Hang");
	cr_assert_str_eq(f.gpu_node, "1");
	cr_assert(fs_has_note(&f, "reason \"GPU Hang\""));
	cr_assert(!fs_has_note(&f, "workload is untested"), "not a crash of the replay");
	/* The kernel evidence stays: the last launch before the fault. */
	cr_assert_str_eq(f.last_event_kernel, "gemm_kernel");
	cr_assert_str_eq(f.kernel_name, "gemm_kernel");
	cr_assert(finding_class_against_gpu(f.fault_class));
	finding_release(&f);
}

Test(finding_gpu_events, an_ecc_reason_is_its_own_class_against_the_gpu)
{
	struct finding f;

	analyze(LAUNCH "HW Exception by GPU node-3 (Agent handle: 0x55d0c1a0) reason :ECC error\n"
		CRASH, &f);
	cr_assert_eq(f.outcome, OUTCOME_ABORT, "%s", finding_outcome_name(f.outcome));
	cr_assert_str_eq(finding_fault_class_name(f.fault_class), "gpu_ecc_error");
	cr_assert_str_eq(f.fault_reason, "ECC error");
	cr_assert_str_eq(f.gpu_node, "3");
	cr_assert(fs_has_note(&f, "ECC"));
	cr_assert(finding_class_against_gpu(f.fault_class));
	cr_assert(!finding_class_against_gpu(FAULT_ILLEGAL_MEMORY_ACCESS));
	cr_assert(!finding_class_against_gpu(FAULT_HANG));
	finding_release(&f);
}

Test(finding_gpu_events, a_hw_exception_with_an_unknown_reason_claims_no_more)
{
	struct finding f;

	analyze("HW Exception by GPU node-0 (Agent handle: 0x1) reason :Unknown\n" CRASH, &f);
	cr_assert_eq(f.outcome, OUTCOME_ABORT);
	cr_assert_str_eq(finding_fault_class_name(f.fault_class), "gpu_hw_exception");
	finding_release(&f);
}

#define OLD_AGENT                                                                               \
	"System event (HSA_AMD_GPU_MEMORY_FAULT_EVENT)\n"                                         \
	"Faulting page: 0x7f3ade000000\n"                                                          \
	"--------------------------------------------------------\n"                               \
	"wave_0: pc=0x7f3ae0a01234 (stopped, reason: MEMORY_VIOLATION)\n"                          \
	"\n"

Test(finding_gpu_events, the_old_agents_memory_fault_report_is_a_maf_at_its_page)
{
	struct finding f;

	analyze(LAUNCH OLD_AGENT CRASH, &f);
	cr_assert_eq(f.outcome, OUTCOME_MAF, "%s", finding_outcome_name(f.outcome));
	cr_assert_eq(f.fault_class, FAULT_ILLEGAL_MEMORY_ACCESS, "%s",
		     finding_fault_class_name(f.fault_class));
	cr_assert_str_eq(f.fault_address, "0x7f3ade000000");
	cr_assert(fs_has_note(&f, "page-aligned"));
	cr_assert_str_eq(f.kernel_name, "gemm_kernel");
	finding_release(&f);
}

Test(finding_gpu_events, the_old_agents_queue_error_is_an_hsa_abort_not_a_crash)
{
	struct finding f;

	analyze(LAUNCH "Queue error (HSA_STATUS_ERROR_EXCEPTION: An HSAIL operation resulted in a "
		"hardware exception.)\n" CRASH, &f);
	cr_assert_eq(f.outcome, OUTCOME_ABORT);
	cr_assert_eq(f.fault_class, FAULT_REPLAY_ABORTED, "%s",
		     finding_fault_class_name(f.fault_class));
	cr_assert(fs_has_note(&f, "HSA_STATUS_ERROR_EXCEPTION"));
	cr_assert(runtime_status_gpu_fault(f.runtime_status), "the note's status travels typed");
	finding_release(&f);
}

Test(finding_gpu_events, rocm7s_wave_line_with_kernargs_names_the_kernel)
{
	struct finding f;

	analyze("wave_249: pc=0x7ff734dcbf3c (kernel_code_entry=0x7ff736b8c040 <tvd_rk_l486(double*)>, "
		"kernargs=0x7ffb61f00000) (stopped, reason: MEMORY_VIOLATION)\n"
		"Memory access fault by GPU node-4 (Agent handle: 0x3b24f40) on address "
		"0x7ffb6a0f6000. Reason: Page not present or supervisor privilege.\n" CRASH, &f);
	cr_assert_eq(f.outcome, OUTCOME_MAF);
	cr_assert_str_eq(f.kernel_name, "tvd_rk_l486(double*)");
	cr_assert(fs_has_note(&f, "MEMORY_VIOLATION"));
	finding_release(&f);
}

Test(finding_gpu_events, a_running_wave_or_one_without_entry_names_no_kernel)
{
	struct finding f;

	analyze("wave_1: pc=0x7ff734dcbf3c (kernel_code_entry=not available) (running)\n"
		"wave_2: pc=0x7ff734dcbf40 (kernel_code_entry=0x7ff736b8c040 <k()>) (running)\n"
		"Memory access fault by GPU node-4 (Agent handle: 0x3b24f40) on address "
		"0x7ffb6a0f6000. Reason: Page not present or supervisor privilege.\n", &f);
	cr_assert_eq(f.outcome, OUTCOME_MAF);
	cr_assert_null(f.kernel_name);
	finding_release(&f);
}

Test(finding_gpu_events, recovered_events_reach_finding_json)
{
	struct finding f;
	char *json;

	analyze("[HRR] Archive has no clean-shutdown trailer (capture likely crashed); recovered "
		"1234 events\n[HRR] PASS\n", &f);
	json = fs_json(&f, NULL);
	cr_assert(strstr(json, "\"archive_recovered_events\":1234"), "%s", json);
	free(json);
	finding_release(&f);
}

Test(finding_gpu_events, hrr_playbacks_own_watchdog_exit_124_says_which_watchdog_fired)
{
	struct finding f;
	struct finding_run run = { .exit_code = 124, .ended_by = ENDED_EXIT, .signal = -1 };
	struct finding_context ctx = { .run = &run };

	const char *log = "[HRR][WATCHDOG] GPU sync did not complete within 5000 ms at: kernel #3 "
			  "\"spin_kernel\" (seq=17, grid=[1,1,1] block=[64,1,1])\n";

	fs_classify_text(log, strlen(log), 0, "replay.log", &f);
	finding_finalize(&f, &ctx);
	cr_assert_eq(f.outcome, OUTCOME_HANG);
	cr_assert_eq(f.fault_class, FAULT_HANG);
	cr_assert(fs_has_note(&f, "hrr-playback's own sync watchdog"), "which one fired");
	cr_assert(fs_has_note(&f, "exit status 124"));
	cr_assert(fs_has_note(&f, "not hrr-docker-replay's"));
	finding_release(&f);
}

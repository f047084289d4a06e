/* Issue 40's rules, one test each: the lines a triager reads that the
 * classifier did not (§1), and the evidence no rule read (§2). Each log is
 * the shortest one that shows the rule; tests/fixtures/real-logs holds the
 * real ones (make fidelity). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "orchestrator/finding/finding.h"
#include "tests/support/finding_samples.h"

#define START "[HRR] Archive : 12 events, 2 kernels, 3 blobs, 1 code objects\n" \
	      "[HRR] Device  : AMD Instinct MI250X (gfx90a:sramecc+:xnack-)\n"
#define EXCEPTION ":0:rocdevice.cpp            :2778: 1891319054196 us: [tid:0x7fd1f8497700] " \
	"Callback: Queue 0x7fcfcce00000 aborting with error : HSA_STATUS_ERROR_EXCEPTION: An " \
	"HSAIL operation resulted in a hardware exception. code: 0x1016 [GPU index: 0, kernel: k_first]\n"
#define MEMORY_FAULT ":0:rocdevice.cpp            :2614: 102457364470 us: [tid:0x7fe7bb747700] " \
	"Device::callbackQueue aborting with error : HSA_STATUS_ERROR_MEMORY_FAULT: Agent " \
	"attempted to access an inaccessible address. code: 0x2b\n"
#define SIGNAL6 "[hrr-docker-replay] replay killed by signal 6\n"

static void analyze(const char *text, struct finding *f)
{
	fs_classify_text(text, strlen(text), 0, "t.log", f);
	finding_finalize(f, NULL);
}

static void expect(const char *text, enum finding_outcome outcome, const char *fault_class,
		   struct finding *f)
{
	analyze(text, f);
	cr_assert_eq(f->outcome, outcome, "outcome %s", finding_outcome_name(f->outcome));
	cr_assert_str_eq(finding_fault_class_name(f->fault_class), fault_class);
}

/* §1.1 */
Test(finding_stops, the_most_specific_queue_status_decides)
{
	struct finding f;

	expect(START EXCEPTION MEMORY_FAULT SIGNAL6, OUTCOME_MAF, "illegal_memory_access", &f);
	/* the kernel of the line whose status decided: this one names none */
	cr_assert_null(f.kernel_name);
	finding_release(&f);
	/* an EXCEPTION after the fault does not take it back */
	expect(START MEMORY_FAULT EXCEPTION SIGNAL6, OUTCOME_MAF, "illegal_memory_access", &f);
	finding_release(&f);
}

/* §1.2 */
Test(finding_stops, the_launch_in_flight_from_trace_lines)
{
	struct finding f;

	expect(START
	       "[HRR launch] seq=9100 kernel=1 launch=MOD grid=[1,1,1] block=[64,1,1] shared=0 args=5 snapshots=0 name=\"k_done\"\n"
	       "[HRR progress] elapsed_s=0.5 seq=9100 kernels=1 d2h_pass=0 d2h_fail=0 d2h_attempted=0 last=\"k_done\"\n"
	       "[HRR launch] seq=9108 kernel=2 launch=MOD grid=[1,1,1] block=[64,1,1] shared=0 args=5 snapshots=0 name=\"k_flight\"\n"
	       "Memory access fault by GPU node-4 (Agent handle: 0x1) on address 0x1000. Reason: Unknown.\n",
	       OUTCOME_MAF, "illegal_memory_access", &f);
	cr_assert_str_eq(f.kernel_name, "k_flight");
	cr_assert_eq(f.failing_event_seq, 9108);
	finding_release(&f);

	expect(START
	       "[HRR sync begin] seq=5003 kernel=1 name=\"k_one\"\n"
	       "[HRR sync done] seq=5003 kernel=1 status=success\n"
	       "[HRR sync begin] seq=5004 kernel=2 name=\"k_two\"\n"
	       MEMORY_FAULT,
	       OUTCOME_MAF, "illegal_memory_access", &f);
	cr_assert_str_eq(f.kernel_name, "k_two");
	cr_assert_eq(f.failing_event_seq, 5004);
	finding_release(&f);
}

/* §1.3 */
Test(finding_stops, device_codes_from_every_sync_failure_form)
{
	struct finding f;

	expect(START "[HRR] hipStreamSynchronize error 700 (an illegal memory access was encountered)\n"
	       "[HRR] Fatal: aborting replay after error in hipStreamSynchronize\n",
	       OUTCOME_MAF, "illegal_memory_access", &f);
	finding_release(&f);
	expect(START "[HRR] Fatal: hipDeviceSynchronize after pass failed: 719 (unspecified launch failure)\n",
	       OUTCOME_ABORT, "kernel_fault", &f);
	finding_release(&f);
}

/* §1.4 */
Test(finding_stops, code_built_for_another_gpu)
{
	struct finding f;

	expect(START "hipErrorNoBinaryForGpu: Unable to find code object for all current devices!\n" SIGNAL6,
	       OUTCOME_ABORT, "code_object_mismatch", &f);
	finding_release(&f);
	expect(START ":1:hip_fatbin.cpp           :109 : 95708404081 us: [pid:1 tid:0x1] Missing CO for these ISAs - \n"
	       "Segmentation fault (core dumped)\n" "[hrr-docker-replay] replay killed by signal 11\n",
	       OUTCOME_ABORT, "code_object_mismatch", &f);
	finding_release(&f);
	/* the load failure and the failed launches after it: the code object */
	expect(START "[HRR] Failed to load code object 512b31a1: 209 (no kernel image is available for execution on the device)\n"
	       "[HRR]   Events failed  : 4 (continued past each)\n"
	       "[HRR]   Code objects   : 1 unloadable (continued)\n" "[HRR] FAIL\n",
	       OUTCOME_FAIL, "code_object_mismatch", &f);
	finding_release(&f);

	/* another base architecture than the capture's, on a failed replay */
	fs_classify_text(START EXCEPTION SIGNAL6, strlen(START EXCEPTION SIGNAL6), 0, "t.log", &f);
	f.capture_gcn_arch = strdup("gfx942:sramecc+:xnack-");
	finding_finalize(&f, NULL);
	cr_assert_str_eq(finding_fault_class_name(f.fault_class), "code_object_mismatch");
	finding_release(&f);
}

/* §1.5 */
Test(finding_stops, a_device_assert_before_its_queue_abort)
{
	struct finding f;

	expect(START "main.cpp:6: void f(): Device-side assertion `false' failed.\n" EXCEPTION
	       "Aborted (core dumped)\n",
	       OUTCOME_ABORT, "device_assert", &f);
	finding_release(&f);
}

/* §1.6 */
Test(finding_stops, rocr_explains_its_abort)
{
	struct finding f;

	expect(START "Memory critical error by agent node-1 (Agent handle: 0x2aecc9cfe0) on address "
	       "0x3f8b182000. Reason: Memory in use.\n" SIGNAL6,
	       OUTCOME_ABORT, "replay_aborted", &f);
	cr_assert(fs_has_note(&f, "Memory in use"));
	finding_release(&f);
}

/* §1.7 */
Test(finding_stops, replay_fidelity_caveats_from_the_log)
{
	struct finding f;

	fs_classify_text(START "[HRR] 'k' arg[2]: recorded 0x7f6a2c400000 is in no known allocation — passing null\n"
			 "[HRR] PASS\n", strlen(START) + 96, 0, "t.log", &f);
	f.capture_gcn_arch = strdup("gfx90a:sramecc+:xnack+");
	finding_finalize(&f, NULL);
	cr_assert(fs_has_label(&f, "MISSING-HANDLE"));
	cr_assert(fs_has_note(&f, "XNACK off"));
	finding_release(&f);
}

/* §1.8 */
Test(finding_stops, one_replays_pass_never_hides_the_others_fault)
{
	struct finding f;

	expect(START "[HRR] PASS\n" START
	       "Memory access fault by GPU node-4 (Agent handle: 0x1) on address 0x1000. Reason: Unknown.\n",
	       OUTCOME_MAF, "illegal_memory_access", &f);
	cr_assert(fs_has_label(&f, "CONCATENATED"));
	cr_assert(fs_has_note(&f, "banners at lines 1, 4"));
	finding_release(&f);
	expect(START "[HRR] PASS\n" START "[HRR] PASS\n", OUTCOME_PASS, "replay_pass", &f);
	cr_assert(fs_has_label(&f, "CONCATENATED"));
	finding_release(&f);
	/* a replay without a verdict is worse than a PASS */
	expect(START "[HRR] PASS\n" START, OUTCOME_UNKNOWN, "unknown", &f);
	finding_release(&f);
}

/* §1.9 */
Test(finding_stops, a_schedulers_kill_is_a_clock)
{
	static const char *const kills[] = {
		"slurmstepd: error: *** JOB 867816 ON c0700a-s1 CANCELLED AT 2021-05-11T12:06:17 DUE TO TIME LIMIT ***\n",
		"=>> PBS: job killed: walltime 86415 exceeded limit 86400\n",
		"TERM_RUNLIMIT: job killed after reaching LSF run time limit.\n",
	};
	struct finding f;

	for (size_t i = 0; i < sizeof(kills) / sizeof(kills[0]); i++) {
		char text[512];

		snprintf(text, sizeof(text), "%s%s", START, kills[i]);
		expect(text, OUTCOME_HANG, "hang", &f);
		finding_release(&f);
	}
	/* a verdict printed first is the replay's own */
	expect(START "[HRR] FAIL\n"
	       "slurmstepd: error: *** JOB 1 ON n CANCELLED AT 2021-05-11T12:06:17 DUE TO TIME LIMIT ***\n",
	       OUTCOME_FAIL, "unknown", &f);
	finding_release(&f);
}

/* §2 */
Test(finding_stops, evidence_no_rule_read_is_listed)
{
	struct finding f;

	analyze(START
		":3:hip_module.cpp           :678 : 7950 us: [pid:1 tid:0x1] hipLaunchKernel: Returned hipErrorInvalidDeviceFunction :\n"
		"[  402.306487] amdgpu 0000:2f:00.0: amdgpu: [gfxhub] page fault (src_id:0 ring:24 vmid:8 pasid:32772)\n"
		"[  402.306490] amdgpu 0000:2f:00.0: amdgpu:  Process python3 pid 4010 thread python3 pid 4010\n"
		"stl_vector.h:1045: reference operator[](size_type): Assertion `__n < this->size()' failed.\n",
		&f);
	cr_assert_eq(f.outcome, OUTCOME_UNKNOWN);
	cr_assert_eq(f.n_unread, 3);
	cr_assert_str_eq(f.unread[0].kind, "hipErrorInvalidDeviceFunction");
	cr_assert_eq(f.unread[0].line, 3);
	cr_assert_str_eq(f.unread[1].kind, "amdgpu");
	cr_assert_eq(f.unread[1].count, 2);
	cr_assert_str_eq(f.unread[2].kind, "Assertion");
	cr_assert(fs_has_note(&f, "the log holds evidence no rule read: line 3"));
	finding_release(&f);

	/* a line a rule read is never listed; info-level runtime lines are not evidence */
	analyze(":3:rocdevice.cpp            :415 : 2150276158200 us:  Initalizing runtime stack\n"
		START MEMORY_FAULT "[HRR] PASS\n", &f);
	cr_assert_eq(f.n_unread, 0);
	finding_release(&f);
}

Test(finding_stops, unread_evidence_is_bounded)
{
	struct strbuf sb = STRBUF_INIT;
	struct finding f;

	strbuf_addstr(&sb, START);
	for (int i = 0; i < 30; i++)
		strbuf_addf(&sb, "x hipErrorNoSuchName%d %0300d\n", i, 0);
	analyze(sb.buf, &f);
	cr_assert_eq(f.n_unread, FINDING_MAX_UNREAD);
	for (size_t i = 0; i < f.n_unread; i++)
		cr_assert_leq(strlen(f.unread[i].text), FINDING_UNREAD_TEXT_MAX);
	finding_release(&f);
	strbuf_release(&sb);
}

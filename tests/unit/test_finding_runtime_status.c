/* The runtime status table (orchestrator/finding/runtime_status.h) and the
 * classifier reading it: every status of hsa.h and hsa_ext_amd.h in every
 * form CLR's queue callback has printed it (rocdevice.cpp), and HIP's
 * device-side codes in hrr-playback's lines. Table-driven: a row added to
 * the table is tested here without a line of test code. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "common/strbuf.h"
#include "orchestrator/finding/finding.h"
#include "orchestrator/finding/runtime_status.h"
#include "tests/support/finding_samples.h"

#define START "[HRR] Archive : 12 events, 2 kernels, 3 blobs, 1 code objects\n" \
	      "[HRR] Device  : AMD Instinct MI300X (gfx942:sramecc+:xnack-)\n"
#define KERNEL "Cijk_Alik_Bljk_HHS_BH_MT128x128x32_MI32x32x8_SN_K1"

/* The forms of the queue-abort line, each a printf format taking the
 * status name, its text and its code (the oldest form takes the code only,
 * printed with %x as the others are). */
enum form { OLD, NEW, NEW_BRACKET, CAPITAL, OLDEST, PID_PREFIXED, CI_PREFIXED, N_FORMS };

static void abort_line(struct strbuf *sb, enum form form, const struct runtime_status *st)
{
	unsigned code = (unsigned)st->code;

	switch (form) {
	case OLD: /* ROCm 4-5: "Device::callbackQueue", two blanks after the name's colon */
		strbuf_addf(sb, ":0:rocdevice.cpp            :2533: 1732030588683 us: Device::callbackQueue "
			    "aborting with error : %s:  %s. code: 0x%x\n", st->name, st->meaning, code);
		break;
	case NEW: /* ROCm 5.5 on: the queue's address */
		strbuf_addf(sb, ":0:rocdevice.cpp            :2993: 89254173988 us:  Callback: Queue "
			    "0x7f3056e00000 aborting with error : %s: %s. code: 0x%x\n", st->name,
			    st->meaning, code);
		break;
	case NEW_BRACKET: /* newer runtimes name the kernel */
		strbuf_addf(sb, ":0:rocdevice.cpp            :3020: 4411 us:  Callback: Queue "
			    "0x7f3a2c000000 aborting with error : %s: %s. code: 0x%x [GPU index: 0, "
			    "kernel: " KERNEL "]\n", st->name, st->meaning, code);
		break;
	case CAPITAL: /* the out-of-resources branch: capital A and C, free memory */
		strbuf_addf(sb, ":0:rocdevice.cpp            :2995: 2319441567 us:  Callback: Queue "
			    "0x7f3a2c000000 Aborting with error : %s: %s. Code: 0x%x Available Free "
			    "mem : 0 MB\n", st->name, st->meaning, code);
		break;
	case OLDEST: /* ROCm 4.0: the code alone */
		strbuf_addf(sb, ":0:rocdevice.cpp            :2303: 768423197593 us: Device::callbackQueue "
			    "aborting with status: 0x%x\n", code);
		break;
	case PID_PREFIXED: /* AMD_LOG_LEVEL's pid/tid column */
		strbuf_addf(sb, ":0:rocdevice.cpp            :3020: 2319441567 us: [pid:1290  tid:0x7f21a"
			    "bfff640] Callback: Queue 0x7f3a2c000000 aborting with error : %s: %s. code: "
			    "0x%x\n", st->name, st->meaning, code);
		break;
	case CI_PREFIXED: /* a CI log's timestamp, colour, container runtime's stream tag */
		strbuf_addf(sb, "2026-01-01T00:00:00.123456789Z stderr F \x1b[31m:0:rocdevice.cpp"
			    "            :2993: 89254173988 us:  Callback: Queue 0x7f3056e00000 aborting "
			    "with error : %s: %s. code: 0x%x\x1b[0m\r\n", st->name, st->meaning, code);
		break;
	default:
		break;
	}
}

static void analyze_text(const char *text, struct finding *f)
{
	fs_classify_text(text, strlen(text), 7, "text", f);
	finding_finalize(f, NULL);
}

/* Every row, both lookups. */
Test(finding_runtime_status, every_row_by_name_and_by_code)
{
	size_t hsa = 0, hip = 0;

	for (size_t i = 0; i < runtime_status_count(); i++) {
		const struct runtime_status *st = runtime_status_at(i);

		cr_assert_eq(runtime_status_by_name(st->name, strlen(st->name)), st, "%s", st->name);
		if (st->origin == RUNTIME_HIP) {
			cr_assert_eq(runtime_status_by_hip_code(st->code), st, "%s", st->name);
			cr_assert_null(runtime_status_by_hsa_code(st->code), "%s", st->name);
			hip++;
		} else {
			cr_assert_eq(runtime_status_by_hsa_code(st->code), st, "%s", st->name);
			hsa++;
		}
	}
	/* hsa.h: 35 (SUCCESS .. FATAL); hsa_ext_amd.h: 8 (40 .. 47). */
	cr_assert_eq(hsa, 43);
	/* 700, 710, 719, 702; 209 (issue 40: code built for another GPU) */
	cr_assert_eq(hip, 5);
	cr_assert_null(runtime_status_by_name("HSA_STATUS_ERROR_ABORTED", 24),
		       "not a status of hsa.h, whatever some logs print");
	cr_assert_null(runtime_status_by_hip_code(98), "not a device-side code");
	cr_assert_eq(runtime_status_other()->fault_class, FAULT_REPLAY_ABORTED);
}

/* The table, row by row. */
Test(finding_runtime_status, the_mapping)
{
	static const struct {
		const char *name;
		long code;
		enum finding_outcome outcome;
		const char *cls;
	} want[] = {
		{ "HSA_STATUS_ERROR_MEMORY_FAULT", 0x2b, OUTCOME_MAF, "illegal_memory_access" },
		{ "HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION", 0x29, OUTCOME_MAF, "illegal_memory_access" },
		{ "hipErrorIllegalAddress", 700, OUTCOME_MAF, "illegal_memory_access" },
		{ "HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION", 0x2a, OUTCOME_ABORT, "illegal_instruction" },
		{ "hipErrorAssert", 710, OUTCOME_ABORT, "device_assert" },
		{ "hipErrorLaunchFailure", 719, OUTCOME_ABORT, "kernel_fault" },
		{ "hipErrorLaunchTimeOut", 702, OUTCOME_HANG, "gpu_hang" },
		{ "HSA_STATUS_ERROR_EXCEPTION", 0x1016, OUTCOME_ABORT, "replay_aborted" },
		{ "HSA_STATUS_ERROR_INVALID_ISA", 0x100f, OUTCOME_ABORT, "code_object_mismatch" },
		{ "HSA_STATUS_ERROR_INVALID_CODE_OBJECT", 0x1010, OUTCOME_ABORT, "code_object_mismatch" },
		{ "HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS", 0x100d, OUTCOME_ABORT, "code_object_mismatch" },
		{ "HSA_STATUS_ERROR_OUT_OF_RESOURCES", 0x1008, OUTCOME_ABORT, "out_of_resources" },
		{ "HSA_STATUS_ERROR_INVALID_ALLOCATION", 0x1003, OUTCOME_ABORT, "out_of_resources" },
		{ "HSA_STATUS_ERROR_FATAL", 0x1026, OUTCOME_ABORT, "replay_aborted" },
		{ "HSA_STATUS_ERROR_NOT_SUPPORTED", 0x2f, OUTCOME_ABORT, "replay_aborted" },
		{ "HSA_STATUS_SUCCESS", 0, OUTCOME_UNKNOWN, "unknown" },
	};

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct runtime_status *st =
			runtime_status_by_name(want[i].name, strlen(want[i].name));

		cr_assert_not_null(st, "%s", want[i].name);
		cr_assert_eq(st->code, want[i].code, "%s", want[i].name);
		cr_assert_eq(st->outcome, want[i].outcome, "%s", want[i].name);
		cr_assert_str_eq(finding_fault_class_name(st->fault_class), want[i].cls, "%s",
				 want[i].name);
		cr_assert(!finding_class_against_gpu(st->fault_class) ||
			  st->fault_class == FAULT_GPU_HANG, "%s", want[i].name);
	}
}

/* Every error status, in every form of the line, then the abort's signal:
 * the table's outcome and class, never replay_crashed. */
Test(finding_runtime_status, every_status_in_every_form)
{
	for (size_t i = 0; i < runtime_status_count(); i++) {
		const struct runtime_status *st = runtime_status_at(i);

		if (st->origin == RUNTIME_HIP || st->outcome == OUTCOME_UNKNOWN)
			continue;
		for (enum form form = OLD; form < N_FORMS; form++) {
			struct strbuf text = STRBUF_INIT;
			struct finding f;

			strbuf_addstr(&text, START);
			abort_line(&text, form, st);
			strbuf_addstr(&text, "[hrr-docker-replay] replay killed by signal 6\n");
			analyze_text(text.buf, &f);
			cr_assert_eq(f.outcome, st->outcome, "%s form %d: %s", st->name, form,
				     finding_outcome_name(f.outcome));
			cr_assert_eq(f.fault_class, st->fault_class, "%s form %d: %s", st->name, form,
				     finding_fault_class_name(f.fault_class));
			if (form == NEW_BRACKET)
				cr_assert_str_eq(f.kernel_name, KERNEL, "%s", st->name);
			if (form != OLDEST)
				cr_assert(fs_has_note(&f, st->name), "%s form %d names it", st->name, form);
			finding_release(&f);
			strbuf_release(&text);
		}
	}
}

/* A status this version does not know: ABORT, replay_aborted, named. */
Test(finding_runtime_status, unknown_status_is_named)
{
	struct finding f;

	analyze_text(START ":0:rocdevice.cpp            :2993: 89254173988 us:  Callback: Queue "
		     "0x7f3056e00000 aborting with error : HSA_STATUS_ERROR_FUTURE_THING: Something "
		     "new. code: 0x1099\n", &f);
	cr_assert_eq(f.outcome, OUTCOME_ABORT);
	cr_assert_eq(f.fault_class, FAULT_REPLAY_ABORTED);
	cr_assert(fs_has_note(&f, "HSA_STATUS_ERROR_FUTURE_THING"));
	cr_assert(fs_has_note(&f, "does not know"));
	finding_release(&f);

	analyze_text(START ":0:rocdevice.cpp            :2303: 768423197593 us: Device::callbackQueue "
		     "aborting with status: 0x1099\n", &f);
	cr_assert_eq(f.fault_class, FAULT_REPLAY_ABORTED);
	cr_assert(fs_has_note(&f, "code 0x1099"));
	finding_release(&f);

	/* A status name anywhere, not only in the queue callback. */
	analyze_text(START "hsa api call failure at: rocvirtual.cpp:3388 "
		     "HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION\n", &f);
	cr_assert_eq(f.fault_class, FAULT_ILLEGAL_INSTRUCTION);
	finding_release(&f);
}

/* HIP 700 in the sync after a launch names that launch's kernel. */
Test(finding_runtime_status, hip_700_after_a_launch)
{
	struct finding f;

	analyze_text(START "[HRR] Event 5: hipModuleLaunchKernel -> Kernel '" KERNEL "'\n"
		     "[HRR] GPU error after '" KERNEL "': 700 (an illegal memory access was "
		     "encountered) last=700 (an illegal memory access was encountered)\n"
		     "[HRR] Fatal: T1 Event 5 (hipModuleLaunchKernel) returned 700 (an illegal memory "
		     "access was encountered) — aborting replay\n"
		     "[HRR] Replay aborted due to fatal HIP error — exiting\n", &f);
	cr_assert_eq(f.outcome, OUTCOME_MAF);
	cr_assert_eq(f.fault_class, FAULT_ILLEGAL_MEMORY_ACCESS);
	cr_assert_str_eq(f.kernel_name, KERNEL);
	cr_assert(fs_has_note(&f, "synchronisation after the launch"));
	finding_release(&f);
}

/* HIP 700 on a later copy: a MAF, but no launch is named from the log. */
Test(finding_runtime_status, hip_700_on_a_later_copy)
{
	struct finding f;

	analyze_text(START "[HRR] Event 5: hipModuleLaunchKernel -> Kernel '" KERNEL "'\n"
		     "[HRR] Event 6: hipModuleLaunchKernel -> Kernel 'other_kernel'\n"
		     "[HRR] Event 7: hipMemcpyDtoH\n"
		     "[HRR] Fatal: T1 Event 7 (hipMemcpyDtoH) returned 700 (hipErrorIllegalAddress) "
		     "— aborting replay\n"
		     "[HRR] Replay aborted due to fatal HIP error — exiting\n", &f);
	cr_assert_eq(f.outcome, OUTCOME_MAF);
	cr_assert_eq(f.fault_class, FAULT_ILLEGAL_MEMORY_ACCESS);
	cr_assert_null(f.kernel_name, "%s", f.kernel_name);
	cr_assert_str_eq(f.failing_api, "hipMemcpyDtoH");
	cr_assert(fs_has_note(&f, "a later call, hipMemcpyDtoH"));
	cr_assert(fs_has_note(&f, "is not taken as its kernel"));
	finding_release(&f);
}

/* 710, 719, 702, by code in hrr-playback's lines and by name. */
Test(finding_runtime_status, hip_710_719_702)
{
	static const struct {
		const char *line;
		enum finding_outcome outcome;
		enum finding_fault_class cls;
		const char *note;
	} cases[] = {
		{ "[HRR] GPU error after '" KERNEL "': 710 (device-side assert triggered) last=710 "
		  "(device-side assert triggered)\n", OUTCOME_ABORT, FAULT_DEVICE_ASSERT, "assert" },
		{ "[HRR] Fatal: T1 Event 9 (hipStreamSynchronize) returned 719 (unspecified launch "
		  "failure) — aborting replay\n", OUTCOME_ABORT, FAULT_KERNEL_FAULT, "unknown kind" },
		{ "[HRR] Fatal: GPU error after T1 Event 9 (hipModuleLaunchKernel): 702 (the launch "
		  "timed out and was terminated) — aborting\n", OUTCOME_HANG, FAULT_GPU_HANG, "702" },
		{ "RuntimeError: HIP error: hipErrorLaunchFailure\n", OUTCOME_ABORT, FAULT_KERNEL_FAULT,
		  "hipErrorLaunchFailure" },
		{ "[HRR] HIP error 719 (unspecified launch failure) at hip_playback.cpp:812\n",
		  OUTCOME_ABORT, FAULT_KERNEL_FAULT, "719" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct strbuf text = STRBUF_INIT;
		struct finding f;

		strbuf_addf(&text, START "%s", cases[i].line);
		analyze_text(text.buf, &f);
		cr_assert_eq(f.outcome, cases[i].outcome, "%zu: %s", i, finding_outcome_name(f.outcome));
		cr_assert_eq(f.fault_class, cases[i].cls, "%zu: %s", i,
			     finding_fault_class_name(f.fault_class));
		cr_assert(fs_has_note(&f, cases[i].note), "%zu", i);
		finding_release(&f);
		strbuf_release(&text);
	}
}

/* A status that is not an error never decides, and a hipErrorOutOfMemory
 * stays replay_oom. */
Test(finding_runtime_status, not_errors)
{
	struct finding f;

	analyze_text(START "Callback: Queue 0x1 aborting with error : HSA_STATUS_INFO_BREAK: A "
		     "traversal. code: 0x1\n[HRR] PASS\n", &f);
	cr_assert_eq(f.outcome, OUTCOME_PASS);
	finding_release(&f);
	analyze_text(START "[HRR] Fatal: T1 Event 3 (hipMalloc) returned 2 (hipErrorOutOfMemory) — "
		     "aborting replay\n", &f);
	cr_assert_eq(f.fault_class, FAULT_REPLAY_OOM);
	finding_release(&f);
}

/* Only the classes against the GPU count against it: a wrong image, an
 * assert or a kernel fault never does. */
Test(finding_runtime_status, only_gpu_classes_against_the_gpu)
{
	enum finding_fault_class c;

	cr_assert(finding_fault_class_from_name("code_object_mismatch", &c));
	cr_assert_eq(c, FAULT_CODE_OBJECT_MISMATCH);
	cr_assert(!finding_class_against_gpu(FAULT_CODE_OBJECT_MISMATCH));
	cr_assert(!finding_class_against_gpu(FAULT_ILLEGAL_INSTRUCTION));
	cr_assert(!finding_class_against_gpu(FAULT_DEVICE_ASSERT));
	cr_assert(!finding_class_against_gpu(FAULT_KERNEL_FAULT));
	cr_assert(!finding_class_against_gpu(FAULT_OUT_OF_RESOURCES));
	cr_assert(!finding_class_against_gpu(FAULT_D2H_NOT_COMPARED));
	cr_assert(finding_class_against_gpu(FAULT_GPU_HANG));
	cr_assert(!finding_fault_class_from_name("no_such_class", &c));
}

/* The status a note names travels as the row itself (the debugger step
 * asks the row, never the note): only the HSA exception and the memory
 * fault are faults on the GPU. */
Test(finding_runtime_status, the_noted_status_is_the_row_and_only_two_are_gpu_faults)
{
	struct finding f;
	size_t faults = 0;

	for (size_t i = 0; i < runtime_status_count(); i++)
		faults += runtime_status_gpu_fault(runtime_status_at(i));
	cr_assert_eq(faults, 2);
	cr_assert(!runtime_status_gpu_fault(NULL));
	cr_assert(!runtime_status_gpu_fault(runtime_status_other()));
	analyze_text(START "Callback: Queue 0x1 aborting with error : HSA_STATUS_ERROR_EXCEPTION: "
		     "An HSAIL operation resulted in a hardware exception. code: 0x1016\n", &f);
	cr_assert_eq(f.outcome, OUTCOME_ABORT);
	cr_assert(f.runtime_status && runtime_status_gpu_fault(f.runtime_status));
	cr_assert(fs_has_note(&f, "HSA_STATUS_ERROR_EXCEPTION"));
	finding_release(&f);
	analyze_text(START "Callback: Queue 0x1 aborting with error : HSA_STATUS_ERROR_INVALID_ISA: "
		     "The instruction set architecture is invalid. code: 0x100f\n", &f);
	cr_assert(f.runtime_status && !runtime_status_gpu_fault(f.runtime_status));
	finding_release(&f);
	analyze_text(START "[HRR] PASS\n", &f);
	cr_assert_null(f.runtime_status);
	finding_release(&f);
}

/* FAIL says what failed, upstream's labels from the log, and the runtime
 * status samples of the classifier's fuzz corpus
 * (tests/fuzz/corpus/classifier: status_*, hip_7*, fail_*, label_*), each
 * with the fields a triager acts on. */
#include <criterion/criterion.h>
#include <string.h>

#include "orchestrator/finding/finding.h"
#include "tests/support/finding_samples.h"

#define K "Cijk_Alik_Bljk_HHS_BH_MT128x128x32_MI32x32x8_SN_LDSB0_GRVW8_K1_PGR1_PLR1_SU32_SUS256_SVW4_TT4_64_WG32_4_1"

struct sample {
	const char *file;
	enum finding_outcome outcome;
	const char *fault_class;
	const char *kernel; /* NULL: none */
	const char *note;   /* a part of a note it must have */
	const char *label;  /* a label it must have, or NULL */
};

static const struct sample samples[] = {
	/* The queue-abort line, each generation. */
	{ "status_old_illegal_instruction.log", OUTCOME_ABORT, "illegal_instruction", NULL,
	  "HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION (code 0x2a)", NULL },
	{ "status_new_invalid_isa.log", OUTCOME_ABORT, "code_object_mismatch", K,
	  "does not fit this GPU", NULL },
	{ "status_capital_out_of_resources.log", OUTCOME_ABORT, "out_of_resources", NULL,
	  "HSA_STATUS_ERROR_OUT_OF_RESOURCES", NULL },
	{ "status_oldest_code_only.log", OUTCOME_ABORT, "code_object_mismatch", NULL,
	  "HSA_STATUS_ERROR_INVALID_ISA", NULL },
	/* HIP's device-side codes. */
	{ "hip_700_later_copy.log", OUTCOME_MAF, "illegal_memory_access", NULL,
	  "a later call, hipMemcpyDtoH", NULL },
	{ "hip_710_assert.log", OUTCOME_ABORT, "device_assert", K, "device-side assert", NULL },
	{ "hip_719_launch_failure.log", OUTCOME_ABORT, "kernel_fault", NULL, "unknown kind", NULL },
	{ "hip_702_launch_timeout.log", OUTCOME_HANG, "gpu_hang", NULL, "702", NULL },
	/* FAIL says what failed. */
	{ "fail_d2h_not_compared.log", OUTCOME_FAIL, "d2h_not_compared", NULL, "compared none",
	  NULL },
	{ "fail_replay_api_errors.log", OUTCOME_FAIL, "replay_api_errors", NULL,
	  "--continue-on-error", NULL },
	{ "fail_code_object_unloadable.log", OUTCOME_FAIL, "code_object_unloadable", NULL,
	  "could not be loaded", NULL },
	{ "fail_region_violation.log", OUTCOME_FAIL, "region_violation", NULL, "--regions-strict",
	  NULL },
	{ "fail_no_cause.log", OUTCOME_FAIL, "unknown", NULL, "without saying why", NULL },
	/* Upstream's labels from the log. */
	{ "label_multi_process_refusal.log", OUTCOME_UNKNOWN, "unknown", NULL,
	  "(/arch/capture.hrr/pid-1234, /arch/capture.hrr/pid-1301)", "MULTI-PROCESS" },
	{ "label_graph_refusal.log", OUTCOME_ABORT, "replay_fatal_api", NULL, "explicit node API",
	  "NOOP-API" },
	{ "label_noop_handler.log", OUTCOME_PASS, "replay_pass", NULL, "hipMemAdvise as a no-op",
	  "NOOP-API" },
};

Test(finding_fail_causes, samples)
{
	for (size_t i = 0; i < sizeof(samples) / sizeof(samples[0]); i++) {
		const struct sample *s = &samples[i];
		struct finding f;

		fs_analyze_sample(s->file, &f);
		cr_expect_eq(f.outcome, s->outcome, "%s: %s", s->file, finding_outcome_name(f.outcome));
		cr_expect_str_eq(finding_fault_class_name(f.fault_class), s->fault_class, "%s", s->file);
		if (s->kernel)
			cr_expect_str_eq(f.kernel_name ? f.kernel_name : "(none)", s->kernel, "%s", s->file);
		else
			cr_expect_null(f.kernel_name, "%s: %s", s->file, f.kernel_name);
		cr_expect(fs_has_note(&f, s->note), "%s: a note with '%s'", s->file, s->note);
		if (s->label)
			cr_expect(fs_has_label(&f, s->label), "%s: label %s", s->file, s->label);
		cr_expect(!fs_has_label(&f, "CLEAN") || f.outcome == OUTCOME_PASS, "%s", s->file);
		cr_expect(!finding_class_against_gpu(f.fault_class) ||
			  f.fault_class == FAULT_GPU_HANG, "%s: not against the GPU", s->file);
		finding_release(&f);
	}
}

/* A D2H check that failed is a divergence, whatever else the summary
 * counted; and a PASS with a region count but no --regions-strict is a PASS. */
Test(finding_fail_causes, divergence_only_when_a_check_failed)
{
	static const char both[] =
		"[HRR] DtoH D2H FAIL seq=12 (exact): 4096 bytes, 8/4096 bytes differ, first@0 (got "
		"0x01 exp 0x00)\n"
		"[HRR]   D2H checks     : 1 pass (1 exact, 0 within tol), 1 fail, 0 skipped\n"
		"[HRR]   Events failed  : 3 (continued past each)\n"
		"[HRR] FAIL\n";
	static const char lenient[] =
		"[HRR]   Region check   : 4410 pointer(s) checked, 3 intra-segment out-of-bounds/stale\n"
		"[HRR]   D2H checks     : 5 pass (5 exact, 0 within tol), 0 fail, 0 skipped\n"
		"[HRR] PASS\n";
	struct finding f;

	fs_classify_text(both, sizeof(both) - 1, 5, "both", &f);
	finding_finalize(&f, NULL);
	cr_assert_eq(f.fault_class, FAULT_NAN_INF_DIVERGENCE);
	cr_assert(fs_has_note(&f, "3 replayed API calls failed"), "the other cause is still said");
	finding_release(&f);

	fs_classify_text(lenient, sizeof(lenient) - 1, 0, "lenient", &f);
	finding_finalize(&f, NULL);
	cr_assert_eq(f.outcome, OUTCOME_PASS);
	cr_assert_eq(f.fault_class, FAULT_REPLAY_PASS);
	finding_release(&f);
}

/* (MISSING!) wherever hrr-playback prints a translation, colour and all. */
Test(finding_fail_causes, missing_handle_anywhere_in_an_hrr_line)
{
	static const char text[] =
		"[HRR]   arg[2]: ptr 0x7f2200000000 -> (nil) (MISSING!)\x1b[0m\n"
		"[HRR] PASS\n";
	struct finding f;

	fs_classify_text(text, sizeof(text) - 1, 0, "missing", &f);
	finding_finalize(&f, NULL);
	cr_assert(fs_has_label(&f, "MISSING-HANDLE"));
	cr_assert(!fs_has_label(&f, "CLEAN"));
	finding_release(&f);
}

/* The multi-process listing ends at the first line that is not one; a
 * later summary line is not a pid directory. */
Test(finding_fail_causes, pid_listing_ends)
{
	static const char text[] =
		"[HRR] Archive root /a contains multiple process captures; point hrr-playback at a "
		"specific pid directory:\n"
		"[HRR]   /a/pid-1\n"
		"[HRR]   /a/pid-2\n"
		"[HRR] Something else\n"
		"[HRR]   Wall time      : 1.0 ms\n";
	struct finding f;

	fs_classify_text(text, sizeof(text) - 1, 3, "root", &f);
	finding_finalize(&f, NULL);
	cr_assert(fs_has_label(&f, "MULTI-PROCESS"));
	cr_assert(fs_has_note(&f, "(/a/pid-1, /a/pid-2)"));
	cr_assert(!fs_has_note(&f, "Wall time"));
	finding_release(&f);
}

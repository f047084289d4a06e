/* The real formats' variants (docs/formats.md, "Variants the classifier
 * handles"): one test per case, each on a sample of the classifier's fuzz
 * corpus (tests/fuzz/corpus/classifier/variant_*.log) or on text built
 * here, with the fields a triager acts on. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "common/strbuf.h"
#include "common/text.h"
#include "common/xalloc.h"
#include "orchestrator/finding/finding.h"
#include "tests/support/finding_samples.h"

#define ATEN_M "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEESt5arrayIPcLm1EEEEviT0_T1_"

static bool no_escape(const char *s)
{
	return s && !strchr(s, '\x1b');
}

/* 1: a fault spliced onto the launch line is a MAF in that launch's kernel. */
Test(finding_variants, fault_spliced_onto_launch_line)
{
	struct finding f;

	fs_analyze_sample("variant_spliced_launch.log", &f);
	cr_assert_eq(f.outcome, OUTCOME_MAF, "%s", finding_outcome_name(f.outcome));
	cr_assert_eq(f.fault_class, FAULT_ILLEGAL_MEMORY_ACCESS);
	cr_assert_str_eq(f.kernel_name, ATEN_M);
	cr_assert_str_eq(f.fault_address, "0x7f91da000000");
	cr_assert_str_eq(f.fault_reason, "Page not present or supervisor privilege");
	cr_assert_str_eq(f.gpu_node, "2");
	cr_assert_eq(f.failing_call_index, 7);
	cr_assert_str_eq(f.failing_api, "hipModuleLaunchKernel");
	finding_release(&f);
}

/* 2: a fault after a 1 MiB line without newline is found; memory stays
 * the classifier's fixed buffer. */
Test(finding_variants, fault_after_one_mib_line)
{
	static const char fault[] = "Memory access fault by GPU node-3 (Agent handle: 0x1) on address "
				    "0x7f0040001000. Reason: Unknown.\n";
	size_t dump = 1u << 20;
	char *text = xmalloc(dump + sizeof(fault));
	struct finding f;

	for (size_t i = 0; i < dump; i++)
		text[i] = "0123456789abcdef"[i % 16];
	memcpy(text + dump, fault, sizeof(fault) - 1);
	fs_classify_text(text, dump + sizeof(fault) - 1, 4096, "long", &f);
	free(text);
	cr_assert_eq(f.outcome, OUTCOME_MAF);
	cr_assert_str_eq(f.fault_address, "0x7f0040001000");
	cr_assert_str_eq(f.gpu_node, "3");
	cr_assert_str_eq(f.fault_reason, "Unknown");
	finding_release(&f);

	fs_analyze_sample("variant_long_line.log", &f);
	cr_assert_eq(f.outcome, OUTCOME_MAF, "past the first window of a 96 KB line");
	cr_assert_str_eq(f.fault_address, "0x7f0040001000");
	finding_release(&f);
}

/* A fault that straddles a window edge is read whole, once. */
Test(finding_variants, fault_across_a_window_edge)
{
	static const char fault[] = "Memory access fault by GPU node-4 (Agent handle: 0x1) on address "
				    "0x7f0040002000. Reason: Write access to a read-only page.\n";
	size_t pad = FINDING_LINE_MAX - 20;
	char *text = xmalloc(pad + sizeof(fault));
	struct finding f;

	memset(text, 'z', pad);
	memcpy(text + pad, fault, sizeof(fault) - 1);
	fs_classify_text(text, pad + sizeof(fault) - 1, 0, "edge", &f);
	free(text);
	cr_assert_eq(f.fault_class, FAULT_READ_ONLY_PAGE_FAULT);
	cr_assert_str_eq(f.fault_address, "0x7f0040002000", "the address is not cut at the edge");
	finding_release(&f);
}

/* 3: Reason: on a later line, after another thread's output. */
Test(finding_variants, reason_on_the_next_line)
{
	struct finding f;

	fs_analyze_sample("variant_reason_next_line.log", &f);
	cr_assert_eq(f.outcome, OUTCOME_MAF);
	cr_assert_eq(f.fault_class, FAULT_READ_ONLY_PAGE_FAULT,
		     "%s", finding_fault_class_name(f.fault_class));
	cr_assert_str_eq(f.fault_reason, "Write access to a read-only page");
	cr_assert_str_eq(f.fault_address, "0xdeadbeef");
	cr_assert_eq(f.failing_event_seq, 41, "the heartbeat spliced into the fault line is read");
	finding_release(&f);
}

/* 4: ROCr's %p of a null address, and its imprecise-address suffix. */
Test(finding_variants, nil_and_imprecise_address)
{
	struct finding f;

	fs_analyze_sample("variant_nil_address.log", &f);
	cr_assert_eq(f.outcome, OUTCOME_MAF);
	cr_assert_str_eq(f.fault_address, "0x0");
	cr_assert_str_eq(f.fault_reason, "Unknown");
	cr_assert_str_eq(f.gpu_node, "1");
	cr_assert(fs_has_note(&f, "(nil)"));
	cr_assert(fs_has_note(&f, "may not be exact"));
	finding_release(&f);

	fs_analyze_sample("variant_imprecise_address.log", &f);
	cr_assert_str_eq(f.fault_address, "0x7f91da001000");
	cr_assert_str_eq(f.fault_reason, "Page not present or supervisor privilege");
	cr_assert(fs_has_note(&f, "may not be exact"));
	finding_release(&f);
}

/* 5: the newer end-of-run summary without the exact/within-tol part. */
Test(finding_variants, newer_d2h_summary)
{
	struct finding f;

	fs_analyze_sample("variant_d2h_summary_newer.log", &f);
	cr_assert_eq(f.outcome, OUTCOME_FAIL);
	cr_assert_eq(f.d2h_pass, 3);
	cr_assert_eq(f.d2h_fail, 2);
	cr_assert_eq(f.d2h_attempted, 5);
	cr_assert_eq(f.kernels_launched, 48);
	finding_release(&f);
}

/* 6: archive health printed by the reader inside the replay log. */
Test(finding_variants, archive_health_in_the_replay_log)
{
	struct finding f;

	fs_analyze_sample("variant_health_no_trailer.log", &f);
	cr_assert_eq(f.archive_complete, 0);
	cr_assert_eq(f.archive_recovered_events, 1412);
	cr_assert(fs_has_label(&f, "CRASH-TRUNCATED"));
	cr_assert_eq(f.outcome, OUTCOME_PASS);
	finding_release(&f);

	fs_analyze_sample("variant_health_complete.log", &f);
	cr_assert_eq(f.archive_complete, 1);
	cr_assert(fs_has_label(&f, "CLEAN"));
	finding_release(&f);
}

/* 7: colour codes never reach an extracted field. */
Test(finding_variants, ansi_colour_is_stripped)
{
	struct finding f;

	fs_analyze_sample("variant_ansi_colour.log", &f);
	cr_assert_eq(f.outcome, OUTCOME_MAF);
	cr_assert_eq(f.failing_event_seq, 12);
	cr_assert(no_escape(f.last_progress_kernel), "%s", f.last_progress_kernel);
	cr_assert(!strncmp(f.last_progress_kernel, "Cijk_Ailk", 9), "%s", f.last_progress_kernel);
	cr_assert(!strstr(f.last_progress_kernel, "[0m"), "%s", f.last_progress_kernel);
	cr_assert_str_eq(f.fault_reason, "Unknown");
	finding_release(&f);
}

/* 8: a name cut inside a UTF-8 character: finding.json stays valid UTF-8,
 * the bad bytes become U+FFFD, the finding is kept. */
Test(finding_variants, split_utf8_name_gives_valid_json)
{
	struct finding f;
	char *json;

	fs_analyze_sample("variant_utf8_split_name.log", &f);
	cr_assert_eq(f.outcome, OUTCOME_MAF);
	cr_assert_not_null(f.last_progress_kernel);
	cr_assert(text_is_utf8(f.last_progress_kernel, strlen(f.last_progress_kernel)));
	cr_assert(strstr(f.last_progress_kernel, "\xef\xbf\xbd"), "U+FFFD where the cut was");
	json = fs_json(&f, NULL);
	cr_assert(text_is_utf8(json, strlen(json)));
	free(json);
	finding_release(&f);
}

/* 9: a log cut mid-line: the cut heartbeat does not replace the last whole
 * one, and a cut kernel name is never used. */
Test(finding_variants, cut_last_line_supplies_no_name_or_number)
{
	struct finding f;

	fs_analyze_sample("variant_cut_progress.log", &f);
	cr_assert_eq(f.failing_event_seq, 2047, "not the cut seq=20");
	cr_assert_eq(f.kernels_launched, 17);
	cr_assert_eq(f.outcome, OUTCOME_MAF);
	finding_release(&f);

	fs_analyze_sample("variant_cut_mfe.log", &f);
	cr_assert_eq(f.outcome, OUTCOME_MAF, "the cut fault line is still a fault");
	cr_assert_str_eq(f.fault_address, "0x7f00c0000000");
	cr_assert(!f.kernel_name || !strstr(f.kernel_name, "BFloat16 co"), "%s", f.kernel_name);
	cr_assert_eq(f.failing_event_seq, 2047);
	finding_release(&f);
}

/* The runner ends a cut line before its marker: classifier_cut_line. */
Test(finding_variants, runner_cut_line_before_marker)
{
	static const char whole[] = "[HRR progress] elapsed_s=1.0 seq=2047 kernels=3 d2h_pass=0 "
				    "d2h_fail=0 d2h_attempted=0 last=\"k1\"\n";
	static const char cut[] = "[HRR progress] elapsed_s=2.0 seq=20";
	static const char marker[] = "\n" MARKER_PREFIX "replay timed out after 5s\n";
	struct classifier *c = classifier_new("run");
	struct finding f;

	classifier_feed(c, whole, sizeof(whole) - 1);
	classifier_feed(c, cut, sizeof(cut) - 1);
	classifier_cut_line(c);
	classifier_feed(c, marker, sizeof(marker) - 1);
	classifier_finish(c, &f);
	classifier_free(c);
	cr_assert_eq(f.failing_event_seq, 2047);
	cr_assert_eq(f.outcome, OUTCOME_HANG, "the marker after the cut line is read");
	finding_release(&f);
}

/* 10: a last line of exactly "[HRR]": nothing past it is read. */
Test(finding_variants, bare_hrr_last_line)
{
	struct finding f;

	fs_analyze_sample("variant_bare_hrr_last.log", &f);
	cr_assert_eq(f.outcome, OUTCOME_PASS);
	cr_assert_eq(f.d2h_pass, 1);
	finding_release(&f);
}

/* A verdict line forged by a kernel name does not outrank the
 * fault and the runner's signal marker. */
Test(finding_variants, forged_pass_loses_to_marker)
{
	struct finding f;

	fs_analyze_sample("variant_forged_pass.log", &f);
	cr_assert_eq(f.outcome, OUTCOME_MAF, "%s", finding_outcome_name(f.outcome));
	cr_assert_eq(f.fault_class, FAULT_ILLEGAL_MEMORY_ACCESS);
	finding_release(&f);
}

Test(finding_variants, marker_alone_outranks_pass_text)
{
	static const char log[] = "[HRR] PASS\n" MARKER_PREFIX "replay killed by signal 11\n";
	struct finding f;

	fs_classify_text(log, sizeof(log) - 1, 0, "forged", &f);
	finding_finalize(&f, NULL);
	cr_assert_eq(f.outcome, OUTCOME_ABORT);
	cr_assert_eq(f.fault_class, FAULT_REPLAY_CRASHED);
	finding_release(&f);
}

/* --info output tells about the archive, never the outcome, and
 * its names have their control characters neutralised. */
Test(finding_variants, info_output_never_sets_the_outcome)
{
	static const char log[] = MARKER_PREFIX "replay timed out after 30s\n";
	struct finding acc, info;

	fs_classify_text(log, sizeof(log) - 1, 0, "replay.log", &acc);
	fs_classify_sample("variant_info_forged.log", &info);
	cr_assert(info.archive_tool_output);
	finding_merge(&acc, &info);
	finding_finalize(&acc, NULL);
	cr_assert_eq(acc.outcome, OUTCOME_HANG, "%s", finding_outcome_name(acc.outcome));
	cr_assert_eq(acc.fault_class, FAULT_HANG);
	cr_assert_eq(acc.archive_complete, 1, "the archive's health is taken");
	cr_assert_eq(acc.archive_kernels, 1);
	for (size_t i = 0; i < acc.archive_kernel_names.n; i++) {
		const char *n = acc.archive_kernel_names.v[i];

		for (const char *p = n; *p; p++)
			cr_assert((unsigned char)*p >= 0x20, "control character in %s", n);
	}
	finding_release(&info);
	finding_release(&acc);
}

/* In a run, PASS needs exit status 0 from the engine. */
Test(finding_variants, pass_needs_exit_status_zero_in_a_run)
{
	static const char log[] = "[HRR]   Kernels launched: 1\n[HRR] PASS\n";
	struct finding_run run = { .exit_code = 1, .ended_by = ENDED_EXIT, .signal = -1 };
	struct finding_context ctx = { .run = &run };
	struct finding f;

	fs_classify_text(log, sizeof(log) - 1, 0, "replay.log", &f);
	finding_finalize(&f, &ctx);
	cr_assert_eq(f.outcome, OUTCOME_UNKNOWN);
	cr_assert(fs_has_note(&f, "exit status 0"));
	finding_release(&f);

	run.exit_code = 0;
	fs_classify_text(log, sizeof(log) - 1, 0, "replay.log", &f);
	finding_finalize(&f, &ctx);
	cr_assert_eq(f.outcome, OUTCOME_PASS);
	finding_release(&f);
}

/* The fault line before ROCr added the agent handle. */
Test(finding_variants, older_fault_line_without_agent_handle)
{
	static const char log[] = "Memory access fault by GPU node-1 on address 0x7f91da000000. "
				  "Reason: Page not present or supervisor privilege.\n";
	struct finding f;

	fs_classify_text(log, sizeof(log) - 1, 0, "old", &f);
	cr_assert_eq(f.outcome, OUTCOME_MAF);
	cr_assert_str_eq(f.gpu_node, "1");
	cr_assert_str_eq(f.fault_address, "0x7f91da000000");
	cr_assert_str_eq(f.fault_reason, "Page not present or supervisor privilege");
	finding_release(&f);
}

/* --info output is recognised by its header even after the reader's own
 * lines; a header forged after a replay began does not make a replay log
 * into --info output. */
Test(finding_variants, info_output_is_recognised_by_its_header)
{
	static const char info[] = "[HRR] Archive has no clean-shutdown trailer (capture likely "
				   "crashed); recovered 3 events\nHRR Archive: /a/pid-1\n"
				   "Complete:     NO (no shutdown trailer; capture likely crashed)\n";
	static const char replay[] = "[HRR] Archive : 3 events, 1 kernels, 0 blobs, 1 code objects\n"
				     "HRR Archive: /forged\n[HRR] FAIL\n";
	struct finding f;

	fs_classify_text(info, sizeof(info) - 1, 0, "info", &f);
	cr_assert(f.archive_tool_output);
	cr_assert_eq(f.archive_complete, 0);
	cr_assert_eq(f.archive_recovered_events, 3);
	finding_release(&f);

	fs_classify_text(replay, sizeof(replay) - 1, 0, "replay", &f);
	cr_assert_not(f.archive_tool_output);
	cr_assert_eq(f.outcome, OUTCOME_FAIL);
	finding_release(&f);
}

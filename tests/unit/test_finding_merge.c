/* Several inputs, one finding: later verdicts replace earlier ones only
 * when they say something; fields fill gaps; the summary outranks
 * heartbeats; the manifest and --info complete the attribution. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "orchestrator/finding/finding.h"
#include "tests/support/finding_samples.h"

static void merge_samples(const char *const *names, size_t n, struct finding *acc)
{
	finding_init(acc);
	for (size_t i = 0; i < n; i++) {
		struct finding one;

		fs_classify_sample(names[i], &one);
		finding_merge(acc, &one);
		finding_release(&one);
	}
}

Test(finding_merge, info_without_verdict_keeps_the_fault_and_lends_its_kernel)
{
	static const char *const logs[] = { "maf_no_kernel.log", "info_single_kernel.log" };
	struct finding f;

	merge_samples(logs, 2, &f);
	cr_assert(!finding_needs_info(&f), "--info was read");
	finding_finalize(&f, NULL);
	cr_assert_eq(f.outcome, OUTCOME_MAF);
	cr_assert_str_eq(finding_fault_class_name(f.fault_class), "illegal_memory_access");
	cr_assert_str_eq(f.kernel_name, "copy_rows_kernel");
	cr_assert_str_eq(f.kernel_family, "copy_rows_kernel");
	cr_assert(fs_has_note(&f, "exactly one kernel"));
	cr_assert(fs_has_note(&f, "--sync-after-launch"));
	cr_assert_eq(f.archive_complete, 0);
	cr_assert_eq(f.sources.n, 2);
	cr_assert_str_eq(f.sources.v[0], "maf_no_kernel.log");
	cr_assert_str_eq(f.sources.v[1], "info_single_kernel.log");
	/* The replay log's "Archive : 1532 events" came first: it stays. */
	cr_assert_eq(f.archive_events, 1532);
	cr_assert_eq(f.archive_recovered_events, 37);
	finding_release(&f);
}

Test(finding_merge, no_inference_with_several_kernels)
{
	static const char *const logs[] = { "maf_then_signal.log", "info_truncated_names.log" };
	struct finding f;

	merge_samples(logs, 2, &f);
	finding_finalize(&f, NULL);
	cr_assert_eq(f.outcome, OUTCOME_MAF);
	cr_assert_null(f.kernel_name, "two kernels in the archive: never guess");
	finding_release(&f);
}

Test(finding_merge, later_unknown_does_not_replace)
{
	static const char *const logs[] = { "fatal_api.log", "empty.log", "info_single_kernel.log" };
	struct finding f;

	merge_samples(logs, 3, &f);
	cr_assert_eq(f.outcome, OUTCOME_ABORT);
	cr_assert_str_eq(finding_fault_class_name(f.fault_class), "replay_fatal_api");
	finding_release(&f);
}

Test(finding_merge, later_verdict_replaces_earlier)
{
	static const char *const logs[] = { "triage_timeout.log", "pass_clean.log" };
	struct finding f;

	merge_samples(logs, 2, &f);
	cr_assert_eq(f.outcome, OUTCOME_PASS);
	cr_assert_str_eq(finding_fault_class_name(f.fault_class), "replay_pass");
	finding_release(&f);
}

Test(finding_merge, fields_fill_gaps_only)
{
	static const char *const logs[] = { "maf_read_only_sk3.log", "capture_fields.log" };
	struct finding f;

	merge_samples(logs, 2, &f);
	cr_assert_str_eq(f.fault_address, "0x7f91da000000", "the first input's address stays");
	cr_assert_str_eq(f.gpu_node, "2");
	cr_assert_str_eq(f.fault_reason, "Write access to a read-only page");
	/* Only the later input had these. */
	cr_assert_str_eq(f.kernarg_address, "0x7f2a10004000");
	cr_assert_str_eq(f.grid, "65536,1,1");
	cr_assert_str_eq(f.workgroup, "256,1,1");
	cr_assert_not_null(f.capture_hip_so);
	/* Both had a verdict: the later one's class replaces. */
	cr_assert_str_eq(finding_fault_class_name(f.fault_class), "illegal_memory_access");
	finding_release(&f);
}

Test(finding_merge, summary_outranks_progress_in_either_order)
{
	static const char *const a[] = { "triage_timeout.log", "pass_clean.log" };
	static const char *const b[] = { "pass_clean.log", "triage_timeout.log" };
	struct finding f;

	merge_samples(a, 2, &f);
	cr_assert_eq(f.kernels_launched, 96);
	cr_assert_eq(f.d2h_attempted, 5);
	cr_assert(f.kernels_from_summary);
	finding_release(&f);

	merge_samples(b, 2, &f);
	cr_assert_eq(f.kernels_launched, 96, "a later heartbeat must not replace the summary");
	cr_assert_eq(f.d2h_pass, 5);
	cr_assert_eq(f.d2h_attempted, 5);
	finding_release(&f);
}

Test(finding_merge, progress_fills_when_no_summary)
{
	static const char *const a[] = { "empty.log", "triage_timeout.log" };
	struct finding f;

	merge_samples(a, 2, &f);
	cr_assert_eq(f.kernels_launched, 33);
	cr_assert_eq(f.d2h_pass, 1);
	cr_assert_not(f.kernels_from_summary);
	finding_release(&f);
}

Test(finding_merge, flags_lists_and_d2h_failures_accumulate)
{
	static const char *const logs[] = { "fail_d2h.log", "missing_handle_noop.log", "diverged.log" };
	struct finding f;

	merge_samples(logs, 3, &f);
	cr_assert(f.saw_missing_handle && f.saw_not_replayable);
	cr_assert_eq(f.n_d2h_failures, 5);
	cr_assert_eq(f.d2h_failure_lines, 5);
	cr_assert_str_eq(f.d2h_failures[3].tag, "DtoH");
	cr_assert_eq(f.sources.n, 3);
	/* The diverged log has a verdict last: FAIL / nan_inf_divergence. */
	cr_assert_eq(f.outcome, OUTCOME_FAIL);
	finding_release(&f);
}

Test(finding_merge, merge_is_deep)
{
	struct finding acc, one;

	finding_init(&acc);
	fs_classify_sample("fail_d2h.log", &one);
	finding_merge(&acc, &one);
	finding_release(&one);
	/* acc owns its copies: one is gone. */
	cr_assert_str_eq(acc.d2h_failures[0].tag, "DtoH");
	cr_assert_str_eq(finding_fault_class_name(acc.fault_class), "nan_inf_divergence");
	cr_assert_str_eq(acc.sources.v[0], "fail_d2h.log");
	finding_release(&acc);
}

static void manifest_with_metadata(struct manifest *m)
{
	manifest_init(m);
	m->pid = 4242;
	m->complete = 0;
	m->event_count = 37;
	m->has_metadata = true;
	m->hip_runtime_version = strdup("7.13.0");
	m->comgr_version = strdup("2.8");
	m->device_count = 2;
	m->n_devices = 2;
	m->devices = calloc(2, sizeof(*m->devices));
	m->devices[0].ordinal = 1;
	m->devices[0].gcn_arch_name = strdup("gfx950:sramecc+:xnack-");
	m->devices[1].ordinal = 0;
	m->devices[1].gcn_arch_name = strdup("gfx942:sramecc+:xnack-");
	strvec_push(&m->unreplayable_apis, "hipGraphInstantiate");
}

Test(finding_merge, finalize_takes_capture_fields_from_the_manifest)
{
	struct finding f;
	struct manifest m;
	struct finding_context ctx = { .archive_name = "pid-4242", .manifest_path = "/a/pid-4242/manifest.json",
				       .archive_format_version = 8 };

	manifest_with_metadata(&m);
	ctx.manifest = &m;
	fs_classify_sample("pass_clean.log", &f);
	finding_finalize(&f, &ctx);
	cr_assert_str_eq(f.capture_hip_runtime_version, "7.13.0");
	cr_assert_str_eq(f.capture_comgr_version, "2.8");
	cr_assert_eq(f.capture_device_count, 2);
	cr_assert_str_eq(f.capture_gcn_arch, "gfx942:sramecc+:xnack-", "device ordinal 0, full string");
	cr_assert_eq(f.archive_complete, 0);
	cr_assert_eq(f.archive_format_version, 8);
	cr_assert_eq(f.archive_events, 1532, "the log's value is not overwritten");
	cr_assert_str_eq(f.sources.v[f.sources.n - 1], "/a/pid-4242/manifest.json");
	cr_assert(fs_has_note(&f, "hipGraphInstantiate"));
	/* CRASH-TRUNCATED and NOOP-API, never CLEAN next to them. */
	cr_assert_eq(f.labels.n, 2);
	cr_assert_str_eq(f.labels.v[0], "CRASH-TRUNCATED");
	cr_assert_str_eq(f.labels.v[1], "NOOP-API");
	finding_release(&f);
	manifest_release(&m);
}

Test(finding_merge, legacy_manifest_says_so)
{
	struct finding f;
	struct manifest m;
	struct finding_context ctx = { .manifest = &m, .multi_process = true };

	manifest_init(&m);
	m.complete = 1;
	fs_classify_sample("pass_clean.log", &f);
	finding_finalize(&f, &ctx);
	cr_assert(fs_has_note(&f, "legacy capture"));
	cr_assert_null(f.capture_gcn_arch);
	cr_assert_eq(f.capture_device_count, -1);
	cr_assert_eq(f.archive_complete, 1);
	cr_assert_eq(f.labels.n, 1);
	cr_assert_str_eq(f.labels.v[0], "MULTI-PROCESS");
	finding_release(&f);
	manifest_release(&m);
}

Test(finding_merge, finalize_is_idempotent)
{
	struct finding f;
	size_t notes;

	fs_classify_sample("verbose_attribution.log", &f);
	finding_finalize(&f, NULL);
	notes = f.notes.n;
	finding_finalize(&f, NULL);
	cr_assert_eq(f.notes.n, notes);
	cr_assert_eq(f.labels.n, 0);
	finding_release(&f);
}

Test(finding_merge, run_signal_fills_replay_signal)
{
	struct finding f;
	struct finding_run run = { .exit_code = 139, .ended_by = ENDED_SIGNAL, .signal = 11, .wall_s = 3.5 };
	struct finding_context ctx = { .run = &run };

	fs_classify_sample("unknown_start_only.log", &f);
	finding_finalize(&f, &ctx);
	cr_assert_eq(f.replay_signal, 11);
	finding_release(&f);
}

/* A finding after merging: the archive's facts, kernel attribution, notes
 * and labels (docs/findings.md), applied once by finding_finalize. */
#include "orchestrator/finding/finding.h"
#include "orchestrator/finding/finding_parts.h"

#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "preflight/manifest.h"

/* ---- finalize ---- */

/* The caveats' notes (caveats.c), added as every other note is. */
static void caveat_notes(struct finding *f, const struct finding_context *ctx)
{
	struct finding_caveats_subject subject = {
		.replay_failed = f->outcome == OUTCOME_MAF || f->outcome == OUTCOME_FAIL ||
				 f->outcome == OUTCOME_ABORT || f->outcome == OUTCOME_HANG,
		.fault_address = f->fault_address,
		.stack = ctx && ctx->run ? ctx->stack : NULL,
	};
	struct strvec notes = STRVEC_INIT;

	finding_caveats_notes(&(struct finding_caveats)CAVEATS_OF(f), &subject, &notes);
	for (size_t i = 0; i < notes.n; i++)
		finding_add_note(f, "%s", notes.v[i]);
	strvec_clear(&notes);
}

static bool class_is(const struct finding *f, enum finding_fault_class c)
{
	return f->fault_class == c;
}

static void clear_str(char **s)
{
	free(*s);
	*s = NULL;
}

static void clear_attribution(struct finding *f)
{
	clear_str(&f->kernel_name);
	clear_str(&f->kernel_family);
	clear_str(&f->last_event_kernel);
	clear_str(&f->last_progress_kernel);
	clear_str(&f->failing_api);
	f->failing_event_seq = -1;
	f->failing_call_index = -1;
	f->failing_thread = -1;
	f->saw_kernel_from_fault_line = false;
}

/* A stop whose cause could be a kernel: a fault, an abort, a hang. Not a
 * version mismatch (nothing ran), not an allocation failure, not a crash
 * of the replay process, not a user's Ctrl-C. */
static bool is_attributable(const struct finding *f)
{
	if (f->outcome != OUTCOME_MAF && f->outcome != OUTCOME_ABORT && f->outcome != OUTCOME_HANG)
		return false;
	if (class_is(f, FAULT_VERSION_MISMATCH) || class_is(f, FAULT_REPLAY_OOM) ||
	    class_is(f, FAULT_REPLAY_CRASHED) || class_is(f, FAULT_OUT_OF_RESOURCES))
		return false;
	if (class_is(f, FAULT_REPLAY_ABORTED) && f->saw_user_interrupt && !f->saw_fault)
		return false;
	return true;
}

/* The archive holds exactly one distinct kernel, and its full name is
 * known. archive_kernels counts launches: one launch is one kernel, more
 * say nothing about how many kernels; only the Kernel Call Counts table
 * (archive_distinct_kernels) does. */
static const char *single_archive_kernel(const struct finding *f)
{
	bool one = f->archive_kernels == 1 || f->archive_distinct_kernels == 1;

	if (f->archive_kernels == 0 || f->archive_distinct_kernels > 1)
		return NULL;
	return one && f->archive_kernel_names.n == 1 ? f->archive_kernel_names.v[0] : NULL;
}

static bool is_aten(const char *kernel)
{
	return kernel && (strstr(kernel, "_ZN2at6native") || strstr(kernel, "at::native::"));
}

static void apply_manifest(struct finding *f, const struct finding_context *ctx)
{
	const struct manifest *m = ctx->manifest;

	if (!m)
		return;
	if (ctx->manifest_path)
		finding_push_unique(&f->sources, ctx->manifest_path, 64);
	/* Either witness of a missing trailer is enough. */
	if (m->complete == 0)
		f->archive_complete = 0;
	else if (f->archive_complete < 0)
		f->archive_complete = m->complete;
	if (f->archive_events < 0 && m->event_count >= 0)
		f->archive_events = m->event_count;
	if (m->unreplayable_apis.n) {
		struct strbuf sb = STRBUF_INIT;

		for (size_t i = 0; i < m->unreplayable_apis.n; i++)
			strbuf_addf(&sb, "%s%s", i ? ", " : "", m->unreplayable_apis.v[i]);
		finding_add_note(f, "the capture recorded APIs that replay cannot reproduce "
				 "(replayed as no-ops): %s", sb.buf);
		strbuf_release(&sb);
	}
	if (!m->has_metadata) {
		finding_add_note(f, "manifest metadata absent (legacy capture): the capture's "
				 "HIP/comgr versions and GPU are unknown");
		return;
	}
	if (m->hip_runtime_version) {
		free(f->capture_hip_runtime_version);
		f->capture_hip_runtime_version = xstrdup(m->hip_runtime_version);
	}
	if (m->comgr_version) {
		free(f->capture_comgr_version);
		f->capture_comgr_version = xstrdup(m->comgr_version);
	}
	if (m->device_count >= 0)
		f->capture_device_count = m->device_count;
	else if (m->captured_device_count >= 0)
		f->capture_device_count = m->captured_device_count;
	if (m->n_devices) {
		const struct manifest_device *d = &m->devices[0];

		for (size_t i = 0; i < m->n_devices; i++)
			if (m->devices[i].ordinal == 0) {
				d = &m->devices[i];
				break;
			}
		if (d->gcn_arch_name) {
			free(f->capture_gcn_arch);
			f->capture_gcn_arch = xstrdup(d->gcn_arch_name);
		}
	}
}

static void attribute_kernel(struct finding *f)
{
	const char *one;

	if (f->outcome == OUTCOME_PASS) {
		clear_attribution(f);
		return;
	}
	if (class_is(f, FAULT_REPLAY_CRASHED)) {
		clear_attribution(f);
		if (f->replay_signal >= 0)
			finding_add_note(f, "the replay process died by signal %d without printing a "
					 "verdict, so no kernel is implicated and the workload is "
					 "untested; re-run the replay, and if it dies the same way "
					 "again the defect is in hrr-playback or its environment, not "
					 "in the captured workload", f->replay_signal);
		else
			finding_add_note(f, "the replay process died by a signal without printing a "
					 "verdict, so no kernel is implicated and the workload is "
					 "untested; re-run the replay, and if it dies the same way "
					 "again the defect is in hrr-playback or its environment, not "
					 "in the captured workload");
		return;
	}
	if (f->kernel_name || !is_attributable(f))
		return;
	if (f->last_event_kernel && f->device_error_on_later_call)
		finding_add_note(f, "the last launch before the error (%s) is not taken as its kernel: "
				 "the error surfaced on a later call, and any launch before it may "
				 "have caused it", f->last_event_kernel);
	else if (f->last_event_kernel) {
		f->kernel_name = xstrdup(f->last_event_kernel);
		finding_add_note(f, "kernel taken from the last launch before the fault (%s); no "
				 "fault line named one. This is only meaningful for a replay run "
				 "with --verbose (and --sync-after-launch), which is what prints "
				 "those per-event lines in order", f->kernel_name);
		return;
	}
	one = single_archive_kernel(f);
	if (one) {
		f->kernel_name = xstrdup(one);
		finding_add_note(f, "kernel inferred: the archive holds exactly one kernel (%s) and "
				 "the log attributed the fault to no launch; a replay with "
				 "--sync-after-launch confirms it by stopping on the faulting dispatch",
				 f->kernel_name);
		return;
	}
	/* Say why the kernel is unknown, so nobody reads it as an oversight.
	 * --info's "Kernels:" and the start line's "N kernels" count launches;
	 * only the Kernel Call Counts table counts distinct kernels. */
	if (f->archive_distinct_kernels > 1)
		finding_add_note(f, "no kernel is named: no fault line names one, no launch line "
				 "precedes the fault, and the archive holds %lld distinct kernels, "
				 "so none is guessed", f->archive_distinct_kernels);
	else if (f->archive_kernels > 1 && f->archive_distinct_kernels < 0)
		finding_add_note(f, "no kernel is named: no fault line names one, no launch line "
				 "precedes the fault, and the archive holds %lld kernel launches "
				 "of an unknown number of distinct kernels (no Kernel Call Counts "
				 "table was read), so none is guessed", f->archive_kernels);
	else if (f->archive_kernels >= 1 || f->archive_distinct_kernels == 1)
		finding_add_note(f, "no kernel is named: no fault line names one, and the archive's "
				 "only kernel name is cut to a column in hrr-playback --info, so "
				 "it cannot be used");
	else
		finding_add_note(f, "no kernel is named: no fault line names one and no launch line "
				 "precedes the fault");
}

/* The architecture without its feature flags ("gfx90a" of "gfx90a:sramecc+:xnack-"). */
static size_t arch_base_len(const char *arch)
{
	return strcspn(arch, ":");
}

/* +1 xnack+, -1 xnack-, 0 not said. */
static int xnack_mode(const char *arch)
{
	const char *x = strstr(arch, ":xnack");

	return !x ? 0 : x[6] == '+' ? 1 : x[6] == '-' ? -1 : 0;
}

/* The capture's GPU (manifest metadata) against the replay device's
 * (hrr-playback's Device line), issue 40 §1.4 and §1.7: another base
 * architecture makes a failed replay code_object_mismatch (the code was
 * built for the capture's GPU); another XNACK mode is a note (page faults
 * behave differently). */
static void compare_arch(struct finding *f)
{
	const char *cap = f->capture_gcn_arch, *rep = f->replay_gcn_arch;
	bool failed = f->outcome == OUTCOME_MAF || f->outcome == OUTCOME_ABORT ||
		      f->outcome == OUTCOME_HANG || f->outcome == OUTCOME_FAIL;

	if (!cap || !rep)
		return;
	if (arch_base_len(cap) != arch_base_len(rep) || memcmp(cap, rep, arch_base_len(cap))) {
		finding_add_note(f, "the archive was captured on %s and replayed on %s: code built "
				 "for the capture's GPU does not run on another architecture",
				 cap, rep);
		if (failed && !class_is(f, FAULT_VERSION_MISMATCH) && !class_is(f, FAULT_REPLAY_OOM) &&
		    !f->saw_user_interrupt)
			f->fault_class = FAULT_CODE_OBJECT_MISMATCH;
		return;
	}
	if (xnack_mode(cap) && xnack_mode(rep) && xnack_mode(cap) != xnack_mode(rep))
		finding_add_note(f, "the replay device runs with XNACK %s (%s), the capture's ran "
				 "with XNACK %s (%s): page faults behave differently (with XNACK "
				 "on, a fault on unmapped memory may migrate instead of faulting), "
				 "so the replay may not reproduce the capture's faults",
				 xnack_mode(rep) > 0 ? "on" : "off", rep,
				 xnack_mode(cap) > 0 ? "on" : "off", cap);
}

/* Evidence no rule read, said when the verdict names no cause. */
static void note_unread(struct finding *f)
{
	const struct finding_unread *u = f->n_unread ? &f->unread[0] : NULL;

	if (!u || !(f->outcome == OUTCOME_UNKNOWN || class_is(f, FAULT_REPLAY_CRASHED) ||
		    class_is(f, FAULT_REPLAY_ABORTED)))
		return;
	finding_add_note(f, "the log holds evidence no rule read: line %lld (%s): %s%s", u->line,
			 u->kind, u->text, f->n_unread > 1 ? " (more in unread_evidence)" : "");
}

static void add_labels(struct finding *f, const struct finding_context *ctx)
{
	bool noop = f->saw_not_replayable ||
		    (ctx->manifest && ctx->manifest->unreplayable_apis.n > 0);

	strvec_clear(&f->labels);
	if (f->archive_complete == 0)
		strvec_push(&f->labels, "CRASH-TRUNCATED");
	if (f->d2h_fail > 0 || f->n_d2h_failures > 0 || f->d2h_failure_lines > 0)
		strvec_push(&f->labels, "D2H-FAIL");
	if (f->saw_missing_handle)
		strvec_push(&f->labels, "MISSING-HANDLE");
	if (noop)
		strvec_push(&f->labels, "NOOP-API");
	if (f->multi_process)
		strvec_push(&f->labels, "MULTI-PROCESS");
	if (f->replay_parts > 1)
		strvec_push(&f->labels, "CONCATENATED");
	/* CLEAN means nothing was found: never next to a fault or an unknown. */
	if (!f->labels.n && f->outcome == OUTCOME_PASS && class_is(f, FAULT_REPLAY_PASS))
		strvec_push(&f->labels, "CLEAN");
}

/* hrr-playback's sync watchdog exits 124, the number timeout(1) uses:
 * say which watchdog stopped the replay. */
static void note_which_watchdog(struct finding *f, const struct finding_run *run)
{
	if (!run)
		return;
	if (f->saw_watchdog && run->ended_by == ENDED_EXIT && run->exit_code == 124)
		finding_add_note(f, "hrr-playback's own sync watchdog ended the replay (its "
				 "[HRR][WATCHDOG] line, exit status 124): not hrr-docker-replay's "
				 "--timeout or --progress-timeout");
	else if (f->saw_watchdog && (run->ended_by == ENDED_TIMEOUT ||
				     run->ended_by == ENDED_PROGRESS_TIMEOUT))
		finding_add_note(f, "both watchdogs fired: hrr-playback's sync watchdog printed "
				 "[HRR][WATCHDOG], then hrr-docker-replay's %s stopped the replay",
				 run->ended_by == ENDED_TIMEOUT ? "--timeout" : "--progress-timeout");
	else if (!f->saw_watchdog && run->ended_by == ENDED_EXIT && run->exit_code == 124)
		finding_add_note(f, "the replay exited with status 124 but printed no "
				 "[HRR][WATCHDOG] line: it is not read as hrr-playback's watchdog");
}

void finding_finalize(struct finding *f, const struct finding_context *ctx)
{
	static const struct finding_context none;

	if (!ctx)
		ctx = &none;
	apply_manifest(f, ctx);
	if (f->archive_format_version < 0 && ctx->archive_format_version)
		f->archive_format_version = (int)ctx->archive_format_version;
	if (ctx->multi_process)
		f->multi_process = true;
	if (f->replay_signal < 0 && ctx->run && ctx->run->signal > 0 &&
	    ctx->run->ended_by == ENDED_SIGNAL)
		f->replay_signal = ctx->run->signal;

	/* The engine's exit status is the one thing the archive cannot write:
	 * a PASS line with any other status, or with none the engine reported,
	 * is text, not a verdict. */
	if (ctx->run && f->outcome == OUTCOME_PASS && ctx->run->exit_code != 0) {
		if (ctx->run->exit_code == -1)
			finding_add_note(f, "the log says PASS but the engine reported no exit status: "
					 "a PASS needs exit status 0, so the line is not believed");
		else
			finding_add_note(f, "the log says PASS but the replay exited with status %d: a "
					 "PASS needs exit status 0, so the line is not believed",
					 ctx->run->exit_code);
		f->outcome = OUTCOME_UNKNOWN;
		f->fault_class = FAULT_UNKNOWN;
	}
	note_which_watchdog(f, ctx->run);
	compare_arch(f);
	attribute_kernel(f);
	free(f->kernel_family);
	f->kernel_family = finding_kernel_family(f->kernel_name);

	if (is_aten(f->kernel_name) &&
	    (class_is(f, FAULT_ILLEGAL_MEMORY_ACCESS) || class_is(f, FAULT_READ_ONLY_PAGE_FAULT) ||
	     class_is(f, FAULT_REPLAY_ABORTED)))
		finding_add_note(f, "the faulting kernel is an ATen kernel launched through <<<>>> "
				 "(hipLaunchByPtr), which passes device pointers inside by-value "
				 "structs; replay translates them by a heuristic, and an archive "
				 "recorded before that support landed faults on replay exactly like a "
				 "workload defect. Ask the user for their original failure signature "
				 "before calling this their bug");
	if (f->saw_user_interrupt)
		finding_add_note(f, "the replay was stopped by the user (%s): the workload is untested",
				 f->interrupt_signal ? f->interrupt_signal : "interrupt");
	if (f->fault_class == FAULT_UNKNOWN)
		finding_add_note(f, "not enough signal to classify: no fault type is claimed");
	else if (f->outcome == OUTCOME_UNKNOWN)
		finding_add_note(f, "the log does not show how the replay ended: the outcome is "
				 "unknown");
	note_unread(f);
	caveat_notes(f, ctx);
	add_labels(f, ctx);
	finding_sanitize(f);
}

bool finding_needs_info(const struct finding *f)
{
	if (f->kernel_name || f->last_event_kernel || !is_attributable(f))
		return false;
	/* --info already read: its table is what inference works from. */
	return f->archive_kernel_names.n == 0 && f->archive_distinct_kernels < 0;
}

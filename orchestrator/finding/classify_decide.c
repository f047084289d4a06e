/* The decision: the precedence of the rules (outcome and fault class, each
 * "first match wins" over the whole input) applied once to the evidence the
 * line readers recorded, and the finding filled from it. */
#include "orchestrator/finding/classify_state.h"

/* The runtime's verdict, from the status table: a queue abort's status
 * or an HSA status name, else a HIP device-side code. specific: only a
 * row whose class says more than replay_aborted (those come before a
 * Fatal line; the rest after it). */
static const struct runtime_status *runtime_verdict(const struct classifier *c, bool specific)
{
	const struct runtime_status *rows[] = { c->status, c->hip };

	for (size_t i = 0; i < 2; i++) {
		const struct runtime_status *st = rows[i];

		if (!st || st->outcome == OUTCOME_UNKNOWN)
			continue;
		if (specific && st->fault_class == FAULT_REPLAY_ABORTED)
			continue;
		return st;
	}
	return NULL;
}

/* The runtime timed a launch out (HIP 702): the GPU's own word, like a
 * hardware exception's "GPU Hang". */
static bool runtime_hang(const struct classifier *c)
{
	const struct runtime_status *st = runtime_verdict(c, true);

	return st && st->outcome == OUTCOME_HANG;
}

/* What a FAIL failed on when no D2H check failed: the root cause among
 * those hrr-playback's summary printed; unknown when it printed none. */
static enum finding_fault_class fail_cause(const struct classifier *c)
{
	if (c->d2h_unchecked > 0)
		return FAULT_D2H_NOT_COMPARED;
	/* Launches from a code object that did not load fail too: the code
	 * object is the root cause (issue 40 §1.4). */
	if (c->co_unloadable > 0)
		return FAULT_CODE_OBJECT_UNLOADABLE;
	if (c->events_failed > 0)
		return FAULT_REPLAY_API_ERRORS;
	if (c->region_oob > 0)
		return FAULT_REGION_VIOLATION;
	return FAULT_UNKNOWN;
}

/* A stop marker is the runner's word, written after the replay ended; a
 * verdict line is text the replay printed, and text can be forged by a
 * kernel name printed byte for byte. The marker outranks the verdict. */
static bool stopped(const struct classifier *c)
{
	return c->timeout || c->signal_marker || c->f.saw_oom_marker || c->f.saw_user_interrupt;
}

static bool says_pass(const struct classifier *c)
{
	return c->pass && !stopped(c);
}

static bool says_fail(const struct classifier *c)
{
	return c->fail && !stopped(c);
}

/* A batch scheduler killed the job at its time limit and the replay had
 * printed no verdict of its own: it ran out of its clock (issue 40 §1.9). */
static bool sched_clock(const struct classifier *c)
{
	return c->sched_line && !c->pass && !c->fail && !c->diverged && !c->fatal;
}

/* A device-side assert decides unless the runtime reported a memory fault. */
static bool assert_decides(const struct classifier *c)
{
	const struct runtime_status *st = runtime_verdict(c, true);

	return c->device_assert && !(st && st->outcome == OUTCOME_MAF);
}

/* ROCr explained the abort() it called (memory critical error). */
static bool explained_abort(const struct classifier *c)
{
	return c->critical_reason || c->critical_node;
}

static enum finding_outcome decide_outcome(const struct classifier *c)
{
	/* The driver timed the GPU out: closer to a hang than to a host crash
	 * (docs/findings.md). */
	if (c->timeout || c->f.saw_watchdog || c->hw == HW_GPU_HANG || runtime_hang(c))
		return OUTCOME_HANG;
	if (says_pass(c))
		return OUTCOME_PASS;
	if (c->maf_line || c->mfe_line || c->agent_memory_event)
		return OUTCOME_MAF;
	if (c->hw != HW_NONE)
		return OUTCOME_ABORT;
	/* Beyond the anchor: a divergence abort is a validation failure that
	 * stopped the replay early (exit 2). */
	if (says_fail(c) || c->diverged)
		return OUTCOME_FAIL;
	if (assert_decides(c))
		return OUTCOME_ABORT;
	if (runtime_verdict(c, false))
		return runtime_verdict(c, false)->outcome;
	if (sched_clock(c))
		return OUTCOME_HANG;
	if (c->aborting_replay || c->replay_aborted || c->fatal || c->version_mismatch ||
	    c->signal_marker || c->f.saw_oom_marker || c->f.saw_user_interrupt ||
	    explained_abort(c) || c->missing_co)
		return OUTCOME_ABORT;
	return OUTCOME_UNKNOWN;
}

static enum finding_fault_class decide_class(const struct classifier *c, bool d2h_failed,
					     bool *from_hip)
{
	*from_hip = false;
	if (c->version_mismatch)
		return FAULT_VERSION_MISMATCH;
	/* The GPU's own word outranks a stop that followed it. */
	if (c->hw == HW_ECC)
		return FAULT_GPU_ECC_ERROR;
	if (c->hw == HW_GPU_HANG)
		return FAULT_GPU_HANG;
	if (c->hw == HW_OTHER)
		return FAULT_GPU_HW_EXCEPTION;
	if (runtime_hang(c))
		return FAULT_GPU_HANG;
	if (c->timeout || c->f.saw_watchdog)
		return FAULT_HANG;
	if (says_pass(c))
		return d2h_failed ? FAULT_NAN_INF_DIVERGENCE : FAULT_REPLAY_PASS;
	if (c->oom_text)
		return FAULT_REPLAY_OOM;
	if (c->maf_line || c->mfe_line || c->agent_memory_event)
		return c->maf_read_only ? FAULT_READ_ONLY_PAGE_FAULT : FAULT_ILLEGAL_MEMORY_ACCESS;
	/* The assert's text comes before the queue abort it causes. */
	if (assert_decides(c))
		return FAULT_DEVICE_ASSERT;
	if (c->missing_co && !runtime_verdict(c, true))
		return FAULT_CODE_OBJECT_MISMATCH;
	if (runtime_verdict(c, true)) {
		*from_hip = runtime_verdict(c, true) == c->hip;
		return runtime_verdict(c, true)->fault_class;
	}
	if (c->fatal)
		return c->fatal_oom ? FAULT_REPLAY_OOM : FAULT_REPLAY_FATAL_API;
	if (runtime_verdict(c, false))
		return FAULT_REPLAY_ABORTED;
	if (sched_clock(c))
		return FAULT_HANG;
	/* Divergence only when a check failed or the divergence abort fired. */
	if (d2h_failed || c->diverged)
		return FAULT_NAN_INF_DIVERGENCE;
	if (says_fail(c) && fail_cause(c) != FAULT_UNKNOWN)
		return fail_cause(c);
	if (c->replay_aborted || c->aborting_replay || c->f.saw_user_interrupt || explained_abort(c))
		return FAULT_REPLAY_ABORTED;
	if (c->signal_marker)
		return FAULT_REPLAY_CRASHED;
	return FAULT_UNKNOWN;
}

/* The line the verdict came from: the first kind of evidence, in the
 * precedence of decide_class, that a line recorded. A PASS has none. */
static char *decide_evidence(struct classifier *c, enum finding_outcome outcome)
{
	unsigned bits = classify_evidence_bits(c);

	if (outcome == OUTCOME_PASS)
		return NULL;
	for (unsigned k = 0; k < EV__COUNT; k++) {
		if (bits >> k & 1 && c->ev_line[k]) {
			char *s = c->ev_line[k];

			c->ev_line[k] = NULL;
			return s;
		}
	}
	return NULL;
}

static char *take(char **p)
{
	char *s = *p;

	*p = NULL;
	return s;
}

/* The launch in flight when the replay stopped, from hrr-playback's trace
 * lines: a "[HRR sync begin]" with no "[HRR sync done]", else the last
 * "[HRR launch]" no heartbeat or sync done came after; none once the replay
 * printed PASS or FAIL. Its seq (-1: none);
 * *kernel (when asked): where its name is kept (NULL when shortened). */
static long long in_flight(struct classifier *c, char ***kernel)
{
	/* A replay that printed its verdict finished its pass: nothing was in
	 * flight. */
	if (c->pass || c->fail)
		return -1;
	if (c->sync_open) {
		if (kernel)
			*kernel = &c->sync_kernel;
		return c->sync_seq;
	}
	if (c->launch_seq >= 0 && c->launch_seq > c->prog_seq) {
		if (kernel)
			*kernel = &c->launch_kernel;
		return c->launch_seq;
	}
	return -1;
}

/* Counts and where the replay was: the end-of-run summary, else the last
 * heartbeat; the failing call. */
static void finish_progress(struct classifier *c, struct finding *f)
{
	/* The end-of-run summary outranks the last heartbeat. */
	if (c->sum_kernels >= 0) {
		f->kernels_launched = c->sum_kernels;
		f->kernels_from_summary = true;
	} else if (c->prog_kernels >= 0) {
		f->kernels_launched = c->prog_kernels;
	}
	if (c->have_sum_d2h) {
		f->d2h_pass = c->sum_pass;
		f->d2h_fail = c->sum_fail;
		f->d2h_attempted = c->sum_attempted;
		f->d2h_from_summary = true;
	} else if (c->have_progress) {
		f->d2h_pass = c->prog_pass;
		f->d2h_fail = c->prog_fail;
		f->d2h_attempted = c->prog_attempted;
	}
	/* A watchdog line names the launch that did not complete; the last
	 * heartbeat names one that did (heartbeats follow completions). */
	if (c->watchdog_seq >= 0 && f->fault_class == FAULT_HANG)
		f->failing_event_seq = c->watchdog_seq;
	else if (in_flight(c, NULL) >= 0)
		f->failing_event_seq = in_flight(c, NULL);
	else if (c->prog_seq >= 0)
		f->failing_event_seq = c->prog_seq;
	else if (c->watchdog_seq >= 0)
		f->failing_event_seq = c->watchdog_seq;
	else if (c->diverged_seq >= 0)
		f->failing_event_seq = c->diverged_seq;
	if (c->prog_has_last && c->prog_last.len)
		f->last_progress_kernel = xstrdup(c->prog_last.buf);

	if (c->have_fatal_call) {
		f->failing_thread = c->fatal_thread;
		f->failing_call_index = c->fatal_index;
		f->failing_api = take(&c->fatal_api);
	} else if (c->have_event) {
		f->failing_call_index = c->ev_index;
		f->failing_api = xstrdup(c->ev_api.buf);
	}
	if (c->have_ev_kernel)
		f->last_event_kernel = xstrdup(c->ev_kernel.buf);
}

/* The kernel a stop line names; inference is finalize's job. */
static void finish_kernel(struct classifier *c, struct finding *f)
{
	char **trace = NULL;
	char **named[] = { f->fault_class == FAULT_HANG ? &c->watchdog_kernel : NULL,
			   &c->mfe_kernel, &c->queue_kernel, &c->gpu_error_kernel,
			   in_flight(c, &trace) >= 0 ? trace : NULL, &c->agent_kernel };

	/* The MAF line's address wins over the Memory Fault Error's. */
	if (c->maf_address)
		f->fault_address = take(&c->maf_address);
	else if (c->mfe_address)
		f->fault_address = take(&c->mfe_address);
	else if (c->agent_page)
		f->fault_address = xstrdup(c->agent_page);
	if (!f->fault_reason && c->hw_reason)
		f->fault_reason = xstrdup(c->hw_reason);
	if (!f->gpu_node && c->hw_node)
		f->gpu_node = take(&c->hw_node);

	for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++) {
		if (!named[i] || !*named[i])
			continue;
		if (named[i] == &c->agent_kernel)
			finding_add_note(f, "kernel named by rocm-debug-agent (wave stopped: %s); "
					 "the agent reports the wave it saw, which is a suspect, "
					 "not proof of the root cause",
					 c->agent_reason ? c->agent_reason : "unknown reason");
		f->kernel_name = take(named[i]);
		f->saw_kernel_from_fault_line = true;
		break;
	}
}

/* What the GPU's own reports mean for the verdict. */
static void finish_gpu_notes(const struct classifier *c, struct finding *f)
{
	const char *node = f->gpu_node ? f->gpu_node : "?";

	if (c->hw == HW_GPU_HANG)
		finding_add_note(f, "the GPU runtime reported a hardware exception on GPU node-%s, "
				 "reason \"%s\": the driver found the GPU hung and reset it. This is "
				 "GPU-side evidence (a hang of the GPU, not a crash of the replay "
				 "process); rerun on another GPU to tell a bad GPU from a kernel "
				 "that never ends", node, c->hw_reason);
	else if (c->hw == HW_ECC)
		finding_add_note(f, "the GPU runtime reported a hardware exception on GPU node-%s, "
				 "reason \"%s\": an ECC (memory) error on the GPU. This is evidence "
				 "against the GPU, not the workload; check the GPU's RAS error counts",
				 node, c->hw_reason);
	else if (c->hw == HW_OTHER)
		finding_add_note(f, "the GPU runtime reported a hardware exception on GPU node-%s "
				 "(reason %s%s%s): GPU-side evidence, not a crash of the replay process",
				 node, c->hw_reason ? "\"" : "", c->hw_reason ? c->hw_reason : "not printed",
				 c->hw_reason ? "\"" : "");
	if (c->agent_memory_event && !c->maf_line)
		finding_add_note(f, "the older rocm-debug-agent reported a GPU memory fault (System "
				 "event HSA_AMD_GPU_MEMORY_FAULT_EVENT) and aborted the process before "
				 "the runtime's own fault line%s%s%s",
				 c->agent_page ? "; the fault address is its faulting page " : "",
				 c->agent_page ? c->agent_page : "",
				 c->agent_page ? ", page-aligned: the access was somewhere in that "
						 "page, not necessarily at its start" : "");
}

/* What the runtime's status or HIP code says (runtime_status.h). */
static void finish_runtime_notes(const struct classifier *c, struct finding *f)
{
	const struct runtime_status *st = c->status, *hip = c->hip;

	if (st && st->outcome != OUTCOME_UNKNOWN) {
		if (!st->name)
			finding_add_note(f, "the runtime reported %s, a status this version's table does "
					 "not know: the replay stopped (replay_aborted), for a reason "
					 "only that status names", c->status_printed ? c->status_printed
					 : "an unnamed status");
		else {
			finding_add_note(f, "the runtime reported %s (code 0x%lx): %s", st->name,
					 st->code, st->meaning);
			f->runtime_status = st;
		}
	}
	if (!hip)
		return;
	if (hip->fault_class == FAULT_CODE_OBJECT_MISMATCH)
		finding_add_note(f, "HIP reported %ld %s (%s): the image holds no code object for "
				 "this GPU's architecture", hip->code, hip->name, hip->meaning);
	else if (c->hip_after_launch)
		finding_add_note(f, "HIP reported %ld %s (%s) in the synchronisation after the launch "
				 "of %s", hip->code, hip->name, hip->meaning,
				 f->kernel_name ? f->kernel_name : "a kernel");
	else
		finding_add_note(f, "HIP reported %ld %s (%s) on %s%s: a device-side error surfaces "
				 "at the next call that waits for the GPU, so it does not say which "
				 "launch caused it (--sync-after-launch does)", hip->code, hip->name,
				 hip->meaning, c->hip_api ? "a later call, " : "a later call",
				 c->hip_api ? c->hip_api : "");
}

/* The classes the table adds, said in words. */
static void finish_class_notes(struct finding *f)
{
	switch (f->fault_class) {
	case FAULT_KERNEL_FAULT:
		finding_add_note(f, "a kernel fault of unknown kind: hipErrorLaunchFailure says a "
				 "kernel failed on the GPU, not how (a memory fault, an illegal "
				 "instruction and a trap all end this way); rerun under the debug "
				 "agent (--diagnose) to learn which");
		break;
	case FAULT_CODE_OBJECT_MISMATCH:
		finding_add_note(f, "the image's code does not fit this GPU (its ISA, code object or "
				 "register needs): evidence against the image, not the GPU and not the "
				 "workload; check that the image's code objects target this GPU's "
				 "architecture");
		break;
	case FAULT_OUT_OF_RESOURCES:
		finding_add_note(f, "the GPU runtime ran out of resources (memory, queues or "
				 "threads): another process on the GPU, or the replay's own footprint");
		break;
	case FAULT_DEVICE_ASSERT:
		finding_add_note(f, "a device-side assert fired in a kernel: the workload's own "
				 "check failed on the GPU");
		break;
	default:
		break;
	}
}

/* Each cause of a FAIL hrr-playback printed, whichever decided the class. */
static void finish_fail_notes(const struct classifier *c, struct finding *f)
{
	if (c->d2h_unchecked > 0)
		finding_add_note(f, "hrr-playback attempted %lld D2H validations and compared none "
				 "(all skipped: a pointer that did not translate, or a missing blob): "
				 "outputs were not checked, so nothing is known to have diverged",
				 c->d2h_unchecked);
	if (c->events_failed > 0)
		finding_add_note(f, "%lld replayed API calls failed and the replay went on past each "
				 "(--continue-on-error): the run did not reproduce the capture; the "
				 "first failure is the one to read", c->events_failed);
	if (c->co_unloadable > 0)
		finding_add_note(f, "%lld code objects could not be loaded and the replay went on "
				 "(--continue-on-error): kernels from them did not run", c->co_unloadable);
	if (c->region_oob > 0)
		finding_add_note(f, "%lld kernel-argument pointers fell outside their recorded region "
				 "(intra-segment out-of-bounds or stale) and --regions-strict made that "
				 "fail the run: a finding about the recorded program's own pointers",
				 c->region_oob);
	if (fail_cause(c) == FAULT_UNKNOWN && !c->f.d2h_failure_lines && c->prog_fail <= 0 &&
	    c->sum_fail <= 0 && !c->diverged)
		finding_add_note(f, "hrr-playback printed FAIL without saying why (no D2H check "
				 "failed, no failed call or code object was counted): no cause is claimed");
}

/* The stops a line explained (issue 40): ROCr's memory critical error, a
 * scheduler's clock, several replays in one log. */
static void finish_stop_notes(const struct classifier *c, struct finding *f)
{
	if (explained_abort(c))
		finding_add_note(f, "ROCr reported a memory critical error on GPU node-%s (reason "
				 "\"%s\") and aborted the process: the abort is explained "
				 "(replay_aborted), not a crash without a verdict",
				 c->critical_node ? c->critical_node : "?",
				 c->critical_reason ? c->critical_reason : "not printed");
	if (sched_clock(c))
		finding_add_note(f, "the batch scheduler killed the job at its time limit (%s): the "
				 "replay ran out of its clock before it printed a verdict; a replay "
				 "that needs longer than the job's limit, or one that hangs",
				 c->sched_line);
	if (c->parts > 1) {
		struct strbuf sb = STRBUF_INIT;
		size_t shown = sizeof(c->part_lines) / sizeof(c->part_lines[0]);

		for (long long i = 0; i < c->parts && (size_t)i < shown; i++)
			strbuf_addf(&sb, "%s%lld", i ? ", " : "", c->part_lines[i]);
		finding_add_note(f, "the log holds %lld replays (banners at lines %s%s), concatenated "
				 "or written by several processes: the verdict is the worst of "
				 "theirs (HANG, MAF, ABORT, FAIL, UNKNOWN, PASS), one replay's PASS "
				 "never hides another's fault", c->parts, sb.buf,
				 (size_t)c->parts > shown ? ", ..." : "");
		strbuf_release(&sb);
	}
}

/* The replay's refusals and no-ops (labels MULTI-PROCESS, NOOP-API). */
static void finish_replay_notes(const struct classifier *c, struct finding *f)
{
	if (c->multi_refusal) {
		struct strbuf sb = STRBUF_INIT;

		for (size_t i = 0; i < c->pid_dirs.n; i++)
			strbuf_addf(&sb, "%s%s", i ? ", " : "", c->pid_dirs.v[i]);
		finding_add_note(f, "hrr-playback refused the capture root: it holds several process "
				 "captures%s%s%s, and replays one pid directory at a time; nothing was "
				 "replayed. Replay (or analyze) each pid directory on its own",
				 sb.len ? " (" : "", sb.len ? sb.buf : "", sb.len ? ")" : "");
		strbuf_release(&sb);
	}
	if (c->graph_refused)
		finding_add_note(f, "the capture builds a graph through the explicit node API "
				 "(hipGraphCreate + hipGraphAdd*Node), which hrr-playback does not "
				 "replay: its launches did not run");
	if (c->noop_api)
		finding_add_note(f, "hrr-playback replayed %s as a no-op (NOOP playback handler): "
				 "results that depend on it may differ from the capture", c->noop_api);
	if (c->time_unit_unread[0])
		finding_add_note(f, "a GPU time was printed in a unit this does not read (%s): "
				 "that time is left out of the GPU-time comparison",
				 c->time_unit_unread);
}

static void finish_notes(const struct classifier *c, struct finding *f)
{
	if (c->maf_nil)
		finding_add_note(f, "the runtime printed the fault address as (nil): the access "
				 "was to address 0");
	if (c->maf_imprecise)
		finding_add_note(f, "the runtime says the fault address may not be exact");
	if (c->pass && stopped(c))
		finding_add_note(f, "the log says PASS, but the runner stopped the replay or saw "
				 "it killed: the stop outranks the text");
	if (c->version_mismatch && f->archive_format_version >= 0 && f->reader_format_version >= 0)
		finding_add_note(f, "archive format version %d does not match the hrr-playback "
				 "reader's %d: use an hrr-playback that reads this archive",
				 f->archive_format_version, f->reader_format_version);
	if (c->timeout) {
		if (f->timeout_without_output)
			finding_add_note(f, "the runner stopped the replay after %llds without output "
					 "(--progress-timeout): no progress against the clock",
					 f->timeout_s);
		else
			finding_add_note(f, "the runner stopped the replay at its %llds time limit "
					 "(--timeout) before it reached a verdict", f->timeout_s);
	}
	if (f->saw_watchdog)
		finding_add_note(f, "hrr-playback's sync watchdog fired after %lld ms at: %s",
				 c->watchdog_ms, c->watchdog_at ? c->watchdog_at : "unknown");
	finish_gpu_notes(c, f);
	if (!says_pass(c))
		finish_runtime_notes(c, f);
	if (says_fail(c))
		finish_fail_notes(c, f);
	finish_replay_notes(c, f);
	finish_stop_notes(c, f);
	if (f->saw_oom_marker)
		finding_add_note(f, "the engine killed the replay container: out of memory "
				 "(host memory limit, not GPU memory)");
	if (c->diverged) {
		if (c->diverged_fail >= 0 && c->diverged_total >= 0)
			finding_add_note(f, "hrr-playback stopped the replay early: %lld/%lld D2H "
					 "validations failed (divergence abort)",
					 c->diverged_fail, c->diverged_total);
		else
			finding_add_note(f, "hrr-playback stopped the replay early: too many D2H "
					 "validations failed (divergence abort)");
	}
	if (f->d2h_failure_lines > f->n_d2h_failures)
		finding_add_note(f, "%zu more D2H FAIL lines are not listed",
				 f->d2h_failure_lines - f->n_d2h_failures);
	if (c->no_d2h_blobs)
		finding_add_note(f, "the archive holds no D2H validation blobs, so outputs were "
				 "not checked; re-capture to enable validation");
}

void classifier_finish(struct classifier *c, struct finding *out)
{
	/* any evidence: a heartbeat's failures count even when the summary is missing */
	bool d2h_failed, from_hip;
	enum finding_outcome outcome;
	enum finding_fault_class fault_class;

	classify_flush(c);
	/* Several replays in one log: a PASS counts only when every replay
	 * printed one and none left other evidence (issue 40 §1.8). */
	if (c->parts > 1 && (c->passes < c->parts ||
			     (classify_evidence_bits(c) & ~(1u << EV_D2H_FAIL))))
		c->pass = false;
	/* Precedence reads the evidence flags, some of which live in c->f. */
	d2h_failed = c->f.d2h_failure_lines > 0 || c->prog_fail > 0 || c->sum_fail > 0 ||
		     c->diverged;
	outcome = decide_outcome(c);
	fault_class = decide_class(c, d2h_failed, &from_hip);
	*out = c->f;
	finding_init(&c->f);
	out->outcome = outcome;
	out->fault_class = fault_class;
	out->archive_tool_output = c->archive_tool;
	out->evidence = decide_evidence(c, outcome);
	if (c->source)
		strvec_push(&out->sources, c->source);
	finish_progress(c, out);
	finish_kernel(c, out);
	finish_notes(c, out);
	finish_class_notes(out);
	/* A device-side code on a later call names no launch: the last launch
	 * before it is not the culprit by any evidence (finalize). */
	out->device_error_on_later_call = from_hip && !c->hip_after_launch;
	if (c->parts > 0)
		out->replay_parts = c->parts;
	if (c->n_unread) {
		out->unread = xcalloc(c->n_unread, sizeof(*out->unread));
		memcpy(out->unread, c->unread, c->n_unread * sizeof(*out->unread));
		out->n_unread = c->n_unread;
		c->n_unread = 0;
	}
	finding_sanitize(out);
}

/* The classifier's inside, shared by the files that read one kind of line
 * each: hrr-playback's own lines (classify_hrr.c), launch lines
 * (classify_launch.c), `--info` tables (classify_info.c), the anchors that
 * can start anywhere in a line (classify_anchor.c), the GPU runtime's fault
 * and abort lines, dispatch assignments and stop markers
 * (classify_runtime.c), and the decision (classify_decide.c). classify.c
 * splits the stream into lines and routes each one. Calls run one way:
 *   classify.c -> classify_hrr.c -> classify_launch.c, classify_info.c,
 *                                    classify_placement.c
 *   classify.c, classify_launch.c -> classify_anchor.c -> classify_runtime.c
 *   every one of them -> classify_text.h (the lexing helpers)
 *   classify_decide.c -> classify.c (the last line's flush)
 * Not part of the module's interface. */
#ifndef HRR_FINDING_CLASSIFY_STATE_H
#define HRR_FINDING_CLASSIFY_STATE_H

#include <stdbool.h>

#include "orchestrator/finding/classify_text.h"
#include "orchestrator/finding/finding.h"
#include "orchestrator/finding/runtime_status.h"

/* A line longer than FINDING_LINE_MAX is read in windows of that size, each
 * overlapping the one before by this much: an anchor that starts in the
 * overlap is read in the next window, with at least this much of its line
 * after it, so nothing is read cut at a window edge. */
#define FINDING_LINE_OVERLAP (16 * 1024)
/* How many lines after a fault line without "Reason:" may still carry it
 * (two writes interleaved with another thread's output). */
#define FINDING_REASON_LINES 4

/* What a hardware exception's reason says: the GPU was reset because it
 * hung, or for an ECC error, or for a reason this version does not know. */
enum hw_exception { HW_NONE = 0, HW_GPU_HANG, HW_ECC, HW_OTHER };
enum info_section { INFO_NONE = 0, INFO_KERNEL_SUMMARY, INFO_CALL_COUNTS, INFO_ROOT };
/* The kinds of evidence, in the precedence of decide_class: the first
 * line that recorded each one is kept as the finding's evidence line
 * (docs/findings.md "Signature"). */
enum evidence_kind {
	EV_VERSION, EV_HW, EV_TIMEOUT, EV_WATCHDOG, EV_OOM_TEXT, EV_MAF, EV_MFE, EV_AGENT,
	EV_ASSERT, EV_FATAL, EV_HSA_FAULT, EV_HSA_ABORT, EV_FAIL, EV_D2H_FAIL, EV_DIVERGED,
	EV_SCHED, EV_ABORTED, EV_INTERRUPT, EV_SIGNAL, EV_OOM_MARKER,
	EV__COUNT
};
/* Bytes of an evidence line kept (the signature keeps fewer). */
#define EVIDENCE_LINE_MAX 1024

struct classifier {
	char *source;
	char *line;           /* FINDING_LINE_MAX bytes: the current partial line */
	size_t line_len;
	bool continued;       /* the buffer holds a window of an overlong line */
	bool cut;             /* the line being read is cut: no names, no numbers */
	bool archive_tool;    /* the input is `hrr-playback --info` output (its header says) */
	bool replay_started;  /* "[HRR] Archive : ...", a replay's first line, came first */

	struct finding f;     /* fields filled as lines arrive */

	/* Evidence; the precedence lists are applied at finish. */
	bool version_mismatch, timeout, pass, fail, oom_text, maf_line, mfe_line;
	bool fatal, fatal_oom, aborting_replay, replay_aborted, signal_marker;
	bool diverged, no_d2h_blobs, maf_read_only, fault_seen;

	/* The runtime's own verdicts, looked up in the one table
	 * (runtime_status.h): the first status a queue abort or an HSA status
	 * name gave (status_printed: the name or code as the line had it), and
	 * the first HIP device-side error code. */
	const struct runtime_status *status;
	char *status_printed;
	const struct runtime_status *hip;
	bool hip_after_launch;        /* from "GPU error after '<kernel>'": the launch's sync */
	char *hip_api;                /* else the later call it surfaced on (NULL unknown) */

	/* What a FAIL failed on, from hrr-playback's summary (-1: not printed). */
	long long d2h_unchecked, events_failed, co_unloadable, region_oob;

	/* hrr-playback's refusal of a capture root with several processes,
	 * and the pid directories it listed after it. */
	bool multi_refusal, listing_pids;
	struct strvec pid_dirs;
	/* The explicit-graph refusal; the first API a NOOP handler named. */
	bool graph_refused;
	char *noop_api;
	/* The first unit a GPU-time line printed that is not a unit of time
	 * this reads ("" none; a missing unit is "(none)"). */
	char time_unit_unread[16];

	char *maf_address;
	int reason_lines;     /* > 0: the MAF line had no Reason:, look this many lines on */
	bool maf_imprecise;   /* ROCr's "(may not be exact address)" */
	bool maf_nil;         /* ... on address (nil) */
	char *mfe_address;

	/* ROCr's "HW Exception by GPU node-N (Agent handle: 0x...) reason :R". */
	enum hw_exception hw;
	char *hw_reason, *hw_node;
	/* The older rocm-debug-agent's own fault report, printed before it
	 * calls abort(): "System event (HSA_AMD_GPU_MEMORY_FAULT_EVENT)" and
	 * "Faulting page: 0x...". */
	bool agent_memory_event;
	char *agent_page;

	/* Last heartbeat. */
	bool have_progress;
	long long prog_seq, prog_kernels, prog_pass, prog_fail, prog_attempted;
	bool prog_has_last;
	struct strbuf prog_last;

	/* End-of-run summary. */
	long long sum_kernels;
	bool have_sum_d2h;
	long long sum_pass, sum_fail, sum_attempted;

	/* Last verbose event before the first fault line. */
	bool have_event;
	long long ev_index;
	struct strbuf ev_api;
	bool have_ev_kernel;
	struct strbuf ev_kernel;

	/* First Fatal line naming its call. */
	bool have_fatal_call;
	long long fatal_thread, fatal_index;
	char *fatal_api;

	/* Kernels named by the lines that report a stop. */
	char *mfe_kernel, *queue_kernel, *gpu_error_kernel, *agent_kernel, *watchdog_kernel;
	char *agent_reason;
	long long watchdog_ms, watchdog_seq;
	char *watchdog_at;
	long long diverged_seq, diverged_fail, diverged_total;

	enum info_section section; /* which --info table the next rows belong to */

	/* Issue 40: the lines that explain a stop (classify_stop.c). A
	 * device-side assert's text; ROCr's "Memory critical error by agent
	 * node-N ... Reason: R" before its abort(); CLR's "Missing CO for these
	 * ISAs"; a scheduler's kill at its time limit (the line, for a note). */
	bool device_assert, missing_co;
	char *critical_reason, *critical_node;
	char *sched_line;
	/* The status that decided among several queue aborts came from this
	 * line: its kernel bracket is the one kept. */
	bool status_line;

	/* Issue 40: hrr-playback's trace lines (classify_trace.c): the last
	 * "[HRR launch]" before the fault, and a "[HRR sync begin]" with no
	 * "[HRR sync done]" after it (open). */
	long long launch_seq, sync_seq;
	char *launch_kernel, *sync_kernel;
	bool sync_open;
	/* Replays in the log (one per "[HRR] Archive :" banner), their banners'
	 * line numbers (the first few), and PASS lines. */
	long long parts, passes;
	long long part_lines[8];

	/* Issue 40 §2: lines that look like evidence and that no rule read
	 * (classify_unread.c). */
	struct finding_unread unread[FINDING_MAX_UNREAD];
	size_t n_unread;
	long long line_no;    /* the line being read, from 1 */

	/* The last [HRR] line was "Runtime : <path>" or its continuation
	 * (classify_placement.c). */
	bool runtime_lines;
	char *ev_line[EV__COUNT]; /* the first line that recorded each kind */
};

/* The kinds of evidence recorded so far, one bit each (classify.c keeps
 * the line that set a bit; classify_decide.c picks the one the verdict
 * came from). */
unsigned classify_evidence_bits(const struct classifier *c);

/* ---- line handlers ---- */

static inline void saw_fault(struct classifier *c)
{
	c->fault_seen = true;
	c->f.saw_fault = true;
}


/* Classify what is left of the last line (one without a newline) as a
 * cut line. */
void classify_flush(struct classifier *c);

/* ---- classify_anchor.c: anchors that can start anywhere in a line ---- */

/* What kind of unread evidence an anchor found (classify_unread.c). */
enum unread_kind {
	UNREAD_NONE = 0, UNREAD_HIP_ERROR, UNREAD_RUNTIME_LOG, UNREAD_AMDGPU, UNREAD_ASSERTION,
	UNREAD_SEGFAULT, UNREAD_CORE_DUMPED, UNREAD_SCHEDULER,
};

/* Where the anchors of the non-prefix rules first occur in a line. */
struct anchors {
	const char *maf, *mfe, *queue, *hsa, *replay, *hrr, *kernarg, *grid, *hip_so, *hw;
	const char *hip_error; /* "hipError<Name>" other than hipErrorOutOfMemory */
	/* classify_stop.c's: a device-side assert, ROCr's memory critical
	 * error, CLR's missing code object, a scheduler's kill. */
	const char *dev_assert, *critical, *missing_co, *sched;
	/* The first text that looks like evidence no rule may read
	 * (classify_unread.c), and its kind. */
	const char *unread;
	enum unread_kind unread_kind;
	bool oom;
};

/* Once per process, before the first scan. */
void classify_anchors_init(void);
void classify_scan_anchors(const char *s, const char *end, struct anchors *a);
/* Anchors at or past limit belong to the next window (or to nothing). */
void classify_anchors_before(struct anchors *a, const char *limit);
/* The readers for the anchors found in [s, end). */
void classify_generic(struct classifier *c, const char *s, const char *end,
		      struct anchors *a);
/* The runtime's anchors in [s, end), those before limit only; no line-start
 * rules (for text after an [HRR] line's own fields, and overlong lines). */
void classify_anchored(struct classifier *c, const char *s, const char *end, const char *limit);

/* ---- the line readers, one per kind of line ---- */

/* hrr-playback's Placement and Runtime lines (q after "[HRR]" and its
 * blanks); true when handled. Called for every other [HRR] line too: the
 * Runtime continuation is the line right after one. */
bool classify_caveat(struct classifier *c, const char *q, const char *end);

/* [HRR ...] lines; true when the line is fully handled. */
bool classify_hrr(struct classifier *c, const char *s, const char *end);
/* `hrr-playback --info` lines (column 0); true when handled. */
bool classify_info(struct classifier *c, const char *p, const char *end);
/* p is after "Complete:" (--info's line, or the same with [HRR] in a replay log). */
void classify_complete(struct classifier *c, const char *p, const char *end);

/* Launch and dispatch lines. */
void classify_progress(struct classifier *c, const char *p, const char *end);
void classify_event(struct classifier *c, const char *q, const char *end);
void classify_arg(struct classifier *c, const char *q, const char *end);

/* The GPU runtime's lines, the words around "replay" (stop markers,
 * hrr-playback's abort words), and the dispatch assignments
 * (kernarg_address=, grid=[...]). */
void classify_maf(struct classifier *c, const char *p, const char *end);
/* r is after "Reason: " (on the MAF line or a later one). */
void classify_reason(struct classifier *c, const char *r, const char *end);
void classify_mfe(struct classifier *c, const char *p, const char *end);
void classify_queue_abort(struct classifier *c, const char *p, const char *end);
void classify_hsa_status(struct classifier *c, const char *p, const char *end);
/* A HIP device-side error: by name at p ("hipErrorIllegalAddress"), or by
 * code (hrr-playback's lines); api: the call it surfaced on, or NULL. */
/* false: the table does not know the name (evidence no rule read). */
bool classify_hip_name(struct classifier *c, const char *p, const char *end);
void classify_hip_code(struct classifier *c, long long code, bool after_launch,
		       const char *api, const char *api_end);
void classify_replay_word(struct classifier *c, const char *p, const char *from,
			  const char *end);
void classify_agent_wave(struct classifier *c, const char *p, const char *end);
/* p is at "HW Exception by GPU node-". */
void classify_hw_exception(struct classifier *c, const char *p, const char *end);
/* The older agent's "System event (...)" and "Faulting page: ..." lines
 * (s is the line's start). */
void classify_agent_event(struct classifier *c, const char *s, const char *end);
void classify_assignments(struct classifier *c, const char *kernarg, const char *grid,
			  const char *end);

/* ---- classify_stop.c: the lines that explain a stop (issue 40) ---- */
void classify_device_assert(struct classifier *c);
/* p is at "Memory critical error by agent node-". */
void classify_critical(struct classifier *c, const char *p, const char *end);
void classify_missing_co(struct classifier *c);
/* p is at the scheduler's kill text; s..end is its line. */
void classify_sched(struct classifier *c, const char *s, const char *p, const char *end);

/* ---- classify_trace.c: hrr-playback's trace and sync-failure lines ---- */
/* s is at "[HRR " (not "[HRR]"); true when the line was a trace line. */
bool classify_trace(struct classifier *c, const char *s, const char *end);
/* "[HRR] <sync API> error N (...)" (q after "[HRR] "); true when it was. */
bool classify_sync_error(struct classifier *c, const char *q, const char *end);
/* "[HRR] Device  : NAME (gfx...)" (q at "Device"); true when it was. */
bool classify_device_line(struct classifier *c, const char *q, const char *end);
/* "[HRR] Failed to load code object H: N (...)" (q at "Failed"). */
bool classify_load_failure(struct classifier *c, const char *q, const char *end);
/* A new "[HRR] Archive :" banner: another replay in the same log. */
void classify_banner(struct classifier *c);

/* ---- classify_unread.c: evidence no rule read (issue 40 §2) ---- */
/* Where the unread kinds' anchors start (a bigram of classify_anchor.c's
 * table); sets a->unread when p starts one. */
void classify_unread_anchor(const char *s, const char *p, const char *end, struct anchors *a);
/* CLR's log prefix ":L:<file>.cpp" at s, the line's start. */
void classify_unread_log(const char *s, const char *end, struct anchors *a);
/* The line s..end held an unread anchor and no rule read it: list it. */
void classify_unread(struct classifier *c, const char *s, const char *end,
		     const char *at, enum unread_kind kind);

#endif

/* Findings: from a replay log to a verdict (docs/findings.md).
 * The classifier is pure and streaming: bytes in, one line at a time,
 * bounded memory whatever the log size. */
#ifndef HRR_FINDING_FINDING_H
#define HRR_FINDING_FINDING_H

#include <stdbool.h>
#include <stddef.h>


#include "common/strbuf.h"
#include "common/strvec.h"
#include "orchestrator/finding/caveats.h"
#include "orchestrator/finding/marker.h"
#include "preflight/manifest.h"
#include "preflight/preflight.h"

enum finding_outcome {
	OUTCOME_UNKNOWN = 0,
	OUTCOME_PASS,
	OUTCOME_MAF,
	OUTCOME_FAIL,
	OUTCOME_ABORT,
	OUTCOME_HANG,
};
const char *finding_outcome_name(enum finding_outcome o); /* "PASS", ... */
/* The outcome spelled as finding_outcome_name() spells it; false for any
 * other text. The one place an outcome's name is read. */
bool finding_outcome_from_name(const char *name, enum finding_outcome *out);
/* name spells o (false for NULL): how a model that keeps the names (a
 * history row, a report's case) asks, never by comparing text itself. */
bool finding_outcome_is(const char *name, enum finding_outcome o);

/* The fault classes of docs/findings.md, in no particular order (the
 * precedence lives in the classifier's decision). */
enum finding_fault_class {
	FAULT_UNKNOWN = 0,
	FAULT_VERSION_MISMATCH,
	FAULT_HANG,
	FAULT_REPLAY_PASS,
	FAULT_NAN_INF_DIVERGENCE,
	FAULT_REPLAY_OOM,
	FAULT_READ_ONLY_PAGE_FAULT,
	FAULT_ILLEGAL_MEMORY_ACCESS,
	FAULT_REPLAY_FATAL_API,
	FAULT_REPLAY_ABORTED,
	FAULT_REPLAY_CRASHED,
	FAULT_GPU_HANG,           /* the driver reset a hung GPU (HW exception "GPU Hang") */
	FAULT_GPU_ECC_ERROR,      /* the GPU was reset for an ECC error */
	FAULT_GPU_HW_EXCEPTION,   /* a HW exception with another reason */
	/* From the runtime status table (orchestrator/finding/runtime_status.h). */
	FAULT_ILLEGAL_INSTRUCTION,   /* HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION */
	FAULT_DEVICE_ASSERT,         /* HIP 710: a device-side assert */
	FAULT_KERNEL_FAULT,          /* HIP 719: a kernel fault of unknown kind */
	FAULT_CODE_OBJECT_MISMATCH,  /* the image's code does not fit this GPU */
	FAULT_OUT_OF_RESOURCES,      /* the runtime ran out of resources */
	/* What a FAIL failed on, when no D2H check did (hrr-playback's summary). */
	FAULT_D2H_NOT_COMPARED,      /* every D2H check was skipped */
	FAULT_REPLAY_API_ERRORS,     /* replayed calls failed under --continue-on-error */
	FAULT_CODE_OBJECT_UNLOADABLE,/* code objects did not load (continued) */
	FAULT_REGION_VIOLATION,      /* --regions-strict: out-of-bounds region pointers */
};
/* "replay_pass", ..., "unknown": the JSON and markdown spelling. */
const char *finding_fault_class_name(enum finding_fault_class c);
/* True for the classes that are evidence against the GPU (its hardware,
 * firmware or driver) rather than the workload (docs/findings.md):
 * gpu_ecc_error, gpu_hang, gpu_hw_exception. */
bool finding_class_against_gpu(enum finding_fault_class c);
/* The class spelled as finding_fault_class_name() spells it; false for
 * any other text (a name from another version's files). */
bool finding_fault_class_from_name(const char *name, enum finding_fault_class *out);

struct d2h_failure {
	char *tag;          /* "DtoH", "DtoHAsync", "kernarg", API name; NULL for "validate" lines */
	long long seq;      /* -1 unknown */
	long long bytes;    /* -1 unknown */
	long long bytes_differ;
	bool has_max;
	double max_abs;
	double max_rel;
	/* Added: the unmapped source of a "D2H validate FAIL" line ("0x..."), else NULL. */
	char *src;
};

/* Bounds that keep a finding small whatever the log holds. */
#define FINDING_LINE_MAX (64 * 1024)      /* longer lines are read in windows of this */
#define FINDING_MAX_D2H_FAILURES 256      /* more D2H FAIL lines are counted, not listed */
#define FINDING_MAX_KERNEL_NAMES 256
#define FINDING_MAX_NOTES 64
/* Evidence no rule read (issue 40 §2): at most this many kinds, each with
 * its first line cut to this many bytes. */
#define FINDING_MAX_UNREAD 20
#define FINDING_UNREAD_TEXT_MAX 240
/* The classifier's rules, as finding.json's classifier_version: bumped
 * whenever a rule change can give the same log another verdict, so a sweep
 * tells a tool upgrade (`reclassified`) from a workload change. 2: the
 * real-format variants of the replay's lines. 3: GPU hardware exceptions
 * (gpu_hang, gpu_ecc_error, gpu_hw_exception), the older debug agent's
 * memory-fault report (MAF, not a crash), ROCm 7's agent wave lines. 4: the
 * runtime status table (every HSA status and HIP's device-side codes), FAIL
 * classed by what failed, labels from the log's own lines. 5: issue 40's
 * lines (several queue aborts, trace lines, every sync-failure form, code
 * for another GPU, device asserts, ROCr's explained aborts, two replays in
 * one log, a scheduler's clock) and the evidence no rule read. */
#define FINDING_CLASSIFIER_VERSION 5

/* A line that looks like evidence and that no rule read: the first of its
 * kind, where it was, how many lines of that kind the log held. */
struct finding_unread {
	char *kind;          /* "hipErrorInvalidDeviceFunction", "amdgpu", "core dumped", ... */
	char *text;          /* the line, at most FINDING_UNREAD_TEXT_MAX bytes */
	long long line;      /* its line number, from 1 */
	long long count;
};

/* Every field of docs/findings.md. Strings are owned (NULL = unset); integers
 * are -1 when unset (a zero is a value). */
struct runtime_status;

struct finding {
	enum finding_outcome outcome;
	enum finding_fault_class fault_class;
	char *fault_address;
	char *fault_reason;
	long long failing_event_seq;
	long long failing_call_index;
	long long failing_thread;
	char *failing_api;
	char *kernel_name;
	char *kernel_family;
	char *kernarg_address;
	char *grid;
	char *workgroup;
	char *gpu_node;
	int replay_signal;          /* -1 unset */
	char *last_progress_kernel;
	char *last_event_kernel;
	long long kernels_launched;
	long long d2h_pass;
	long long d2h_fail;
	long long d2h_attempted;
	long long archive_events;
	long long archive_kernels;
	struct strvec archive_kernel_names;
	int archive_complete;       /* 1 yes, 0 no, -1 unknown */
	int archive_format_version; /* -1 unknown */
	int reader_format_version;  /* -1 unknown */
	char *capture_hip_so;
	char *capture_hip_runtime_version;
	char *capture_comgr_version;
	int capture_device_count;
	char *capture_gcn_arch;
	struct strvec sources;
	struct strvec notes;
	struct strvec labels;
	struct d2h_failure *d2h_failures;
	size_t n_d2h_failures;
	double gpu_time_kernel_ms, gpu_time_graph_ms, gpu_time_total_ms; /* < 0 unset */
	/* Evidence flags the classifier saw (for merging and labels). */
	bool saw_missing_handle;
	bool saw_not_replayable;
	bool saw_user_interrupt;
	bool saw_kernel_from_fault_line;
	bool multi_process;

	/* Added by the classifier (fields beyond the first draft). */
	bool kernels_from_summary;       /* kernels_launched is the end-of-run total */
	bool d2h_from_summary;           /* d2h_* are the end-of-run totals */
	long long archive_recovered_events; /* --info "Recovered: N events"; -1 unknown */
	long long archive_distinct_kernels; /* rows of --info's "Kernel Call Counts" (one per kernel); -1 unknown */
	size_t d2h_failure_lines;        /* D2H FAIL lines seen (>= n_d2h_failures when capped) */
	long long timeout_s;             /* from a timeout marker; -1 none */
	bool timeout_without_output;     /* ... "without output" (--progress-timeout) */
	bool saw_watchdog;               /* hrr-playback's own [HRR][WATCHDOG] */
	bool saw_oom_marker;             /* the engine OOM-killed the replay */
	char *interrupt_signal;          /* "SIGINT" from the user-interrupt marker */
	bool saw_fault;                  /* any GPU fault / abort / fatal line */
	/* The input was `hrr-playback --info` output (a tool run on archive
	 * data): evidence about the archive only, never about the outcome. */
	bool archive_tool_output;

	/* Issue 29: caveats hrr-playback prints (orchestrator/finding/caveats.c). */
	struct finding_placement placement;
	struct strvec runtime_libraries; /* "[HRR] Runtime : <path>" and its continuation lines */
	/* Flags asked of hrr-playback that its --help does not list (run only:
	 * it ignores flags it does not know). */
	struct strvec playback_flags_unknown;
	/* The line the verdict came from, from its first anchor on (NULL for a
	 * PASS or when no line decided), and the debugger's stop reason when a
	 * diagnosis gave one: two parts of the signature (signature.h). */
	char *evidence;
	char *stop_reason;
	/* The verdict is a HIP device-side code reported on a later call (a
	 * copy, a sync): no launch is named, so none is taken from the log. */
	bool device_error_on_later_call;
	/* The runtime status a note of this finding names ("the runtime reported
	 * ..."), a row of runtime_status.h's table; NULL: none. */
	const struct runtime_status *runtime_status;

	/* Issue 40. */
	struct finding_unread *unread;   /* evidence no rule read, in the order met */
	size_t n_unread;
	long long replay_parts;          /* replays in the log ("[HRR] Archive :" banners); -1 unknown */
	char *replay_gcn_arch;           /* the replay device's, from hrr-playback's Device line */
};

void finding_init(struct finding *f);
void finding_release(struct finding *f);

struct classifier;
struct classifier *classifier_new(const char *source_name);
void classifier_free(struct classifier *c);
/* Feed any chunk; lines are split internally (an overlong line is read
 * window by window, never buffered whole). */
void classifier_feed(struct classifier *c, const char *data, size_t len);
/* The unfinished line ends here, cut (the writer died mid-line, or its
 * stream ended): it is classified, but supplies no name and no number. The
 * input goes on with the next line. */
void classifier_cut_line(struct classifier *c);
/* Flush the last partial line (cut, as above) and produce this input's finding. *out is
 * overwritten (initialise nothing; release it with finding_release). Call
 * once per classifier; free the classifier afterwards. */
void classifier_finish(struct classifier *c, struct finding *out);

/* Added: the kernel family of a symbol ("hipblaslt_gemm/MT256x256x64/streamk",
 * "pytorch_kernel", "other"), newly allocated; NULL for NULL. */
char *finding_kernel_family(const char *kernel);
/* Where the text the classifier reads in a line starts: its first anchor
 * (a fault, an abort, an [HRR] line, a stop marker), so what a timestamp,
 * a CI system or another writer put in front is left out; NULL when the
 * line holds none. Bounded by end. */
const char *finding_line_anchor(const char *p, const char *end);
/* Added: append a note unless the same text is already there. */
void finding_add_note(struct finding *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Combine inputs read in order: a later outcome/class replaces the
 * earlier only when it is not UNKNOWN/unknown; fields fill gaps. From
 * --info output (later->archive_tool_output) only the archive's facts are
 * taken: its health and kernel names, never an outcome. */
void finding_merge(struct finding *acc, const struct finding *later);
/* Every string made valid UTF-8 without control characters or colour
 * codes (common/text.h): names and text from a log or an archive are
 * printed byte for byte upstream. The classifier and finalize call it. */
void finding_sanitize(struct finding *f);

/* How the replay ended, from the run pipeline (NULL for analyze). */
struct finding_run {
	const char *image;
	const char *image_id;
	const char *image_digest;
	const char *container_id;
	const int *gpus;
	size_t n_gpus;
	const char *devices;  /* how the GPUs reached the container: "nodes", "cdi"; NULL unknown */
	int exit_code;        /* -1 unknown */
	enum finding_ended_by ended_by;
	int signal;           /* -1 none */
	double wall_s;
	const char *log;
	const char *run_dir;
};

struct known_rule; /* orchestrator/finding/known_issues.h */
struct finding_context {
	const char *archive_name;              /* "pid-1234" */
	const struct manifest *manifest;       /* NULL when unreadable */
	unsigned archive_format_version;       /* 0 unknown */
	const struct finding_run *run;         /* NULL for analyze */
	const struct preflight_report *preflight; /* NULL when not run */
	bool multi_process;
	const char *manifest_path;             /* added: listed in sources when manifest != NULL */
	/* run only: the stack preflight read in the image or the overlay
	 * (NULL: not read), compared with the runtime libraries the replay
	 * printed. */
	const struct stack_info *stack;
	/* --known-issues (docs/sweep.md "Known issues"): whether rules were
	 * read, and the rule that matched this finding (NULL: untriaged, or
	 * no rules). finding.json's "known", finding.md's "Known issue". */
	bool known_checked;
	const struct known_rule *known;
};

/* After merging: manifest fields, kernel attribution and its notes,
 * kernel family, ATen caveat, labels. ctx may be NULL; calling it twice
 * changes nothing (notes are not repeated, labels are recomputed). */
void finding_finalize(struct finding *f, const struct finding_context *ctx);
/* True when a fault/abort names no kernel: `hrr-playback --info` output
 * could attribute it (single-kernel inference). */
bool finding_needs_info(const struct finding *f);

/* Appends finding.md to out. ctx may be NULL ("unknown archive"). */
void finding_render_markdown(const struct finding *f, const struct finding_context *ctx,
			     struct strbuf *out);
/* finding.md's "Replay caveats" table (orchestrator/finding/caveats.h;
 * nothing when neither was printed; finding.json's parts:
 * finding_json.h). */
void finding_caveats_markdown(const struct finding *f, struct strbuf *out);

#endif

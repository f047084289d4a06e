/* One replay described (what, where, how, which policy) and what the unit
 * hands back for it (replay_unit.h). Plain values the caller fills:
 * `run` and `preflight` from their options, a sweep worker from its case. */
#ifndef HRR_REPLAY_DESC_H
#define HRR_REPLAY_DESC_H

#include <stdbool.h>
#include <stddef.h>

#include "common/events.h"
#include "common/strvec.h"
#include "orchestrator/diagnosis/diag_plan.h"
#include "orchestrator/finding/finding.h"
#include "orchestrator/finding/signature.h"
#include "orchestrator/perf/perf_samples.h"
#include "preflight/gpu_choice.h"
#include "preflight/manifest.h"
#include "preflight/preflight.h"
#include "preflight/topology.h"
#include "orchestrator/replay/image.h"
#include "orchestrator/replay/kernel_replace.h"
#include "orchestrator/replay/playback_args.h"
#include "orchestrator/replay/replay_host.h"
#include "orchestrator/replay/replay_plan.h"
#include "orchestrator/seccomp/seccomp_profile.h"

enum replay_confirm {
	REPLAY_CONFIRM_PROMPT = 0,  /* ask through events (a terminal), else refuse with exit 2 */
	REPLAY_CONFIRM_ASSUME_YES,  /* --yes / HRR_CONTINUE=1 */
	REPLAY_CONFIRM_REFUSE,      /* never ask: exit 2 (a sweep records needs-confirm) */
};

enum replay_mode {
	REPLAY_MODE_REPLAY = 0,
	REPLAY_MODE_PREFLIGHT_ONLY, /* the checks and the report only: no run folder, no container */
};

struct replay_limits {
	long timeout_s;           /* 0 = none; counted from the container's start */
	long progress_timeout_s;  /* 0 = off */
	long stop_grace_s;        /* SIGTERM to SIGKILL */
	long progress_seconds;    /* HIP_HRR_REPLAY_PROGRESS_SECONDS */
	long long memory_bytes;   /* --memory: the container's limit; 0 = none */
	long long log_limit_bytes; /* --log-limit: replay.log's bound; 0 = none */
};

struct replay_unit_result;

struct replay_desc {
	/* What to replay, and in what. */
	const char *pid_dir;              /* absolute; checked by archive_check_events */
	unsigned archive_format_version;  /* from the caller's check; 0 = the unit checks */
	bool multi_process;               /* one of several pids of one capture */
	const struct image_facts *image;  /* ref as given + pinned ID, digest, env, repository */
	bool create_by_id;                /* create the container from image->id: the image that was
					   * inspected, not whatever the tag names by then (default) */
	const char *playback;             /* inside the container; NULL = overlay's, else looked up (cached) */
	const struct overlay_paths *overlay; /* --mount-clr, resolved; NULL = none */
	const struct stack_info *stack;   /* preflight facts read once per image; NULL = the unit reads them */

	const struct capture_manifest *capture; /* pid_dir's manifest, read once by the caller */

	/* Where: chosen and checked once by the caller (a run's lease, the
	 * sweep's scheduler); an error in it blocks the replay (exit 4). */
	const struct gpu_choice *gpus;

	/* How. */
	struct replay_limits limits;
	const struct strvec *env;         /* --env K=V, in order; may be NULL */
	const struct strvec *hip_hrr_env; /* the host's HIP_HRR_* "K=V"; may be NULL */
	const struct strvec *extra_ld;    /* --extra-ld; NULL/empty = the default for the image */
	const struct strvec *cap_add;     /* may be NULL */
	const struct playback_args *playback_args; /* --playback-arg; may be NULL */
	const struct kernel_replacements *replace_kernels; /* --replace-kernel, host files set; may be NULL */
	bool no_sync;
	bool timing;                      /* hrr-playback --timing (a perf sample, docs/perf.md) */
	bool keep;
	const struct seccomp_choice *seccomp; /* NULL: the replay profile */
	bool as_root;                     /* root inside; default the caller's uid:gid */
	/* The GPU debuggers (docs/gpu-debug-tools.md): an agent rerun after a
	 * GPU fault, rocgdb before a hung replay is stopped. */
	enum diagnose_mode diagnose;      /* replay_desc_init: off (callers choose) */
	long diagnose_timeout_s;          /* rocgdb's bound; replay_desc_init: 90 */

	/* Preflight policy. */
	bool skip_preflight;
	bool strict_version;
	bool strict_arch;
	enum replay_confirm confirm;

	enum replay_mode mode;
	const char *run_id;               /* 6 hex digits; NULL = new */
	int verbosity;                    /* -1 quiet (no live echo), 0 normal, 1+ verbose */
	int interrupt_fd;                 /* signal self-pipe read end; -1 none */
	/* Called once the verdict is known, before finding.json is written:
	 * what the caller sets in the result goes into the file too (`run
	 * --perf`'s samples, res->perf). NULL: nothing. */
	void (*on_verdict)(void *ctx, struct replay_unit_result *res);
	void *on_verdict_ctx;
	/* What the replay has to say, its live log and the confirmation
	 * question (common/events.h); NULL: it says nothing, asks nobody. */
	const struct job_events *events;
};

/* Zero, interrupt_fd -1, stop grace 10, progress seconds 30 (the CLI defaults). */
void replay_desc_init(struct replay_desc *d);

struct replay_timings {
	double pull_s;            /* from the image facts */
	double create_s, start_s, first_output_s, exit_s, remove_s, collect_s; /* -1 = not reached */
	double wall_s;            /* the whole unit call */
};

/* The verdict's fields a sweep records, typed: what finding.json says of
 * them, so that no caller reads them back out of its cJSON by key. */
struct replay_verdict {
	enum finding_outcome outcome;
	enum finding_fault_class fault_class;
	char *kernel;                     /* sanitised as in finding.json; NULL: unknown */
	long long d2h_pass, d2h_fail;     /* -1: unknown */
	int classifier_version;
	bool engine_oom_killed;           /* the engine killed it for host memory: infrastructure */
	struct signature signature;       /* unset for a PASS */
	double gpu_kernel_ms, gpu_graph_ms, gpu_total_ms; /* --timing's lines; < 0 not printed */
};

struct replay_unit_result {
	int exit_code;                    /* docs/cli.md, for this replay alone */
	struct replay_failure failure;    /* stage NONE when a verdict (or a preflight report) came out */
	char run_id[7];
	char *run_dir;                    /* NULL when none was created */
	enum preflight_verdict preflight; /* the verdict of the checks */
	char *preflight_markdown;         /* the report (also preflight.md); NULL when not reached */
	struct preflight_report *preflight_report; /* the checks' report (its JSON: preflight_json.h); NULL when not reached */
	bool has_verdict;                 /* verdict is set and finding.json written */
	/* finding.json's document, for the edges that print it as JSON
	 * (replay_json.h); NULL when no verdict. */
	struct replay_finding_doc *finding_doc;
	/* `run --perf`'s samples, set by on_verdict: finding.json's "perf". */
	const struct perf_samples *perf;
	char *finding_markdown;           /* finding.md's text; NULL when no verdict */
	struct replay_verdict verdict;    /* set with finding */
	int gpus[GPU_MAX];                     /* the ordinals the replay got */
	size_t n_gpus;
	int interrupt_signal;             /* the first signal read from interrupt_fd, 0 none */
	struct replay_timings timings;
	/* What went wrong without changing the verdict (a record not written,
	 * a container not removed): the caller says each, the unit prints
	 * nothing. */
	struct strvec warnings;
};

/* Free what a result holds (replay_unit_run fills it). */
void replay_unit_result_release(struct replay_unit_result *r);

#endif

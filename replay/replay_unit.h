/* One replay as a unit: everything from one pid directory to its run
 * folder and finding, callable many times in one process and from any
 * caller (the `run` and `preflight` commands, a sweep worker, a Slurm task,
 * a debugger run, the tests). See docs/design.md.
 *
 * Who does what
 *   The caller sets up what a host shares once (struct replay_host: engine
 *   connection, GPU topology, device root, workdir and cache, owner label)
 *   and what an image shares once (struct image_facts: pinned ID, env,
 *   repository; optionally the preflight stack facts and the playback path),
 *   then describes each replay (struct replay_desc) and calls
 *   replay_unit_run(). The unit does: preflight (manifest, GPU choice,
 *   rules, confirmation policy), run folder, device nodes, container spec,
 *   the replay under the watchdog, the classifier, the `--info` follow-up,
 *   and the records (run.json, preflight.md, finding.json, finding.md).
 *   It prints nothing on stdout: the finding comes back in the result and
 *   the caller decides where it goes. It prints progress and errors on
 *   stderr (prefixed, per verbosity) and echoes the live log unless quiet.
 *
 * State
 *   No global state: no `struct options`, no signal handler state. The
 *   interrupt arrives as a file descriptor (the signal self-pipe's read end:
 *   one byte per signal, the byte is the signal number); -1 means none.
 *   Everything the unit allocates is released before it returns, except the
 *   result (replay_unit_result_release()).
 *
 * Concurrency
 *   One replay per process at a time: a parent that wants N replays at once
 *   forks N workers, each opens its own engine connection (replay_host_open)
 *   and calls replay_unit_run() once; GPUs are chosen by the parent (leases)
 *   and passed in desc.gpus. Sequential calls in one process (the `run`
 *   command over a multi-process capture, the tests) share one host.
 *
 * Exit codes and stages (docs/cli.md)
 *   The result carries the exit code the CLI would return for this replay,
 *   and on every path that ended without a verdict the stage that stopped it
 *   and the one-line message, for `--format json` ({"exit", "stage",
 *   "error", "run_dir"}). */
#ifndef HRR_ORCHESTRATOR_REPLAY_UNIT_H
#define HRR_ORCHESTRATOR_REPLAY_UNIT_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "common/error.h"
#include "common/strvec.h"
#include "finding/diag_plan.h"
#include "replay/image.h"
#include "replay/replay_plan.h"
#include "seccomp/seccomp_profile.h"
#include "preflight/preflight.h"
#include "preflight/topology.h"

struct engine;

/* Exit codes (docs/cli.md). */
enum {
	EXIT_PASS = 0,
	EXIT_NOT_PASS = 1,
	EXIT_CONFIRM = 2,
	EXIT_DECLINED = 3,
	EXIT_BLOCKED = 4,
	EXIT_NO_VERDICT = 5,
	EXIT_USAGE = 64,
	EXIT_GPU_BUSY = 75, /* the GPUs stayed held past --gpu-wait (EX_TEMPFAIL) */
};

/* Where a replay (or the set-up before it) stopped without a verdict. */
enum replay_stage {
	REPLAY_STAGE_NONE = 0,  /* no error: a verdict, or preflight-only done */
	REPLAY_STAGE_USAGE,     /* "usage": options, environment variables */
	REPLAY_STAGE_ARCHIVE,   /* "archive": path, pid dirs, events.bin */
	REPLAY_STAGE_INPUT,     /* "input": a log given to analyze */
	REPLAY_STAGE_WORKDIR,   /* "workdir": workdir, run folder */
	REPLAY_STAGE_ENGINE,    /* "engine": connecting to the engine */
	REPLAY_STAGE_HOST,      /* "host": no AMD GPU (KFD topology), device nodes */
	REPLAY_STAGE_PULL,      /* "pull": the image is missing and could not be pulled */
	REPLAY_STAGE_IMAGE,     /* "image": inspect, hrr-playback lookup, overlay */
	REPLAY_STAGE_PREFLIGHT, /* "preflight": blocked, confirmation needed or declined */
	REPLAY_STAGE_REPLAY,    /* "replay": create/start failed, or interrupted */
	REPLAY_STAGE_RECORDS,   /* "records": the run folder's files could not be written */
};
const char *replay_stage_name(enum replay_stage s); /* "archive", ...; NULL for NONE */

/* A stop without a verdict: stage, exit code and the one-line message (the
 * one printed on stderr, without the program prefix). */
struct replay_failure {
	enum replay_stage stage;
	int exit_code;
	char msg[ERROR_MSG_MAX];
};
/* Record a failure and print it (say_error); returns exit_code. */
int replay_fail(struct replay_failure *f, enum replay_stage stage, int exit_code,
		const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* ---- per host ---- */

/* Said on stderr and recorded in run.json (orchestrator.engine_limits). */
#define REPLAY_LIMITS_DROPPED \
	"the engine (rootless Podman on cgroup v1) does not apply the replay's pids and memory limits; the watchdog (--timeout, --progress-timeout) is its only bound"

struct replay_host {
	struct engine *engine;          /* one connection; NULL only for preflight without engine */
	struct gpu_topology topo;
	bool have_topo;                 /* false: host GPUs unknown, topo_error says why */
	char topo_error[ERROR_MSG_MAX];
	char *device_root;              /* "/dev" */
	char *workdir;                  /* canonical, prepared */
	char *cache_dir;                /* <workdir>/cache */
	char *owner;                    /* owner label of this process */
	/* The engine drops PidsLimit and Memory (rootless Podman on cgroup
	 * v1): the watchdog is the replay's only bound. */
	bool engine_drops_limits;
};

struct replay_host_config {
	const char *workdir;            /* NULL: $TMPDIR/hrr-docker-replay-<uid> */
	const char *const *archives;    /* refused as workdir parents */
	size_t n_archives;
	const char *device_root;        /* "/dev" */
	const char *sysfs_root;         /* "/sys" */
	bool need_gpu;                  /* no GPU = failure (run); else a preflight note */
	int verbosity;
};

/* Prepare the workdir, connect to the engine (DOCKER_HOST), read the GPU
 * topology. Returns 0, else the exit code with f filled (stage workdir,
 * engine or host). h is usable for replay_host_release() either way. */
int replay_host_open(struct replay_host *h, const struct replay_host_config *cfg,
		     struct replay_failure *f) __attribute__((warn_unused_result));
void replay_host_release(struct replay_host *h);

/* ---- per replay ---- */

enum replay_confirm {
	REPLAY_CONFIRM_PROMPT = 0,  /* ask on a TTY (stdin), else refuse with exit 2 */
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
};

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

	/* Where. */
	const int *gpus;                  /* chosen by the caller (leases), or NULL = the lowest */
	size_t n_gpus;
	bool gpus_requested;              /* gpus came from --gpu: preflight checks they exist */
	const char *gpus_from;            /* messages: the environment variable that gave them, NULL = --gpu or the caller */

	/* How. */
	struct replay_limits limits;
	const struct strvec *env;         /* --env K=V, in order; may be NULL */
	const struct strvec *hip_hrr_env; /* the host's HIP_HRR_* "K=V"; may be NULL */
	const struct strvec *extra_ld;    /* --extra-ld; NULL/empty = the default for the image */
	const struct strvec *cap_add;     /* may be NULL */
	bool no_sync;
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
};

/* Zero, interrupt_fd -1, stop grace 10, progress seconds 30 (the CLI defaults). */
void replay_desc_init(struct replay_desc *d);

struct replay_timings {
	double pull_s;            /* from the image facts */
	double create_s, start_s, first_output_s, exit_s, remove_s, collect_s; /* -1 = not reached */
	double wall_s;            /* the whole unit call */
};

struct replay_unit_result {
	int exit_code;                    /* docs/cli.md, for this replay alone */
	struct replay_failure failure;    /* stage NONE when a verdict (or a preflight report) came out */
	char run_id[7];
	char *run_dir;                    /* NULL when none was created */
	enum preflight_verdict preflight; /* the verdict of the checks */
	char *preflight_markdown;         /* the report (also preflight.md); NULL when not reached */
	cJSON *preflight_json;            /* {"verdict", "messages"}; NULL when not reached */
	cJSON *finding;                   /* finding.json's object; NULL when no verdict */
	char *finding_markdown;           /* finding.md's text; NULL when no verdict */
	const char *outcome;              /* "PASS", "MAF", ... (static); NULL when no verdict */
	int gpus[GPU_MAX];                     /* the ordinals the replay got */
	size_t n_gpus;
	int interrupt_signal;             /* the first signal read from interrupt_fd, 0 none */
	struct replay_timings timings;
};

/* The preflight facts of an image (or of the overlay when given): the
 * stack the replay will load, read once (cached by image ID under the
 * host's cache dir) and passed as desc.stack to each replay of it. What
 * cannot be read is out->unknown_reason (a preflight warning), never a
 * failure. out is initialised by the caller. probe: a probe container of
 * the image shared with its other lookups (its owner removes it), or NULL
 * for one of its own. */
void replay_read_stack(const struct replay_host *h, const struct image_facts *img,
		       const struct overlay_paths *overlay, const struct strvec *extra_ld,
		       struct ours_probe *probe, struct stack_info *out);

/* Run one replay (or only its preflight). Returns the exit code, also in
 * out->exit_code. out is initialised here; release it with
 * replay_unit_result_release(). */
int replay_unit_run(const struct replay_host *host, const struct replay_desc *d,
		    struct replay_unit_result *out);
void replay_unit_result_release(struct replay_unit_result *r);

#endif

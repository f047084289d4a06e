/* The GPU debuggers around a replay (docs/gpu-debug-tools.md): rocgdb in
 * the running container before a hung replay is stopped, and what an agent
 * rerun left in the run folder's diagnostics/. The decisions (which mode
 * does what) are orchestrator/diagnosis/diag_plan.h's; the parsing orchestrator/diagnosis/diag_*.h's. */
#ifndef HRR_REPLAY_DIAGNOSE_H
#define HRR_REPLAY_DIAGNOSE_H

#include "common/error.h"
#include "orchestrator/diagnosis/diag_plan.h"
#include "orchestrator/diagnosis/diagnosis.h"

#define DIAGNOSE_DIR "diagnostics"        /* in the run folder */
#define DIAGNOSE_MOUNT "/hrr-diagnostics" /* the same, inside the container */
#define DIAGNOSE_CODE_OBJECTS "code-objects"
#define DIAGNOSE_AGENT_LOG "agent.log"
#define DIAGNOSE_ROCGDB_LOG "rocgdb.txt"
#define DIAGNOSE_DISASSEMBLY "disassembly.txt"
#define DIAGNOSE_FILES_MAX (64u << 20) /* a tool's output read back, at most */

/* Run fn(ctx) in a child process and wait at most timeout_s (<= 0: no
 * bound). 0 when it ended (*status: its exit code, 128 + signal when
 * killed by one); 1 when the time ran out (the child is SIGKILLed and
 * reaped); -1 with err when it could not be started. The child leaves with
 * _exit(fn(ctx)): nothing of the parent's stdio is flushed twice. */
int diagnose_bounded(int (*fn)(void *ctx), void *ctx, double timeout_s, int *status,
		     struct error *err) __attribute__((warn_unused_result));

struct diagnose_hang_in {
	const char *docker_host;  /* NULL: $DOCKER_HOST (the child opens its own connection) */
	const char *container_id;
	const char *rocgdb;       /* the path inside the container */
	long timeout_s;           /* --diagnose-timeout */
	const char *run_dir;      /* host path; diagnostics/rocgdb.txt is written there */
};

/* rocgdb attached to the hrr-playback process of the running container,
 * bounded by timeout_s: the transcript in diagnostics/, d filled (ok,
 * failed or timed-out). Never fails: what went wrong is d's status. The
 * replay is not stopped here; the caller stops it as usual. */
void diagnose_hang(const struct diagnose_hang_in *in, struct diagnosis *d);

/* What an agent run left in <run_dir>: its log (log_rel, relative to
 * run_dir: diagnostics/agent.log for a rerun, replay.log when the run
 * itself was the agent run) parsed, streaming; the saved code objects in
 * diagnostics/code-objects listed; d filled. */
void diagnose_agent_collect(const char *run_dir, const char *log_rel, struct diagnosis *d);

/* An agent log at path parsed into r (initialised by the caller),
 * streaming; -1 when it cannot be read. */
int diagnose_agent_parse_file(const char *path, struct diag_agent_report *r);

#endif

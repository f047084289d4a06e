/* Run one replay container to its end under the watchdog: wait registered
 * before start, the log followed from the start, deadlines enforced with
 * SIGTERM, --stop-grace, SIGKILL, and exactly the stop marker docs/findings.md
 * gives each ending (orchestrator/finding/marker.h). */
#ifndef HRR_REPLAY_REPLAY_H
#define HRR_REPLAY_REPLAY_H

#include <stdbool.h>

#include "common/events.h"
#include "common/error.h"
#include "common/strvec.h"
#include "docker/engine.h"
#include "orchestrator/finding/marker.h"
#include "orchestrator/replay/interrupt.h"
#include "orchestrator/replay/run_log.h"

struct replay_result {
	char *container_id;
	long exit_code;        /* -1 unknown */
	enum finding_ended_by ended_by;
	int signal;            /* -1 none */
	int interrupt_signal;  /* the signal the orchestrator got, 0 none */
	bool oom_killed;
	bool removed;          /* the container is confirmed gone */
	bool log_incomplete;
	bool log_write_failed; /* stopped because replay.log could not be written */
	unsigned long long log_dropped; /* bytes --log-limit cut out of replay.log's middle */
	bool engine_lost;      /* the engine stopped answering: how the replay ended is unknown */
	bool quit_sent;        /* SIGQUIT went out before the stop (quit_wait_s) */
	double stop_s;         /* since start, when the watchdog began the stop; < 0 none */
	/* The last silence of at least REPLAY_QUIET_MIN_S before an output,
	 * and when it ended (since start): quiet_s 0 when none. A hang the GPU's
	 * own detection ended shows as the silence before that exception. */
	double quiet_s, quiet_end_s;
	/* Seconds on the monotonic clock, relative to the create call. */
	double create_s;       /* create took */
	double start_s;        /* start returned, since create */
	double first_output_s; /* since start; < 0 when nothing was printed */
	double exit_s;         /* since start */
	double remove_s;       /* removal took */
	char started_at[64];   /* UTC ISO */
	char finished_at[64];
	/* What went wrong on the way without ending the replay (a signal the
	 * engine refused, a container not removed): said by the caller. */
	struct strvec warnings;
};

#define REPLAY_QUIET_MIN_S 0.5

void replay_result_release(struct replay_result *r);

struct replay_exec {
	struct engine *engine;
	long timeout_s;          /* 0 = none */
	long progress_timeout_s; /* 0 = off */
	long stop_grace_s;
	bool keep;
	int verbosity;
	const struct job_events *events; /* what the stop says; NULL: nothing */
	const struct container_spec *spec;
	const char *name;        /* container name */
	struct run_log *log;
	struct interrupt_watch *interrupt; /* the replay's interrupts; its fd may be -1 */
	/* Called once when the watchdog is about to stop the replay (not on an
	 * interrupt), the container still running: a debugger's look at a hang.
	 * It bounds its own time. NULL = none. */
	void (*before_stop)(void *ctx, const char *container_id);
	void *before_stop_ctx;
	/* > 0: at a watchdog stop, write the stop marker, send SIGQUIT (the
	 * debug agent dumps every wave), wait this long, then stop as usual. */
	double quit_wait_s;
};

/* < 0 only when the replay could not be run at all (create/start failed);
 * the container is then removed. Once started, every ending is a result. */
__attribute__((warn_unused_result))
int replay_execute(const struct replay_exec *x, struct replay_result *r, struct error *err);

/* Pure: the marker text and ended_by for an ending (NULL marker: none).
 * stop_reason: 0 none, else the watchdog action or interrupt. */
enum replay_stop { REPLAY_STOP_NONE = 0, REPLAY_STOP_TIMEOUT, REPLAY_STOP_PROGRESS,
		   REPLAY_STOP_INTERRUPT,
		   REPLAY_STOP_LOG_FAILED /* replay.log cannot be written (disk full): no marker */ };
void replay_ending(enum replay_stop stop, long timeout_s, long progress_timeout_s,
		   int interrupt_signal, bool oom_killed, long exit_code,
		   struct strbuf *marker, enum finding_ended_by *ended_by, int *signal_out);

#endif

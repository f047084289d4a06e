/* A case's status against the baseline (docs/sweep.md "Statuses"), and the
 * sweep's exit code computed from the status counts. Pure. */
#ifndef HRR_SWEEP_SWEEP_STATUS_H
#define HRR_SWEEP_SWEEP_STATUS_H

#include <stdbool.h>
#include <stddef.h>

enum sweep_status {
	ST_PASS = 0,
	ST_REGRESSED,
	ST_FIXED,
	ST_STILL_FAILING,
	ST_CHANGED,
	ST_RECLASSIFIED,
	ST_FLAKY,
	ST_NEW,
	ST_GONE,
	ST_BLOCKED,
	ST_NEEDS_CONFIRM,
	ST_ERROR,
	ST_MISSING,
	ST__COUNT
};

/* What the baseline said of a planned case before the sweep ran it
 * (orchestrator/history/sweep_baseline.h loads it): the live status line counts
 * regressions against it; a case it saw fail is not diagnosed again. */
enum sweep_base {
	BASE_NONE = 0,  /* no done result in the baseline (or no baseline) */
	BASE_PASS,      /* its final attempt passed */
	BASE_FAILED,    /* its final attempt ran and did not pass */
};

/* Exit codes of `sweep` (docs/sweep.md "Exit codes"). */
#define SWEEP_EXIT_OK 0
#define SWEEP_EXIT_FAILED 1
#define SWEEP_EXIT_NO_GPU 4  /* a --gpus GPU the host lacks (run's exit 4) */
#define SWEEP_EXIT_INFRA 5
#define SWEEP_EXIT_USAGE 64
#define SWEEP_EXIT_GPU_BUSY 75

const char *sweep_status_name(enum sweep_status s); /* "still-failing" */

/* How a sweep ended (docs/sweep.md "The sweep folder"): every case it was
 * to run recorded, only some (a shard, a --resume left), or stopped. */
enum sweep_state {
	SWEEP_FINISHED = 0,
	SWEEP_PARTIAL,
	SWEEP_INTERRUPTED,
};

/* "finished", "partial", "interrupted": the history's sweeps.state, the
 * reports and the folder's end record say these. */
const char *sweep_state_name(enum sweep_state s);
/* The state of a name; false for anything else. */
bool sweep_state_parse(const char *name, enum sweep_state *out);
/* -1 for an unknown name. */
int sweep_status_parse(const char *name);
/* The order summary.md lists groups in: regressions first. */
extern const enum sweep_status sweep_status_report_order[ST__COUNT];

/* A bit set of statuses, for --fail-on. */
typedef unsigned sweep_status_mask;
#define SWEEP_STATUS_BIT(s) (1u << (s))
#define SWEEP_FAIL_DEFAULT \
	(SWEEP_STATUS_BIT(ST_REGRESSED) | SWEEP_STATUS_BIT(ST_CHANGED) | SWEEP_STATUS_BIT(ST_MISSING))
/* --fail-on words that are not statuses take bits well above theirs (the
 * mask is kept in plan.json as a number). perf-slower: a case whose GPU
 * time is `slower` (docs/perf.md "Statuses"). */
#define SWEEP_FAIL_PERF_SLOWER (1u << 24)

/* Not statuses either, kept in the same mask so plan.json records them
 * with the rest: --fail-on untriaged (a failure no known-issue rule
 * matches, whatever its status, makes the exit code 1) and --ignore-known
 * (a failure a rule matches does not count toward exit 1, whatever its
 * status). */
#define SWEEP_FAIL_UNTRIAGED (1u << 30)
#define SWEEP_FAIL_IGNORE_KNOWN (1u << 31)

/* "new,flaky,untriaged,perf-slower" -> mask; -1 on an unknown name
 * (bad_name points at it). */
int sweep_status_mask_parse(const char *list, sweep_status_mask *out, const char **bad_name,
			    size_t *bad_len) __attribute__((warn_unused_result));

/* First that applies: 1 when a counted status is in fail_on, or when
 * fail_on has SWEEP_FAIL_UNTRIAGED and untriaged failures are counted, or
 * SWEEP_FAIL_PERF_SLOWER and cases got slower; 5 on error or interruption;
 * 0 otherwise. counts leave out what SWEEP_FAIL_IGNORE_KNOWN does not
 * count (the caller knows the cases). */
int sweep_exit_code(const size_t counts[ST__COUNT], size_t untriaged, size_t perf_slower,
		    bool interrupted, sweep_status_mask fail_on);

#endif

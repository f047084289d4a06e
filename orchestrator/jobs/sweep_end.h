/* How a sweep ended, and what its end is told (orchestrator/jobs/
 * sweep_finish.h): the state, the GPUs it quarantined, the extra copies,
 * the rules, what comes after the reports. */
#ifndef HRR_JOBS_SWEEP_END_H
#define HRR_JOBS_SWEEP_END_H

#include <stdbool.h>

#include "common/events.h"
#include "orchestrator/finding/known_issues.h"
#include "orchestrator/report/report.h"
#include "orchestrator/sweep/sweep_folder.h"

/* How a sweep ended (docs/sweep.md "Exit codes"); the command layer
 * says it as an exit code. */
enum sweep_end {
	SWEEP_END_OK = 0,
	SWEEP_END_FAILED,      /* a case regressed, changed, is missing or has a --fail-on status */
	SWEEP_END_NO_GPU,      /* a --gpus GPU the host lacks */
	SWEEP_END_INFRA,       /* an infrastructure error, or interrupted */
	SWEEP_END_USAGE,       /* the request (or a file it names) is wrong */
	SWEEP_END_GPU_BUSY,    /* bounded GPU waits let nothing run */
};

/* The end an exit code of a sweep (a report's r->exit_code, a merge
 * job's) says. */
enum sweep_end sweep_end_of_code(int code);

struct sweep_finish {
	enum sweep_state state;
	long long finished;           /* epoch seconds */
	const int *quarantined;
	size_t n_quarantined;
	const struct sweep_gpu_note *gpu_notes; /* why each was quarantined, or is suspect */
	size_t n_gpu_notes;
	/* The suspect GPUs from the results files instead (the merge of a
	 * cluster sweep, whose tasks each saw only their own): gpu_notes are
	 * then orchestrator/sweep/suspect_nodes.h's over every node's results. */
	bool suspects_from_results;
	const char *junit, *html, *summary; /* extra copies, or NULL */
	bool json;                    /* stdout gets summary.json, else summary.md */
	const char *backend;          /* a cluster sweep's backend and its record (JSON,
				       * orchestrator/cluster/sweep_backend.h): kept with the
				       * options under "backend"; NULL: none */
	/* Called with the finished report once its files are written, before
	 * it is released (the notifications: orchestrator/notify/); NULL:
	 * nothing. What it does cannot change the report or the exit code. */
	void (*then)(void *ctx, const struct report *r);
	void *then_ctx;
	/* The known-issues rules: each failure a rule matches is marked known
	 * (its id, link and owner) in the history and the reports; NULL: none. */
	const struct known_issues *known;
	/* The plan of m, released before the import reads the results (its
	 * names and images are all the import needs of it, and the report
	 * reads its cases back from the database): a large plan is not held
	 * beside what the report keeps. NULL: kept. */
	struct sweep_plan *release_plan;
	/* What the import says of sweeps it could not recover; NULL: nothing. */
	const struct job_events *events;
};

#endif

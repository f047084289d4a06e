/* The end of a sweep (or of the merge of a cluster sweep): the results
 * files into the history database, statuses against the baseline, the
 * reports into the sweep folder (and their extra copies), the exit code. */
#ifndef HRR_REPORT_SWEEP_REPORT_H
#define HRR_REPORT_SWEEP_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "common/events.h"
#include "common/error.h"
#include "common/strbuf.h"
#include "orchestrator/finding/known_issues.h"
#include "orchestrator/history/history_db.h"
#include "orchestrator/report/report.h"
#include "orchestrator/sweep/sweep_folder.h"

#define SWEEP_TREND_SWEEPS 10

struct sweep_finish {
	const char *state;            /* "finished", "interrupted", "partial" */
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

/* Import, compare, render, write. *exit_code is the sweep's exit code;
 * shown_to gets what the command prints at the end (summary.md, or
 * summary.json with json). */
int sweep_report_write(struct history_db *db, const struct sweep_meta *m, const char *folder,
		       const struct sweep_finish *f, int *exit_code, FILE *shown_to,
		       struct error *err) __attribute__((warn_unused_result));

/* The sweep's exit code from its report (docs/sweep.md "Exit codes"),
 * into r->exit_code with what the known issues changed in it. */
void sweep_report_exit(struct report *r, const char *state, sweep_status_mask fail_on);

#endif

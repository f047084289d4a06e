/* The end of a sweep (or of the merge of a cluster sweep): the results
 * files into the history database (orchestrator/jobs/sweep_import.h),
 * statuses against the baseline into the report model
 * (orchestrator/jobs/sweep_model.h), the reports rendered into the sweep
 * folder (orchestrator/jobs/sweep_files.h), and how the sweep ended, a
 * typed value the command layer maps to its exit code. */
#ifndef HRR_JOBS_SWEEP_FINISH_H
#define HRR_JOBS_SWEEP_FINISH_H

#include <stdio.h>

#include "common/error.h"
#include "orchestrator/history/history_db.h"
#include "orchestrator/jobs/sweep_end.h"
#include "orchestrator/report/report.h"
#include "orchestrator/sweep/sweep_folder.h"

/* Import, compare, render, write. *end is how the sweep ended; shown_to
 * gets what the command shows at the end (summary.md, or summary.json
 * with json). */
int sweep_finish_write(struct history_db *db, const struct sweep_meta *m, const char *folder,
		       const struct sweep_finish *f, enum sweep_end *end, FILE *shown_to,
		       struct error *err) __attribute__((warn_unused_result));

/* The sweep's exit code from its report (docs/sweep.md "Exit codes"),
 * into r->exit_code with what the known issues changed in it: the
 * number the reports show. */
void sweep_finish_exit(struct report *r, enum sweep_state state, sweep_status_mask fail_on);

#endif

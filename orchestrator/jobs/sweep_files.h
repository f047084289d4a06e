/* A sweep's report files: every row of report_formats[] rendered from
 * the model into the sweep folder, put in place together, their extra
 * copies (--junit, --html, --summary) and the one shown at the end. */
#ifndef HRR_JOBS_SWEEP_FILES_H
#define HRR_JOBS_SWEEP_FILES_H

#include <stdio.h>

#include "common/error.h"
#include "orchestrator/jobs/sweep_end.h"
#include "orchestrator/report/report.h"

/* shown_to gets summary.md, or summary.json with f->json. */
int sweep_files_write(const struct report *r, const char *folder, const struct sweep_finish *f,
		      FILE *shown_to, struct error *err) __attribute__((warn_unused_result));

#endif

/* The end of a sweep's first half: its results files into the history
 * (each failure marked known by the rules first), what the report keeps
 * of them on the way, and the label's sweeps the history lost recovered
 * from their folders. */
#ifndef HRR_JOBS_SWEEP_IMPORT_H
#define HRR_JOBS_SWEEP_IMPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"
#include "common/events.h"
#include "common/intern.h"
#include "orchestrator/history/history_db.h"
#include "orchestrator/jobs/sweep_end.h"
#include "orchestrator/report/report.h"
#include "orchestrator/sweep/suspect_nodes.h"

/* What the end of a sweep keeps of the results files, a chunk at a time,
 * never the whole results: from the import's first reading, how many
 * have samples and, for a merge's suspect GPUs, what finding them reads
 * of each result. The attempts and GPU-time samples come from the
 * history once the import stored them (sweep_finish_write). */
struct sweep_kept {
	struct report_perf_set perf; /* each case and image's samples, not its result */
	size_t n_perf;               /* the results with samples (the first reading's count) */
	struct sweep_suspect_inputs suspects;
	bool suspects_from_results;
};

/* The sweep meta in folder into db, as f says it ended. keep: the
 * report's share, or NULL; names: where the planned names are kept when
 * f releases the plan (NULL: f releases none). */
int sweep_import(struct history_db *db, const struct sweep_meta *meta, const char *folder,
		 const struct sweep_finish *f, struct sweep_kept *keep, struct intern *names,
		 struct error *err) __attribute__((warn_unused_result));
/* Sweeps of meta's label beside folder that db does not know, imported
 * (ev hears of those that could not be). */
void sweep_import_recover(struct history_db *db, const struct sweep_meta *meta,
			  const char *folder, const struct job_events *ev);

#endif

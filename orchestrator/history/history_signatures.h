/* `history signatures`: the failure signatures no known issue matched,
 * by how many cases and sweeps they cover, each with a rule ready to
 * paste into the known-issues file; and the signatures a classifier
 * version changed, old -> new (docs/sweep.md "The history database"). */
#ifndef HRR_HISTORY_HISTORY_SIGNATURES_H
#define HRR_HISTORY_HISTORY_SIGNATURES_H

#include <stdbool.h>

#include "common/error.h"
#include "common/strbuf.h"
#include "orchestrator/history/history_db.h"

/* Markdown (or JSON when json) over the last `last` sweeps of label
 * (NULL: any) into out. */
int history_signatures_report(struct history_db *db, const char *label, int last, bool json,
			      struct strbuf *out, struct error *err)
	__attribute__((warn_unused_result));

#endif

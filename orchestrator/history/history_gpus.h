/* `history gpus`: failure rates per GPU identity (its KFD unique_id, with
 * the ordinal and host it had) and per node over the last sweeps, from
 * every attempt the history holds (docs/sweep.md "Suspect GPUs"). */
#ifndef HRR_HISTORY_HISTORY_GPUS_H
#define HRR_HISTORY_HISTORY_GPUS_H

#include <stdbool.h>

#include "common/error.h"
#include "common/strbuf.h"
#include "orchestrator/history/history_db.h"

/* Markdown (or JSON when json) of the last `last` sweeps of label (NULL:
 * any) into out. */
int history_gpus_report(struct history_db *db, const char *label, int last, bool json,
			struct strbuf *out, struct error *err) __attribute__((warn_unused_result));

#endif

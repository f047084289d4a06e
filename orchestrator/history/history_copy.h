/* `history copy --from SRC --to DST` (docs/sweep.md "History on
 * PostgreSQL"): every sweep of one history into another, SQLite or a
 * server either way, with its plan, every attempt, sample, known-issue
 * mark and signature, and every bisection's answer. */
#ifndef HRR_HISTORY_HISTORY_COPY_H
#define HRR_HISTORY_HISTORY_COPY_H

#include <stddef.h>

#include "common/error.h"
#include "orchestrator/history/history_db.h"

/* One transaction per sweep: its rows in to are replaced by from's, so a
 * copy run again (or after it stopped) changes nothing more. *sweeps:
 * how many were copied. */
int history_db_copy(struct history_db *from, struct history_db *to, size_t *sweeps,
		    struct error *err) __attribute__((warn_unused_result));

#endif

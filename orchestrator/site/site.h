/* `history site DIR` (docs/sweep.md "The history site"): a static,
 * self-contained site from the history database. One pass per label over
 * its window of sweeps, in grid order, writes a case's timeline as soon as
 * its rows are read and a grid page as soon as its cases are: memory is
 * one page of cases, not the library. */
#ifndef HRR_REPORT_SITE_H
#define HRR_REPORT_SITE_H

#include <stddef.h>

#include "common/error.h"
#include "orchestrator/history/history_db.h"
#include "orchestrator/site/site_options.h"

int history_site_generate(struct history_db *db, const char *dir, const struct site_options *o,
			  struct site_stats *stats, struct error *err)
	__attribute__((warn_unused_result));

#endif

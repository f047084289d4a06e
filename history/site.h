/* `history site DIR` (docs/sweep.md "The history site"): a static,
 * self-contained site from the history database. One pass per label over
 * its window of sweeps, in grid order, writes a case's timeline as soon as
 * its rows are read and a grid page as soon as its cases are: memory is
 * one page of cases, not the library. */
#ifndef HRR_HISTORY_SITE_H
#define HRR_HISTORY_SITE_H

#include <stddef.h>

#include "common/error.h"
#include "orchestrator/history_db.h"

#define SITE_GRID_CASES 250  /* cases per grid page */
#define SITE_GRID_SWEEPS 20  /* sweeps per grid page */
#define SITE_DEFAULT_LAST 60 /* sweeps of each label shown */
#define SITE_INDEX_PAGE "index.html"

struct site_options {
	const char *label; /* NULL: every label */
	int last;          /* sweeps of each label */
};

struct site_stats {
	size_t labels, cases, results, pages, written, kept, removed;
};

int history_site_generate(struct history_db *db, const char *dir, const struct site_options *o,
			  struct site_stats *stats, struct error *err)
	__attribute__((warn_unused_result));

#endif

/* What `history site DIR` is asked for and what it did: the plain values
 * the generator's parts share (site.h is the entry point). */
#ifndef HRR_REPORT_SITE_OPTIONS_H
#define HRR_REPORT_SITE_OPTIONS_H

#include <stddef.h>

#define SITE_GRID_CASES 250  /* cases per grid page */
#define SITE_GRID_SWEEPS 20  /* sweeps per grid page */
#define SITE_DEFAULT_LAST 60 /* sweeps of each label shown */
#define SITE_INDEX_PAGE "index.html"

struct site_options {
	const char *label; /* NULL: every label */
	int last;          /* sweeps of each label */
	const char *host;  /* only this host's sweeps (NULL: every host's) */
};

struct site_stats {
	size_t labels, cases, results, pages, written, kept, removed;
};

#endif

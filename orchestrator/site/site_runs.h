/* The run folders of one sweep folder, listed once for the site: a result's
 * "run folder" link is a lookup, not a path resolution per result (a
 * 10,000-case label with 60 sweeps has 600,000 of them). */
#ifndef HRR_REPORT_SITE_RUNS_H
#define HRR_REPORT_SITE_RUNS_H

#include <stdbool.h>
#include <stddef.h>

#include "common/strbuf.h"

struct site_runs {
	bool listed;        /* false: runs/ not trusted as a whole, resolve each link */
	char *href;         /* runs/ relative to the site's folder */
	char **v;           /* the run folders' names, sorted */
	size_t n;
};

/* List folder/runs (folder canonical, the caller's): trusted as a whole
 * when it is a directory of the caller's only the caller can write, so
 * what is in it is the caller's too. A missing runs/ is listed, empty. */
void site_runs_list(struct site_runs *r, const char *folder, const char *site_dir);
/* The href of run_dir (site_run_dir_ok) appended to out: 1 when it is a
 * listed folder, 0 when it is not there, -1 when the list cannot say (runs/
 * not listed, or run_dir not "runs/<name>"): resolve it on its own. */
int site_runs_href(const struct site_runs *r, const char *run_dir, struct strbuf *out);
void site_runs_release(struct site_runs *r);

#endif

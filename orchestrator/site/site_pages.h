/* The history site's pages (docs/sweep.md "The history site"), each
 * rendered from a plain model the driver (site.c) fills from the history
 * database. Pure: model in, HTML out, written with libxml2's HTML tree (text
 * and attributes escaped by the serializer, archive text sanitised first).
 * Every page carries one of the site's two stylesheets, allowed by its hash
 * in a strict Content-Security-Policy; there is no script: the grid's filters are
 * radio buttons and CSS, so the pages read with JavaScript off. */
#ifndef HRR_REPORT_SITE_PAGES_H
#define HRR_REPORT_SITE_PAGES_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"
#include "common/strbuf.h"
#include "orchestrator/site/site_svg.h"
#include "orchestrator/site/site_options.h"
#include "orchestrator/site/site_text.h"

#define SITE_INDEX SITE_INDEX_PAGE

struct site_perf_case;
struct site_perf_changes;
#define SITE_FILTER_MAX 16 /* fault classes / kernel families a grid page filters by */

/* The stylesheet of pages with filters (the grid), the one of the others
 * (the same without the filter rules), and the CSP every page carries,
 * allowing both by their hashes ("'sha256-...'"). */
const char *site_css(void);
const char *site_css_plain(void);
const char *site_csp(void);

/* grid-<label hash>-<sweep page>-<case page>.html */
void site_grid_page_name(const char *label, size_t sweep_page, size_t case_page,
			 struct strbuf *out);
void site_case_page_name(const char *label, const char *case_name, struct strbuf *out);

struct site_grid_cell {
	enum site_outcome outcome;
	enum site_status status;
	bool first;                     /* the row's first failure in the window */
	int attempts;
	const char *fault_class, *kernel_family;
};

struct site_grid_row {
	const char *case_name, *image, *case_page;
	const struct site_grid_cell *cells; /* one per sweep of the window */
};

struct site_sweep_col {
	const char *id;
	const char *report_href;        /* the sweep's report.html, NULL: gone */
	long long started;
};

struct site_grid {
	const char *label;
	const struct site_sweep_col *sweeps; /* the window, oldest first */
	size_t n_sweeps;
	size_t col0, n_cols;            /* this page's sweeps: [col0, col0 + n_cols) */
	const struct site_grid_row *rows;
	size_t n_rows;
	size_t sweep_page, n_sweep_pages, case_page, n_case_pages;
	size_t first_case, n_cases, n_cases_total; /* this page shows cases [first_case, +n_cases) */
};
int site_grid_html(const struct site_grid *g, struct strbuf *out, struct error *err)
	__attribute__((warn_unused_result));

struct site_timeline_entry {
	const char *sweep_id, *image, *image_id, *fault_class, *kernel, *gpus;
	const char *run_href;           /* relative link to the run folder, NULL: gone */
	long long started;
	enum site_outcome outcome;
	enum site_status status;
	bool first;
	int attempts;
	double duration_s;
};

struct site_timeline {
	const char *label, *case_name, *grid_page;
	const struct site_timeline_entry *v; /* by image, then oldest first */
	size_t n;
	/* What bisecting the first failure found (site_query_bisects), NULL
	 * when nothing was bisected. */
	const char *bisect;
	size_t flaky, results;          /* the flaky rate's terms, in the window */
	const struct site_perf_case *perf; /* its GPU time, NULL: no samples */
};
int site_timeline_html(const struct site_timeline *t, struct strbuf *out, struct error *err)
	__attribute__((warn_unused_result));

struct site_rate_point {
	const char *sweep_id, *label;
	long long started;
	unsigned pass, total;           /* final attempts that replayed */
};

struct site_rates {
	const char *kind;               /* "Image", "GPU" */
	const char *key;                /* the image ID, the GPU identity */
	const char *aka;                /* the image's tags, NULL */
	const struct site_rate_point *v; /* oldest first */
	size_t n;
};
int site_rates_html(const struct site_rates *r, struct strbuf *out, struct error *err)
	__attribute__((warn_unused_result));

struct site_index_label {
	const char *label, *grid_page, *last_sweep;
	long long last_started;
	unsigned counts[SS__COUNT];     /* the last sweep's cells per status */
	const struct site_point *pass_rate; /* per sweep of the window, 0..1 */
	size_t n_sweeps, n_rows;
};

struct site_index_link {
	const char *name, *page, *detail;
	double pass_rate;               /* over everything shown, 0..1 */
};

struct site_index {
	const struct site_index_label *labels;
	size_t n_labels;
	const struct site_index_link *images, *gpus;
	size_t n_images, n_gpus;
	/* Signatures first seen in a label's last sweep, no known issue
	 * marking them (detail: what they are); the signatures page's name
	 * when there are signatures, else NULL. */
	const struct site_index_link *fresh;
	size_t n_fresh;
	const char *signatures_page;
	const char *generated;          /* "2026-12-01 21:00 UTC" */
	const struct site_perf_changes *perf; /* the GPU-time changes, NULL: none */
};
int site_index_html(const struct site_index *x, struct strbuf *out, struct error *err)
	__attribute__((warn_unused_result));

#endif

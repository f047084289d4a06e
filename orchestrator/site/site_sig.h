/* The history site's failure signatures (docs/sweep.md "The history
 * site"): a page per signature seen in the labels' windows, the list of
 * them, and the index's "untriaged, first seen today". The models and
 * their pure renderers (site_sig_page.c); site_signatures.c fills them from
 * the history database. */
#ifndef HRR_REPORT_SITE_SIG_H
#define HRR_REPORT_SITE_SIG_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"
#include "common/strbuf.h"

#define SITE_SIG_LIST_MAX 200 /* cases, images, GPUs a signature page lists */

/* One case, image or GPU the signature was seen on, and in how many
 * results (sweep, case and image); page: a link to its site page or NULL. */
struct site_sig_item {
	const char *name, *detail, *page;
	size_t results;
};

/* A known issue a rule marked the signature's failures with. */
struct site_sig_known {
	const char *id, *link, *owner;
	long long last_started;
	size_t results;
};

struct site_sig {
	const char *id, *outcome, *fault_class, *family, *evidence, *stop_reason;
	bool partial;
	/* In the whole database: the sweeps it was first and last seen in. */
	const char *first_sweep, *last_sweep;
	long long first_started, last_started;
	/* In the windows shown. */
	size_t results, sweeps;
	const struct site_sig_item *cases, *images, *gpus; /* at most SITE_SIG_LIST_MAX each */
	size_t n_cases, n_images, n_gpus, cases_total, images_total, gpus_total;
	const struct site_sig_known *known; /* newest first */
	size_t n_known;
	const char *rule;                    /* the rule to paste, when untriaged */
};
int site_sig_html(const struct site_sig *s, struct strbuf *out, struct error *err)
	__attribute__((warn_unused_result));

/* A row of the signatures page. */
struct site_sig_row {
	const char *id, *page, *outcome, *fault_class, *family, *known_id, *known_owner;
	size_t cases, results;
	long long first_started, last_started;
	bool fresh;                          /* untriaged, first seen in a label's last sweep */
};
int site_sig_list_html(const struct site_sig_row *v, size_t n, struct strbuf *out,
		       struct error *err) __attribute__((warn_unused_result));

#define SITE_SIGNATURES_PAGE "signatures.html"

#endif

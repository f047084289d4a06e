/* Inside `history site`: the generator's state, shared by the label pass
 * (site.c) and the rate pages (site_rates.c). Not for other modules. */
#ifndef HRR_REPORT_SITE_GEN_H
#define HRR_REPORT_SITE_GEN_H

#include "common/strbuf.h"
#include "common/strvec.h"
#include "orchestrator/site/site_options.h"
#include "orchestrator/site/site_dir.h"
#include "orchestrator/site/site_pages.h"
#include "orchestrator/site/site_perf.h"
#include "orchestrator/site/site_query.h"

/* Pass rates of one image ID or GPU over the sweeps of every label. */
struct rate_acc {
	char *key;
	struct strvec tags;         /* an image's references */
	struct site_rate_point *v;
	size_t n, alloc;
	unsigned *pass, *total;     /* per sweep of the label being read */
};

struct rate_set {
	struct rate_acc *v;
	size_t n, alloc;
};

struct site_gen {
	struct history_db *db;
	struct site_dir dir;
	const struct site_options *o;
	struct site_stats *stats;
	struct error *err;
	struct strvec keep;         /* strings the index and rate pages need at the end */
	struct site_index_label *labels;
	size_t n_labels;
	struct rate_set images, gpus;
	struct strbuf page, name;
	struct site_bisects bisects; /* read once, looked up per case */
	/* The index's "untriaged, first seen today" and the signatures
	 * page, NULL without signatures (orchestrator/site/site_signatures.c). */
	struct site_index_link *fresh;
	size_t n_fresh;
	const char *signatures_page;
	struct site_perf_changes perf; /* the labels' last sweeps' GPU-time changes */
};

/* Count a final attempt for its image and its GPUs in sweep col. */
void site_rates_count(struct site_gen *g, size_t n_cols, size_t col, const char *image_id,
		      const char *image, const char *host, const char *gpus,
		      enum site_outcome o);
/* The label's counts become points of the label's sweeps. */
void site_rates_close_label(struct site_gen *g, const struct site_sweep_col *cols,
			    size_t n_cols, const char *label);
/* Every image and GPU page, then the index. */
int site_rates_write(struct site_gen *g);
void site_rates_release(struct rate_set *s);
/* Write the page rendered into g->page as name. */
static inline int site_gen_write(struct site_gen *g, const char *name)
{
	g->stats->pages++;
	return site_dir_write(&g->dir, name, g->page.buf ? g->page.buf : "", g->page.len, g->err);
}

#endif

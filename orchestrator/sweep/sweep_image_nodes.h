/* A cluster sweep's images per node (docs/sweep.md "Reports"): every
 * images file of its folder (SWEEP_IMAGES_FILE and each task's
 * images.<task>.json, sweep_image_fate.h), the tasks of one host combined
 * into that node's, and the nodes into the sweep's whole. */
#ifndef HRR_SWEEP_SWEEP_IMAGE_NODES_H
#define HRR_SWEEP_SWEEP_IMAGE_NODES_H

#include <stddef.h>

#include "common/error.h"
#include "orchestrator/sweep/sweep_image_fate.h"

struct sweep_image_nodes {
	struct sweep_image_fates *v; /* per node, in host order; v[k].host its name */
	size_t n;
	size_t tasks;                /* how many of the files read were cluster tasks' */
};

/* Pure: task, one more run on node's host, into node (sized alike): the
 * earliest pull; removed when a run removed it and no run pulled it again
 * after; the most the node's images took. */
void sweep_image_fates_add_task(struct sweep_image_fates *node,
				const struct sweep_image_fates *task);
/* Pure: one node into the sweep's whole: the earliest pull; kept when a
 * node kept it (the first one's reason), else removed, the latest; the
 * peak of the fullest node (each node holds the budget on its own). */
void sweep_image_fates_add_node(struct sweep_image_fates *all,
				const struct sweep_image_fates *node);
/* Pure: the files' fates (n, each of n_images) grouped by host and
 * combined, into out (released by sweep_image_nodes_release). */
void sweep_image_nodes_of(const struct sweep_image_fates *files, size_t n, size_t n_images,
			  struct sweep_image_nodes *out);
/* Every images file of folder, per node, into out; none read: out->n 0. */
int sweep_image_nodes_read(const char *folder, size_t n_images, struct sweep_image_nodes *out,
			   struct error *err) __attribute__((warn_unused_result));
void sweep_image_nodes_release(struct sweep_image_nodes *nodes);

#endif

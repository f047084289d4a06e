/* The nodes of a cluster sweep whose GPUs are suspect (sweep/suspect.h's
 * rules, per host, over the results files in the order they finished):
 * what `sweep --resume --slurm` excludes from its next submission. */
#ifndef HRR_SWEEP_SUSPECT_NODES_H
#define HRR_SWEEP_SUSPECT_NODES_H

#include "common/strvec.h"
#include "sweep/sweep_result.h"

/* hosts gets each host with a suspect GPU once; reasons one line each
 * ("node7 GPU 0: <why>"). */
void sweep_suspect_nodes(const struct sweep_results *rs, struct strvec *hosts,
			 struct strvec *reasons);

#endif

/* The suspect GPUs of a sweep from its results files, after the fact
 * (docs/sweep.md "Suspect GPUs"): orchestrator/sweep/suspect.h's rules over every
 * node's results in the order they finished. What a cluster sweep's merge
 * reports (its tasks' parents each saw only their own GPUs) and what
 * `sweep --resume --slurm` excludes from its next submission. A GPU is its
 * KFD unique_id when the result knows it, else its host and ordinal
 * (sweep_gpu_is), so a case that failed on node A and passed on node B
 * counts against A's GPU. */
#ifndef HRR_SWEEP_SUSPECT_NODES_H
#define HRR_SWEEP_SUSPECT_NODES_H

#include "common/intern.h"
#include "common/strvec.h"
#include "orchestrator/sweep/suspect.h"
#include "orchestrator/sweep/sweep_quarantine.h"
#include "orchestrator/sweep/case_result.h"

/* notes gets each suspect GPU once (host, ordinal, unique_id, reason;
 * never quarantined: no one took it out); returns how many. The first
 * GPU_MAX GPUs that failed are judged, and the GPUs that only
 * passed after them count as "another GPU" without an index. */
size_t sweep_suspects_of_results(const struct sweep_results *rs,
				 struct sweep_gpu_note notes[GPU_MAX]);

/* The same from results read in chunks: what finding suspects reads of
 * each result, a few dozen bytes instead of the whole result. Added in
 * file order; sweep_suspects_of_inputs sorts them. */
struct sweep_suspect_input {
	/* In the inputs' strings (shared, when given): a case's results name
	 * the same case, image, outcomes and GPUs. */
	const char *case_name, *image;
	const char *gpu_uids, *host;
	long long finished;
	int attempt;
	bool replayed;             /* done, with an outcome */
	struct suspect_verdict verdict;
	size_t n_gpus, seq;        /* seq: its place in the files */
	int *gpus;
};
struct sweep_suspect_inputs {
	struct sweep_suspect_input *v;
	size_t n, alloc;
	struct intern strings;
	struct intern *shared;     /* NULL, or the table strings are kept in instead */
};
void sweep_suspect_inputs_add(struct sweep_suspect_inputs *in, const struct sweep_results *rs);
size_t sweep_suspects_of_inputs(struct sweep_suspect_inputs *in,
				struct sweep_gpu_note notes[GPU_MAX]);
void sweep_suspect_inputs_release(struct sweep_suspect_inputs *in);

/* hosts gets each host with a suspect GPU once; reasons one line each
 * (the note's reason, which names its host and GPU). */
void sweep_suspect_nodes(const struct sweep_results *rs, struct strvec *hosts,
			 struct strvec *reasons);

#endif

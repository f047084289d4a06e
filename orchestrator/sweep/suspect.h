/* A bad GPU told from a bad kernel (docs/sweep.md "Suspect GPUs"), pure:
 * a GPU is suspect when two cases failed on it and passed on another GPU
 * in the same sweep (one such case is as likely a flaky case), or when it
 * saw a hang or a hardware exception (a queue abort) twice. The sweep's
 * parent notes every result live, and orchestrator/sweep/suspect_nodes.c every results
 * file after the fact (a cluster sweep's merge); the caller decides what a
 * suspect costs (--quarantine-gpus takes it out of the sweep), and a retry
 * avoids the GPUs its case failed on. A GPU is an index below
 * GPU_MAX: the host ordinal in one sweep process, whatever the
 * caller chose across nodes (it names them in names[]). */
#ifndef HRR_SWEEP_SUSPECT_H
#define HRR_SWEEP_SUSPECT_H

#include <stdbool.h>
#include <stddef.h>

#include "orchestrator/finding/finding.h"
#include "preflight/topology.h" /* GPU_MAX */

#define SUSPECT_REASON_MAX 200

struct gpu_suspects {
	unsigned long long *failed_on; /* per case: mask of the ordinals it failed on */
	unsigned long long *moved_off; /* per case: the ordinals it already counts against */
	size_t n_cases;
	unsigned moved[GPU_MAX]; /* cases that failed here and passed elsewhere */
	unsigned hard[GPU_MAX];  /* hangs and hardware exceptions */
	bool suspect[GPU_MAX];
	char reason[GPU_MAX][SUSPECT_REASON_MAX];
	/* How a reason names GPU g ("node7 GPU 0"); NULL: "GPU <g>". */
	const char *names[GPU_MAX];
};

void gpu_suspects_init(struct gpu_suspects *s, size_t n_cases);
void gpu_suspects_release(struct gpu_suspects *s);

/* What a replayed attempt ended with. */
struct suspect_verdict {
	enum finding_outcome outcome;
	enum finding_fault_class fault_class;
};

/* One attempt of case idx on gpus: its verdict (NULL: no replay). Returns
 * a mask of the ordinals that became suspect by it. */
unsigned long long gpu_suspects_note(struct gpu_suspects *s, size_t idx, const char *case_name,
				     const int *gpus, size_t n, const struct suspect_verdict *v);
/* The ordinals case idx failed on (a retry's GPUs to avoid). */
unsigned long long gpu_suspects_failed_on(const struct gpu_suspects *s, size_t idx);

#endif

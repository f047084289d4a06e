/* Quarantine bookkeeping (see sweep_quarantine.h). */
#include "orchestrator/sweep_quarantine.h"

#include <stdio.h>
#include <string.h>

#define RUN_ID_LEN 6

bool sweep_replay_survived(const char *run_dir, sweep_alive_fn alive, void *ctx)
{
	const char *dash = run_dir ? strrchr(run_dir, '-') : NULL;

	if (!dash || strlen(dash + 1) != RUN_ID_LEN)
		return false;
	return alive(ctx, dash + 1);
}

void sweep_quarantine_record(struct sweep_run_outcome *out, const int *gpus, size_t n)
{
	size_t cap = sizeof(out->quarantined) / sizeof(out->quarantined[0]);

	for (size_t g = 0; g < n && out->n_quarantined < cap; g++)
		out->quarantined[out->n_quarantined++] = gpus[g];
}

void sweep_gpu_note(struct sweep_run_outcome *out, int gpu, unsigned long long unique_id,
		    bool quarantined, const char *reason)
{
	struct report_gpu *n = NULL;

	for (size_t i = 0; i < out->n_gpu_notes; i++)
		if (out->gpu_notes[i].gpu == gpu)
			n = &out->gpu_notes[i];
	if (!n) {
		if (out->n_gpu_notes == sizeof(out->gpu_notes) / sizeof(out->gpu_notes[0]))
			return;
		n = &out->gpu_notes[out->n_gpu_notes++];
		memset(n, 0, sizeof(*n));
		n->gpu = gpu;
		n->unique_id = unique_id;
		snprintf(n->reason, sizeof(n->reason), "%s", reason);
	}
	n->quarantined |= quarantined;
}

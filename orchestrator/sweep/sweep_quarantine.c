/* Quarantine bookkeeping (see sweep_quarantine.h). */
#include "orchestrator/sweep/sweep_quarantine.h"

#include <stdio.h>
#include <string.h>


bool sweep_run_id_of(const char *run_dir, char out[SWEEP_RUN_ID_LEN + 1])
{
	const char *dash = run_dir ? strrchr(run_dir, '-') : NULL;

	if (!dash || strlen(dash + 1) != SWEEP_RUN_ID_LEN)
		return false;
	memcpy(out, dash + 1, SWEEP_RUN_ID_LEN + 1);
	return true;
}

bool sweep_replay_survived(const char *run_dir, sweep_alive_fn alive, void *ctx)
{
	char id[SWEEP_RUN_ID_LEN + 1];

	return sweep_run_id_of(run_dir, id) && alive(ctx, id);
}

void sweep_quarantine_record(int list[GPU_MAX], size_t *n, const int *gpus, size_t n_gpus)
{
	for (size_t g = 0; g < n_gpus && *n < GPU_MAX; g++)
		list[(*n)++] = gpus[g];
}

struct sweep_gpu_note *sweep_gpu_note(struct sweep_gpu_note notes[GPU_MAX], size_t *n_notes,
				      int gpu, unsigned long long unique_id, bool quarantined,
				      const char *reason)
{
	struct sweep_gpu_note *n = NULL;

	for (size_t i = 0; i < *n_notes; i++)
		if (notes[i].gpu == gpu)
			n = &notes[i];
	if (!n) {
		if (*n_notes == GPU_MAX)
			return NULL;
		n = &notes[(*n_notes)++];
		memset(n, 0, sizeof(*n));
		n->gpu = gpu;
		n->unique_id = unique_id;
		snprintf(n->reason, sizeof(n->reason), "%s", reason);
	}
	n->quarantined |= quarantined;
	return n;
}

bool sweep_gpu_is(const struct sweep_gpu_note *n, const char *host, int ordinal,
		  unsigned long long uid)
{
	if (!n->host[0])
		return n->gpu == ordinal;
	if (n->unique_id || uid)
		return n->unique_id == uid;
	return host && !strcmp(n->host, host) && n->gpu == ordinal;
}

/* Quarantine bookkeeping (see sweep_quarantine.h). */
#include "sweep/sweep_quarantine.h"

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

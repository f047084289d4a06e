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

void sweep_quarantine_record(int list[GPU_MAX], size_t *n, const int *gpus, size_t n_gpus)
{
	for (size_t g = 0; g < n_gpus && *n < GPU_MAX; g++)
		list[(*n)++] = gpus[g];
}

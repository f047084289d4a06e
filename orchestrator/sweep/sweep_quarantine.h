/* A GPU whose replay could not be stopped (docs/sweep.md "What a sweep does"): when a case's worker has ended but the replay's container
 * still runs, its GPUs leave the pool for the rest of the sweep and the
 * summary names them. Pure but for the alive callback (the engine). */
#ifndef HRR_SWEEP_SWEEP_QUARANTINE_H
#define HRR_SWEEP_SWEEP_QUARANTINE_H

#include <stdbool.h>
#include <stddef.h>

#include "preflight/topology.h"

/* A run folder's id: the suffix after its last '-', six characters. */
#define SWEEP_RUN_ID_LEN 6
/* Copy run_dir's run id into out; false when it has none (no run folder). */
bool sweep_run_id_of(const char *run_dir, char out[SWEEP_RUN_ID_LEN + 1]);

/* Whether a container labelled with run_id still runs. */
typedef bool (*sweep_alive_fn)(void *ctx, const char *run_id);

/* Whether the replay of a finished case survived its worker: the run id is
 * the run folder's suffix after its last '-' (six characters); no run
 * folder, no replay to survive. */
bool sweep_replay_survived(const char *run_dir, sweep_alive_fn alive, void *ctx);

/* Add gpus to the quarantined list (*n of its GPU_MAX slots used). */
void sweep_quarantine_record(int list[GPU_MAX], size_t *n, const int *gpus, size_t n_gpus);
/* A GPU the sweep took out (quarantined) or found suspect, and why. */
struct sweep_gpu_note {
	int gpu;                      /* host ordinal */
	unsigned long long unique_id; /* KFD unique_id, 0 unknown */
	bool quarantined;
	bool stuck;                   /* a replay on it could not be stopped */
	char reason[200];
	/* Its node, when the note comes from the results of several
	 * (orchestrator/sweep/suspect_nodes.h); "": the one host a local sweep ran on. */
	char host[64];
};

/* Whether the GPU at ordinal on host, of KFD unique_id uid (0 unknown), is
 * the one n names (docs/sweep.md "Suspect GPUs"): across nodes an ordinal
 * means nothing, so a known unique_id decides alone and an unknown one
 * falls back to host and ordinal; a note without a host is by ordinal. */
bool sweep_gpu_is(const struct sweep_gpu_note *n, const char *host, int ordinal,
		  unsigned long long uid);

/* Note why gpu is quarantined or suspect (the summary's `gpus`) in
 * notes (*n_notes used); a GPU noted again keeps its first reason and
 * becomes quarantined if it is. The note, NULL when notes are full. */
struct sweep_gpu_note *sweep_gpu_note(struct sweep_gpu_note notes[GPU_MAX], size_t *n_notes, int gpu,
		    unsigned long long unique_id, bool quarantined, const char *reason);

#endif

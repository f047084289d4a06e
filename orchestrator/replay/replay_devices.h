/* How a replay's GPUs reach its container (--devices, docs/cli.md): its
 * device nodes, or the CDI devices of the AMD GPU CDI spec that are
 * exactly those GPUs. Internal to the replay unit. */
#ifndef HRR_REPLAY_REPLAY_DEVICES_H
#define HRR_REPLAY_REPLAY_DEVICES_H

#include "orchestrator/replay/replay_records.h"

/* The spec dirs: $HRR_CDI_SPEC_DIRS, else the engine's. */
#define CDI_SPEC_DIRS_ENV "HRR_CDI_SPEC_DIRS"

/* Sets u->devices_how, u->cdi_devices, u->kfd_from_cdi, u->devices_note
 * from u->host->devices and the chosen GPUs (u->devices already planned).
 * --devices cdi that cannot be honoured: ERR_USAGE (CDI off in the
 * engine, a spec that adds more than the chosen GPUs' nodes) or
 * ERR_NOT_FOUND (no spec, a GPU it does not cover), naming the GPU and the
 * spec file. auto falls back to the nodes, the note saying why. */
int unit_devices_choose(struct unit_run *u, struct error *err)
	__attribute__((warn_unused_result));

#endif

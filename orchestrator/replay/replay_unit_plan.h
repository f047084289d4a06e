/* The plan of a replay like the unit's, shared by the unit
 * (replay_unit.c) and its debugger steps (replay_diagnose.c), which depend
 * on it and not on each other's insides: replay_unit.c -> replay_diagnose.c
 * -> replay_unit_plan.c. Internal to the replay unit. */
#ifndef HRR_REPLAY_REPLAY_UNIT_PLAN_H
#define HRR_REPLAY_REPLAY_UNIT_PLAN_H

#include "docker/engine.h"
#include "orchestrator/replay/replay.h"
#include "orchestrator/replay/replay_plan.h"
#include "orchestrator/replay/replay_records.h"

/* The knobs and the plan input of a replay like the unit's. */
void unit_plan_knobs(const struct unit_run *u, struct replay_plan_knobs *k);
/* Each --replace-kernel code object given as a file (not a sweep
 * folder's copy) copied into <run folder>/kernels from the descriptor it
 * was checked through, and checked again: the replay mounts the copy,
 * never the path a user may have swapped since. ERR_DATA when it changed. */
int unit_kernels_keep(struct unit_run *u, struct error *err) __attribute__((warn_unused_result));
void unit_plan_input(const struct unit_run *u, const struct replay_plan_knobs *k,
		     struct replay_plan_input *in);
/* The spec of a one-off container asking the replay's hrr-playback flag
 * (`--info`, `--help`; its image, labels, hardening, no devices), or the
 * base of another one-off (llvm-objdump); initialised here. */
void unit_query_spec(const struct unit_run *u, const char *flag, struct container_spec *spec);

/* A one-off container's bound (`hrr-playback --info`, llvm-objdump on a
 * saved code object): such a step reads no more than the replay did, so it
 * gets the replay's --timeout, or UNIT_ONEOFF_DEFAULT_S when that is 0
 * (none: a replay may run for ever, a side step may not), plus the stop
 * grace. Seconds from now. */
#define UNIT_ONEOFF_DEFAULT_S 1800
long unit_oneoff_seconds(const struct replay_limits *l);
/* Create and start spec's container, wait for it to stop and hand its
 * output to cb, then remove it (the removal even when interrupted or past
 * the deadline). Bounded by unit_oneoff_seconds and the user's interrupts:
 * ERR_TIMEOUT, ERR_INTERRUPTED (u->iw then holds the signal). *status is
 * the container's exit status. */
__attribute__((warn_unused_result))
int unit_oneoff_run(const struct unit_run *u, const struct container_spec *spec,
		    engine_frame_cb cb, void *ud, long *status, struct error *err);

#endif

/* The plan of a replay like the unit's, shared by the unit
 * (replay_unit.c) and its debugger steps (replay_diagnose.c), which depend
 * on it and not on each other's insides: replay_unit.c -> replay_diagnose.c
 * -> replay_unit_plan.c. Internal to the replay unit. */
#ifndef HRR_ORCHESTRATOR_REPLAY_UNIT_PLAN_H
#define HRR_ORCHESTRATOR_REPLAY_UNIT_PLAN_H

#include "docker/engine.h"
#include "orchestrator/replay.h"
#include "orchestrator/replay_plan.h"
#include "orchestrator/replay_records.h"

/* The knobs and the plan input of a replay like the unit's. */
void unit_plan_knobs(const struct replay_desc *d, struct replay_plan_knobs *k);
void unit_plan_input(const struct unit_run *u, const struct replay_plan_knobs *k,
		     struct replay_plan_input *in);
/* The spec of a one-off container like the replay's `--info` one (its
 * image, labels, hardening; no devices); initialised here. */
void unit_info_spec(const struct unit_run *u, struct container_spec *spec);

#endif

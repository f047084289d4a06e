/* The plan's codec: plan.json's "cases" array, the cases file's lines and
 * the private file's env values <-> struct sweep_plan (docs/sweep.md
 * "The sweep folder"). */
#ifndef HRR_SWEEP_PLAN_JSON_H
#define HRR_SWEEP_PLAN_JSON_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "common/error.h"
#include "orchestrator/sweep/sweep_plan.h"

/* plan.json's "cases" array and back (fixed order; resume and shards).
 * with_values false: each case's env names, its values SWEEP_NOT_RECORDED
 * (they go to the sweep's private file). */
cJSON *sweep_plan_cases_json(const struct sweep_plan *p, bool with_values);
int sweep_plan_from_json(struct sweep_plan *p, const cJSON *cases, struct error *err)
	__attribute__((warn_unused_result));
/* One case of that array (a line of the plan's cases file, SWEEP_CASES_FILE)
 * and back: a new case at the end of p. where and idx name it in
 * messages ("plan.json", case idx; idx < 0: where says it all, as
 * "FILE, line N"); a wrong type or missing field is ERR_DATA. */
cJSON *sweep_case_json(const struct sweep_case *c, bool with_values);
int sweep_case_from_json(struct sweep_plan *p, const cJSON *o, const char *where, int idx,
			 struct error *err) __attribute__((warn_unused_result));
/* The cases' env values, for the sweep's private file: [{"case": plan
 * index, "env": {NAME: value}}] for the cases that have any; and back
 * over a plan read from the public files (an index outside the plan or
 * a malformed entry: ERR_DATA naming path). */
cJSON *sweep_plan_env_json(const struct sweep_plan *p);
int sweep_plan_env_from_json(struct sweep_plan *p, const cJSON *arr, const char *path,
			     struct error *err) __attribute__((warn_unused_result));

#endif

/* The GPU-time samples' codec (docs/perf.md "Samples"): struct
 * perf_samples <-> the "perf" object of a results line. */
#ifndef HRR_PERF_SAMPLES_JSON_H
#define HRR_PERF_SAMPLES_JSON_H

#include <cjson/cJSON.h>

#include "orchestrator/perf/perf_samples.h"

/* {"samples": [{"kernel_ms", "graph_ms", "total_ms", "wall_ms"}...],
 * "warmup": K, "note": "..." | null}; a time not printed is null. */
cJSON *perf_samples_to_json(const struct perf_samples *s);
/* The same back; a malformed object or sample is skipped, never a crash:
 * the results files are read back from disk. */
void perf_samples_from_json(struct perf_samples *s, const cJSON *o);

#endif

/* results.jsonl lines with --perf samples (docs/perf.md "Samples"), for
 * the tests that import them into a history database. */
#ifndef HRR_TESTS_SUPPORT_PERF_LINES_H
#define HRR_TESTS_SUPPORT_PERF_LINES_H

#include "orchestrator/sweep/case_result.h"

/* A passing attempt of name at image (image ID image_id, archive digest
 * "d", on gfx942 device 29857) with five samples around base ms (base,
 * +-0.1, +-0.2; none when base is 0) and warmup, parsed into rs. */
void perf_line(struct sweep_results *rs, const char *name, const char *image,
	       const char *image_id, int attempt, int warmup, double base);

#endif

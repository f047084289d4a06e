/* The bisection's slice of the option table (its rows and their apply
 * code, orchestrator/cli/bisect_options.c; docs/bisect.md): the ends, the candidates,
 * the cases. What they set lives in struct sweep_options
 * (orchestrator/cli/sweep_options.h); a bisection also takes the sweep's --label, --db,
 * --gpus, --jobs and most run options. */
#ifndef HRR_CLI_BISECT_OPTIONS_H
#define HRR_CLI_BISECT_OPTIONS_H

#include "common/error.h"
#include "orchestrator/cli/sweep_options.h"

/* --metric gpu-time without --perf: samples per probe. */
#define BISECT_PERF_RUNS_DEFAULT 5

/* The checks of `bisect`: both ends, and the cases from one place. */
int bisect_options_validate(const struct sweep_options *s, struct error *err)
	__attribute__((warn_unused_result));

#endif

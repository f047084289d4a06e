/* The run pipeline (`run` and `preflight` commands): archive, engine,
 * image, GPUs, preflight, replay, finding, run folder. Returns the exit
 * code of cli.md. */
#ifndef HRR_ORCHESTRATOR_RUN_H
#define HRR_ORCHESTRATOR_RUN_H

#include "orchestrator/options.h"

/* Exit codes (cli.md). */
enum {
	EXIT_PASS = 0,
	EXIT_NOT_PASS = 1,
	EXIT_CONFIRM = 2,
	EXIT_DECLINED = 3,
	EXIT_BLOCKED = 4,
	EXIT_NO_VERDICT = 5,
	EXIT_USAGE = 64,
};

int run_command(struct options *o);
int preflight_command(struct options *o);
int gc_command(struct options *o);

#endif

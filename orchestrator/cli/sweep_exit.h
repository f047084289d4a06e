/* How a sweep ended (orchestrator/jobs/sweep_finish.h) as the command's
 * exit code (docs/sweep.md "Exit codes"). */
#ifndef HRR_CLI_SWEEP_EXIT_H
#define HRR_CLI_SWEEP_EXIT_H

#include "orchestrator/jobs/sweep_finish.h"

int sweep_exit_of(enum sweep_end end);

#endif

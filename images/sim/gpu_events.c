/* The GPU's own word on a failure, for the simulator's scenarios: ROCr's
 * hardware-exception line (scenario=hw-exception), which ROCr prints from
 * its KFD HW-exception event handler (runtime.cpp) as
 *
 *     HW Exception by GPU node-%u (Agent handle: %p) reason :%s
 *
 * with reason "GPU Hang" or an ECC text (a space before the colon, none
 * after), before the process aborts. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include "sim.h"

_Noreturn void sim_hw_exception(const char *node, const char *reason)
{
	fprintf(stderr, "HW Exception by GPU node-%s (Agent handle: 0x12e78350) reason :%s\n",
		node ? node : "1", reason ? reason : "GPU Hang");
	fflush(stdout);
	fflush(stderr);
	signal(SIGABRT, SIG_DFL);
	abort();
}

/* The GPU's own word on a failure, for the simulator's scenarios: ROCr's
 * hardware-exception line (scenario=hw-exception), which ROCr prints from
 * its KFD HW-exception event handler (runtime.cpp) as
 *
 *     HW Exception by GPU node-%u (Agent handle: %p) reason :%s
 *
 * with reason "GPU Hang" or an ECC text (a space before the colon, none
 * after), before the process aborts. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "sim.h"
#include "../sim-tools/sim_debug.h"

/* hang_s > 0: the GPU is stuck that long before the driver's hang
 * detection fires, silent, as a hung kernel is. The debug agent is not
 * told of a GPU reset (no wave stops, no queue error the agent reports:
 * the reset takes the waves with it), so only a SIGQUIT in that window
 * makes it print them: the waves, running. */
static void stuck(const char *kernel, double hang_s)
{
	double end = sim_now() + hang_s;

	sim_debug_hang(kernel);
	fflush(stdout);
	fflush(stderr);
	for (double now = sim_now(); now < end; now = sim_now()) {
		struct timespec ts;
		double left = end - now;

		ts.tv_sec = (time_t)left;
		ts.tv_nsec = (long)((left - (double)ts.tv_sec) * 1e9);
		if (nanosleep(&ts, NULL) < 0 && errno == EINTR)
			sim_debug_quit_dump(stderr);
	}
}

_Noreturn void sim_hw_exception(const char *node, const char *reason, const char *kernel,
				double hang_s)
{
	if (hang_s > 0)
		stuck(kernel, hang_s);
	fprintf(stderr, "HW Exception by GPU node-%s (Agent handle: 0x12e78350) reason :%s\n",
		node ? node : "1", reason ? reason : "GPU Hang");
	fflush(stdout);
	fflush(stderr);
	signal(SIGABRT, SIG_DFL);
	abort();
}

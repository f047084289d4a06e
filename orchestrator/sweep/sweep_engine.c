#include "orchestrator/sweep/sweep_engine.h"

#include <time.h>

#include "common/clock.h"

bool sweep_engine_wait(struct engine *e, const struct job_events *ev, int max_s)
{
	struct error err;
	double start = monotonic_now();

	if (engine_ping(e, &err) == 0)
		return true;
	events_warning(ev, "%s: waiting for the engine (at most %d s)", err.msg, max_s);
	while (monotonic_now() - start < max_s) {
		nanosleep(&(struct timespec){ 1, 0 }, NULL);
		if (engine_ping(e, &err) == 0) {
			events_info(ev, 0, "the engine answers again after %.0f s",
				    monotonic_now() - start);
			return true;
		}
	}
	return false;
}

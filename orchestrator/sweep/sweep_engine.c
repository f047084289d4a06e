#include "orchestrator/sweep/sweep_engine.h"

#include <time.h>

#include "common/clock.h"
#include "common/say.h"

bool sweep_engine_wait(struct engine *e, int max_s)
{
	struct error err;
	double start = monotonic_now();

	if (engine_ping(e, &err) == 0)
		return true;
	say_warning("%s: waiting for the engine (at most %d s)", err.msg, max_s);
	while (monotonic_now() - start < max_s) {
		nanosleep(&(struct timespec){ 1, 0 }, NULL);
		if (engine_ping(e, &err) == 0) {
			say_info(0, "the engine answers again after %.0f s", monotonic_now() - start);
			return true;
		}
	}
	return false;
}

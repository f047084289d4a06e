#include "orchestrator/replay/watchdog.h"

#include <math.h>
#include <time.h>

void watchdog_start(struct watchdog *w, double timeout_s, double progress_timeout_s,
		    double now)
{
	w->timeout_s = timeout_s;
	w->progress_timeout_s = progress_timeout_s;
	w->started = now;
	w->last_output = now;
}

void watchdog_saw_output(struct watchdog *w, double now)
{
	w->last_output = now;
}

enum watchdog_action watchdog_check(const struct watchdog *w, double now)
{
	if (w->timeout_s > 0 && now - w->started >= w->timeout_s)
		return WATCHDOG_TIMEOUT;
	if (w->progress_timeout_s > 0 && now - w->last_output >= w->progress_timeout_s)
		return WATCHDOG_PROGRESS_TIMEOUT;
	return WATCHDOG_NONE;
}

int watchdog_next_ms(const struct watchdog *w, double now, int cap_ms)
{
	double next = cap_ms / 1000.0;

	if (w->timeout_s > 0 && w->started + w->timeout_s - now < next)
		next = w->started + w->timeout_s - now;
	if (w->progress_timeout_s > 0 && w->last_output + w->progress_timeout_s - now < next)
		next = w->last_output + w->progress_timeout_s - now;
	if (next <= 0)
		return 0;
	return (int)ceil(next * 1000.0);
}

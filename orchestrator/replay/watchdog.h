/* Deadlines of a replay: wall clock from the container's start, and no
 * output for too long. Pure: time comes in as seconds on a monotonic clock. */
#ifndef HRR_REPLAY_WATCHDOG_H
#define HRR_REPLAY_WATCHDOG_H

enum watchdog_action {
	WATCHDOG_NONE = 0,
	WATCHDOG_TIMEOUT,          /* --timeout */
	WATCHDOG_PROGRESS_TIMEOUT, /* --progress-timeout */
};

struct watchdog {
	double timeout_s;          /* 0 = none */
	double progress_timeout_s; /* 0 = off */
	double started;
	double last_output;
};

void watchdog_start(struct watchdog *w, double timeout_s, double progress_timeout_s,
		    double now);
void watchdog_saw_output(struct watchdog *w, double now);
enum watchdog_action watchdog_check(const struct watchdog *w, double now);
/* Milliseconds until the next deadline, capped at cap_ms (>= 0). */
int watchdog_next_ms(const struct watchdog *w, double now, int cap_ms);

#endif

/* SIGINT/SIGTERM/SIGHUP to the orchestrator: recorded, and announced on a
 * self-pipe so the event loop wakes at once (curl_multi_poll extra fd). */
#ifndef HRR_ORCHESTRATOR_SIGNALS_H
#define HRR_ORCHESTRATOR_SIGNALS_H

/* Install the handlers; returns the pipe's read end (or -1 on failure). */
int signals_install(void);
/* The first signal caught so far, 0 when none. */
int signals_caught(void);
/* How many have been caught: a second Ctrl-C means "now". */
int signals_count(void);
/* Empty the pipe after a wake-up. */
void signals_drain(void);
/* "SIGINT" for 2, ... */
const char *signal_name(int sig);

#endif

/* SIGINT/SIGTERM/SIGHUP to this process: recorded, and announced on a
 * self-pipe, one byte per signal (the byte is the signal number), so an
 * event loop wakes at once (curl_multi_poll's extra fd, a sweep's poll).
 * The one signal module: `run`, a sweep's parent and each of its workers. */
#ifndef HRR_COMMON_SIGNALS_H
#define HRR_COMMON_SIGNALS_H

/* Install the handlers; returns the pipe's read end (or -1 on failure). */
int signals_install(void);
/* The first signal caught so far, 0 when none. */
int signals_caught(void);
/* The default actions back, the pipe closed: the end of a sweep. */
void signals_release(void);
/* In a child after fork(): the parent's pipe is not its own (the child
 * closes every inherited descriptor); the next signals_install makes a
 * new one. Signals until then are recorded and announced nowhere. */
void signals_forget(void);
/* "SIGINT" for 2, ... */
const char *signal_name(int sig);

#endif

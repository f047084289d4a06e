/* The orchestrator's own lines on stderr, one prefix for all of them, so
 * they stand apart from the replay log that streams there too. The command
 * layer (orchestrator/cli/) prints them, the library hands its lines to a
 * sink (common/events.h); only xdie, the end of a process that cannot go
 * on, prints from anywhere. */
#ifndef HRR_COMMON_SAY_H
#define HRR_COMMON_SAY_H

#define SAY_PREFIX "hrr-docker-replay: "

/* An error: always printed. */
void say_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A warning: always printed, prefixed "warning: ". */
void say_warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Progress and status: printed unless verbosity < 0 (-q). */
void say_info(int verbosity, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* "fatal: " and the message, then abort(): out of memory, a library that
 * cannot start. Prints from any room, since nothing could be done better. */
_Noreturn void xdie(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif

/* Time as the tool records it: a monotonic clock for durations and
 * deadlines, UTC wall-clock text for the records people read. */
#ifndef HRR_COMMON_CLOCK_H
#define HRR_COMMON_CLOCK_H

#include <stddef.h>

/* CLOCK_MONOTONIC in seconds. */
double monotonic_now(void);
/* "YYYYmmddTHHMMSSZ" for now, UTC (run folder names). */
void utc_stamp(char *out, size_t len);
/* ISO 8601 UTC with milliseconds, for run.json. */
void utc_iso(char *out, size_t len);

/* Milliseconds from now to deadline (seconds on the monotonic clock) for a
 * poll timeout: 0 when past, at most cap_ms (> 0). Computed in double and
 * capped before the conversion: a deadline a month away (--stop-grace
 * 2592000) is more milliseconds than an int holds. */
int clock_ms_until(double deadline, double now, int cap_ms);

#endif

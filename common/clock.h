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

#endif

#include "common/clock.h"

#include <stdio.h>
#include <sys/time.h>
#include <time.h>

double monotonic_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void utc_stamp(char *out, size_t len)
{
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(out, len, "%Y%m%dT%H%M%SZ", &tm);
}

void utc_iso(char *out, size_t len)
{
	struct timeval tv;
	struct tm tm;
	char base[32];

	gettimeofday(&tv, NULL);
	gmtime_r(&tv.tv_sec, &tm);
	strftime(base, sizeof(base), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(out, len, "%s.%03ldZ", base, (long)(tv.tv_usec / 1000));
}

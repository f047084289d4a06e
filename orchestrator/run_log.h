/* replay.log: everything the replay printed, in arrival order, plus the
 * orchestrator's stop markers; echoed live to stderr unless quiet, and fed
 * to the classifier as it streams so no second pass over the log is needed. */
#ifndef HRR_ORCHESTRATOR_RUN_LOG_H
#define HRR_ORCHESTRATOR_RUN_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

struct classifier;

#define RUN_LOG_MARKER_PREFIX "[hrr-docker-replay] "

struct run_log {
	int fd;
	int echo_fd;              /* -1: no live echo */
	struct classifier *classifier; /* may be NULL */
	bool at_line_start;
	bool write_failed;        /* disk full: keep streaming, report once */
	uint64_t bytes;
	struct error write_error;
};

int run_log_open(struct run_log *rl, const char *path, int echo_fd,
		 struct classifier *classifier, struct error *err);
/* Append replay output. Never fails the replay: a write error is kept in
 * rl->write_error and reported by run_log_close(). */
void run_log_write(struct run_log *rl, const char *data, size_t len);
/* Append "[hrr-docker-replay] <text>\n" on a line of its own. */
void run_log_marker(struct run_log *rl, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int run_log_close(struct run_log *rl, struct error *err);

#endif

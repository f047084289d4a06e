/* replay.log: everything the replay printed, in arrival order, plus the
 * orchestrator's stop markers; echoed live to stderr unless quiet, and fed
 * to the classifier as it streams so no second pass over the log is needed.
 *
 * stdout and stderr arrive as independent chunks: a chunk of one may end
 * mid-line while the other speaks. Each stream's partial line is held back
 * (bounded) until its newline, so lines are never spliced together. Writes
 * are batched: run_log_flush() after each turn of the event loop. */
#ifndef HRR_REPLAY_RUN_LOG_H
#define HRR_REPLAY_RUN_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "common/events.h"
#include "common/strbuf.h"

struct classifier;

/* A partial line longer than this is written as it is. */
#define RUN_LOG_PARTIAL_MAX (64u << 10)
#define RUN_LOG_BATCH (64u << 10)

struct run_log {
	int fd;
	const struct job_events *echo; /* the live echo (its log callback); NULL: none */
	struct classifier *classifier; /* may be NULL */
	struct strbuf pending;    /* whole lines not yet written */
	struct strbuf partial[3]; /* per stream (stdin unused): the unfinished line */
	bool write_failed;        /* disk full: keep streaming, report once */
	uint64_t bytes;           /* every byte of the record, kept or not */
	/* --log-limit: the file keeps `head_max` bytes, then the last bytes
	 * (at most tail_max, held here) after a marker saying how much of the
	 * middle was dropped. 0: no bound. */
	uint64_t limit, head_max, tail_max, written;
	char last_written;        /* the file's last byte so far */
	struct strbuf tail;       /* the newest bytes past the head, a window */
	uint64_t dropped;         /* bytes between the head and the tail */
	struct error write_error;
};

__attribute__((warn_unused_result))
int run_log_open(struct run_log *rl, const char *path, const struct job_events *echo,
		 struct classifier *classifier, struct error *err);
/* Bound the file to about limit bytes (0: none), before any output.
 * The classifier and the live echo still see every byte. */
void run_log_set_limit(struct run_log *rl, long long limit);
/* Append output of one stream (1 stdout, 2 stderr). Never fails the
 * replay: a write error is kept and reported by run_log_close(). */
void run_log_write(struct run_log *rl, int stream, const char *data, size_t len);
/* Write what is pending (whole lines) to the file and the echo. */
void run_log_flush(struct run_log *rl);
/* Append "[hrr-docker-replay] <text>\n" as the last line: unfinished lines
 * are ended first, so the marker stands on a line of its own. */
void run_log_marker(struct run_log *rl, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Flush everything, unfinished lines included, and close. */
int run_log_close(struct run_log *rl, struct error *err);

#endif

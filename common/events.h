/* What the library has to say while it works, handed to the outermost
 * caller instead of printed (docs/design.md "Only the outermost caller
 * prints"): replay/, sweep/, cluster/ and docker/ call these and never
 * touch stderr, stdout or stdin; the command layer's sink
 * (orchestrator/cli/term_events.h) decides what reaches the terminal.
 *
 * A sink is handed down in the structs that describe the work (a replay's
 * desc, a host's config, a sweep's input, a submission); a NULL sink or a
 * NULL callback says nothing, and a confirmation it cannot ask is not
 * given. Texts are one line without the newline; the sink adds prefixes. */
#ifndef HRR_COMMON_EVENTS_H
#define HRR_COMMON_EVENTS_H

#include <stdbool.h>
#include <stddef.h>

/* A sweep's progress, from orchestrator/sweep/sweep_progress.h's model. */
enum events_progress {
	EVENTS_PROGRESS_CASE = 0,  /* a finished case's line */
	EVENTS_PROGRESS_STATUS,    /* the status line, at most twice a second */
	EVENTS_PROGRESS_DONE,      /* no more progress: a status line drawn is erased */
};

enum events_pull_phase {
	EVENTS_PULL_START = 0,     /* image names the pull */
	EVENTS_PULL_STEP,          /* one engine progress event */
	EVENTS_PULL_END,           /* the pull ended, either way */
};

struct events_pull {
	enum events_pull_phase phase;
	const char *image;         /* START */
	const char *id, *status;   /* STEP: the layer ("" none) and its state */
	long long current, total;  /* STEP: bytes; current < 0 when the engine sent none */
};

/* The answer to a yes/no question. */
enum events_answer {
	EVENTS_ANSWER_NONE = 0,    /* nobody to ask (no sink, no terminal) */
	EVENTS_ANSWER_NO,
	EVENTS_ANSWER_YES,
};

struct job_events {
	void *ctx;
	/* Status: verbosity is the caller's (-1 quiet, 0 normal, 1+ verbose). */
	void (*info)(void *ctx, int verbosity, const char *text);
	void (*warning)(void *ctx, const char *text);
	void (*error)(void *ctx, const char *text);
	/* A case waits for a GPU another job holds: why, in a word or two. */
	void (*gpu_wait)(void *ctx, const char *why);
	/* A stage of a job said as it is (a cluster task's GPUs, a wait for
	 * the merge job): no prefix. */
	void (*stage)(void *ctx, const char *text);
	/* The command's own answer (what was submitted), for stdout. */
	void (*output)(void *ctx, const char *text);
	/* A yes/no question the user must answer before the job goes on. */
	enum events_answer (*confirm)(void *ctx, const char *question);
	/* The replay's own log as it streams, whole lines; < 0 stops it. */
	int (*log)(void *ctx, const char *data, size_t len);
	void (*progress)(void *ctx, enum events_progress kind, const char *text);
	void (*pull)(void *ctx, int verbosity, const struct events_pull *p);
};

void events_info(const struct job_events *ev, int verbosity, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void events_warning(const struct job_events *ev, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void events_error(const struct job_events *ev, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void events_gpu_wait(const struct job_events *ev, const char *why);
void events_stage(const struct job_events *ev, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void events_output(const struct job_events *ev, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
enum events_answer events_confirm(const struct job_events *ev, const char *question);
/* Whether the sink takes the replay's log (else nothing is echoed). */
bool events_has_log(const struct job_events *ev);
int events_log(const struct job_events *ev, const char *data, size_t len);
void events_progress(const struct job_events *ev, enum events_progress kind, const char *text);
void events_pull(const struct job_events *ev, int verbosity, const struct events_pull *p);

#endif

#include "orchestrator/cli/term_events.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/fsutil.h"
#include "common/say.h"

/* What the terminal shows now: a line redrawn in place is erased before
 * the next whole line, and a pull's progress is thinned out. */
struct term {
	bool status_drawn;        /* a sweep's status line is on screen */
	bool pull_tty;            /* this pull draws a bar (stderr a terminal) */
	char last_status[128];    /* the pull's last state printed, per layer */
	char last_id[128];
	double last_draw;
};

static void term_info(void *ctx, int verbosity, const char *text)
{
	(void)ctx;
	say_info(verbosity, "%s", text);
}

static void term_warning(void *ctx, const char *text)
{
	(void)ctx;
	say_warning("%s", text);
}

static void term_error(void *ctx, const char *text)
{
	(void)ctx;
	say_error("%s", text);
}

static void term_gpu_wait(void *ctx, const char *why)
{
	(void)ctx;
	say_info(0, "waiting: %s", why);
}

static void term_stage(void *ctx, const char *text)
{
	(void)ctx;
	fprintf(stderr, "%s\n", text);
}

static void term_output(void *ctx, const char *text)
{
	(void)ctx;
	printf("%s\n", text);
	fflush(stdout);
}

/* On a terminal only: no one can answer a pipe. */
static enum events_answer term_confirm(void *ctx, const char *question)
{
	char line[64];

	(void)ctx;
	if (!isatty(0))
		return EVENTS_ANSWER_NONE;
	fprintf(stderr, "%s [y/N] ", question);
	fflush(stderr);
	if (!fgets(line, sizeof(line), stdin))
		return EVENTS_ANSWER_NO;
	line[strcspn(line, "\r\n")] = '\0';
	return !strcasecmp(line, "y") || !strcasecmp(line, "yes") ? EVENTS_ANSWER_YES :
								    EVENTS_ANSWER_NO;
}

/* The replay's log, as it streams. */
static int term_log(void *ctx, const char *data, size_t len)
{
	(void)ctx;
	return fs_write_all(STDERR_FILENO, data, len);
}

static void term_progress(void *ctx, enum events_progress kind, const char *text)
{
	struct term *t = ctx;

	if (kind == EVENTS_PROGRESS_STATUS) {
		/* Redrawn in place: a terminal only. */
		if (!isatty(STDERR_FILENO))
			return;
		fprintf(stderr, "\r\033[K%s", text);
		fflush(stderr);
		t->status_drawn = true;
		return;
	}
	if (t->status_drawn)
		fputs("\r\033[K", stderr);
	t->status_drawn = false;
	if (kind == EVENTS_PROGRESS_CASE)
		fprintf(stderr, "%s\n", text);
}

/* On a terminal, a bar redrawn at most 10 times a second (the engine
 * sends far more); in logs, one line per layer state change. */
static void pull_step(struct term *t, const struct events_pull *p)
{
	if (t->pull_tty) {
		double now = monotonic_now();

		if (now - t->last_draw < 0.1 && p->current >= 0)
			return;
		t->last_draw = now;
		if (p->current >= 0 && p->total > 0)
			fprintf(stderr, "\r\033[Kpull: %.12s %s %.1f/%.1f MB", p->id, p->status,
				p->current / 1e6, p->total / 1e6);
		else
			fprintf(stderr, "\r\033[Kpull: %.12s %s", p->id, p->status);
		return;
	}
	if (!strcmp(p->status, t->last_status) && !strcmp(p->id, t->last_id))
		return;
	snprintf(t->last_status, sizeof(t->last_status), "%s", p->status);
	snprintf(t->last_id, sizeof(t->last_id), "%s", p->id);
	if (*p->id)
		fprintf(stderr, "pull: %s: %s\n", p->id, p->status);
	else
		fprintf(stderr, "pull: %s\n", p->status);
}

static void term_pull(void *ctx, int verbosity, const struct events_pull *p)
{
	struct term *t = ctx;

	if (verbosity < 0)
		return;
	switch (p->phase) {
	case EVENTS_PULL_START:
		memset(t->last_status, 0, sizeof(t->last_status));
		memset(t->last_id, 0, sizeof(t->last_id));
		t->last_draw = 0;
		t->pull_tty = isatty(STDERR_FILENO);
		fprintf(stderr, "pulling %s\n", p->image);
		break;
	case EVENTS_PULL_STEP:
		pull_step(t, p);
		break;
	case EVENTS_PULL_END:
		if (t->pull_tty)
			fputs("\r\033[K", stderr);
		break;
	}
}

const struct job_events *term_events(void)
{
	static struct term t;
	static const struct job_events ev = {
		.ctx = &t, .info = term_info, .warning = term_warning, .error = term_error,
		.gpu_wait = term_gpu_wait, .stage = term_stage, .output = term_output,
		.confirm = term_confirm, .log = term_log, .progress = term_progress,
		.pull = term_pull,
	};

	return &ev;
}

#include "common/events.h"

#include <stdarg.h>

#include "common/cleanup.h"
#include "common/strbuf.h"

/* Each call formats its text only when the sink listens. */

void events_info(const struct job_events *ev, int verbosity, const char *fmt, ...)
{
	cleanup_strbuf struct strbuf text = STRBUF_INIT;
	va_list ap;

	if (!ev || !ev->info)
		return;
	va_start(ap, fmt);
	strbuf_vaddf(&text, fmt, ap);
	va_end(ap);
	ev->info(ev->ctx, verbosity, text.buf);
}

/* A one-line text to cb, formatted. */
static void text_to(const struct job_events *ev, void (*cb)(void *, const char *),
		   const char *fmt, va_list ap)
{
	cleanup_strbuf struct strbuf text = STRBUF_INIT;

	strbuf_vaddf(&text, fmt, ap);
	cb(ev->ctx, text.buf);
}

#define EVENTS_TEXT(cb)                          \
	va_list ap;                              \
	if (!ev || !ev->cb)                      \
		return;                          \
	va_start(ap, fmt);                       \
	text_to(ev, ev->cb, fmt, ap);            \
	va_end(ap)

void events_warning(const struct job_events *ev, const char *fmt, ...)
{
	EVENTS_TEXT(warning);
}

void events_error(const struct job_events *ev, const char *fmt, ...)
{
	EVENTS_TEXT(error);
}

void events_stage(const struct job_events *ev, const char *fmt, ...)
{
	EVENTS_TEXT(stage);
}

void events_output(const struct job_events *ev, const char *fmt, ...)
{
	EVENTS_TEXT(output);
}

void events_gpu_wait(const struct job_events *ev, const char *why)
{
	if (ev && ev->gpu_wait)
		ev->gpu_wait(ev->ctx, why);
}

enum events_answer events_confirm(const struct job_events *ev, const char *question)
{
	return ev && ev->confirm ? ev->confirm(ev->ctx, question) : EVENTS_ANSWER_NONE;
}

bool events_has_log(const struct job_events *ev)
{
	return ev && ev->log;
}

int events_log(const struct job_events *ev, const char *data, size_t len)
{
	return events_has_log(ev) ? ev->log(ev->ctx, data, len) : -1;
}

void events_progress(const struct job_events *ev, enum events_progress kind, const char *text)
{
	if (ev && ev->progress)
		ev->progress(ev->ctx, kind, text);
}

void events_pull(const struct job_events *ev, int verbosity, const struct events_pull *p)
{
	if (ev && ev->pull)
		ev->pull(ev->ctx, verbosity, p);
}

#include "orchestrator/replay/run_log.h"
#include "common/fsutil.h"
#include "orchestrator/finding/finding.h"

#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

int run_log_open(struct run_log *rl, const char *path, const struct job_events *echo,
		 struct classifier *classifier, struct error *err)
{
	memset(rl, 0, sizeof(*rl));
	strbuf_init(&rl->pending, 0);
	for (size_t i = 0; i < 3; i++)
		strbuf_init(&rl->partial[i], 0);
	rl->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (rl->fd < 0)
		return error_errno(err, "cannot create %s", path);
	rl->echo = events_has_log(echo) ? echo : NULL;
	rl->classifier = classifier;
	strbuf_init(&rl->tail, 0);
	return 0;
}

/* The tail window is at most a quarter of the limit and 4 MiB, so a
 * replay holds little memory whatever the limit. */
#define RUN_LOG_TAIL_MAX (4ull << 20)

void run_log_set_limit(struct run_log *rl, long long limit)
{
	uint64_t tail = limit > 0 ? (uint64_t)limit / 4 : 0;

	rl->limit = limit > 0 ? (uint64_t)limit : 0;
	rl->tail_max = tail < RUN_LOG_TAIL_MAX ? tail : RUN_LOG_TAIL_MAX;
	rl->head_max = rl->limit - rl->tail_max;
}

static void file_write(struct run_log *rl, const char *data, size_t len)
{
	if (!rl->write_failed && len && fs_write_all(rl->fd, data, len) < 0) {
		rl->write_failed = true;
		error_errno(&rl->write_error, "writing replay.log");
	}
	rl->written += len;
	if (len)
		rl->last_written = data[len - 1];
}

static void trim_tail(struct run_log *rl)
{
	size_t cut;

	if (rl->tail.len <= rl->tail_max)
		return;
	cut = rl->tail.len - (size_t)rl->tail_max;
	rl->dropped += cut;
	memmove(rl->tail.buf, rl->tail.buf + cut, rl->tail.len - cut);
	strbuf_setlen(&rl->tail, rl->tail.len - cut);
}

/* Past the head, bytes go to the tail window; what falls out of it is
 * dropped. */
static void keep_bounded(struct run_log *rl, const char *data, size_t len)
{
	size_t head = 0;

	if (!rl->limit) {
		file_write(rl, data, len);
		return;
	}
	if (rl->written < rl->head_max && !rl->tail.len && !rl->dropped) {
		head = len < rl->head_max - rl->written ? len : (size_t)(rl->head_max - rl->written);
		file_write(rl, data, head);
	}
	strbuf_add(&rl->tail, data + head, len - head);
	/* Trimmed only at twice its size: one move per tail_max bytes. */
	if (rl->tail.len > 2 * rl->tail_max)
		trim_tail(rl);
}

/* At the end: the marker where the middle was, then the tail from its
 * first whole line. */
static void write_tail(struct run_log *rl)
{
	struct strbuf m = STRBUF_INIT;
	size_t from = 0;

	trim_tail(rl);
	if (rl->dropped) {
		const char *nl = memchr(rl->tail.buf, '\n', rl->tail.len);

		from = nl ? (size_t)(nl - rl->tail.buf) + 1 : 0;
		rl->dropped += from;
		if (rl->written && rl->last_written != '\n')
			file_write(rl, "\n", 1);
		strbuf_addstr(&m, MARKER_PREFIX);
		marker_format_log_cut(&m, rl->dropped, rl->limit);
		strbuf_addch(&m, '\n');
		file_write(rl, m.buf, m.len);
		strbuf_release(&m);
	}
	file_write(rl, rl->tail.buf + from, rl->tail.len - from);
	strbuf_reset(&rl->tail);
}

void run_log_flush(struct run_log *rl)
{
	if (!rl->pending.len)
		return;
	keep_bounded(rl, rl->pending.buf, rl->pending.len);
	/* A closed or slow terminal must not stop the record being kept. */
	if (rl->echo && events_log(rl->echo, rl->pending.buf, rl->pending.len) < 0)
		rl->echo = NULL;
	strbuf_reset(&rl->pending);
}

/* Bytes become part of the record here, in this order, for every reader. */
static void emit(struct run_log *rl, const char *data, size_t len)
{
	if (!len)
		return;
	strbuf_add(&rl->pending, data, len);
	if (rl->classifier)
		classifier_feed(rl->classifier, data, len);
	rl->bytes += len;
	if (rl->pending.len >= RUN_LOG_BATCH)
		run_log_flush(rl);
}

static void emit_partial(struct run_log *rl, struct strbuf *partial)
{
	emit(rl, partial->buf, partial->len);
	strbuf_reset(partial);
}

void run_log_write(struct run_log *rl, int stream, const char *data, size_t len)
{
	struct strbuf *partial = &rl->partial[stream == 2 ? 2 : 1];
	const char *nl;

	if (!len)
		return;
	nl = memrchr(data, '\n', len);
	if (!nl) {
		strbuf_add(partial, data, len);
		if (partial->len >= RUN_LOG_PARTIAL_MAX)
			emit_partial(rl, partial);
		return;
	}
	/* This stream's unfinished line, then its whole lines; keep the tail. */
	emit_partial(rl, partial);
	emit(rl, data, (size_t)(nl - data) + 1);
	strbuf_add(partial, nl + 1, len - (size_t)(nl - data) - 1);
}

static void end_unfinished_lines(struct run_log *rl, bool add_newline)
{
	for (size_t i = 1; i < 3; i++) {
		if (!rl->partial[i].len)
			continue;
		emit_partial(rl, &rl->partial[i]);
		/* The replay stopped mid-line: the classifier reads the line as
		 * cut (no name, no number from it); the record gets a newline. */
		if (add_newline && rl->classifier)
			classifier_cut_line(rl->classifier);
		if (add_newline)
			emit(rl, "\n", 1);
	}
}

void run_log_marker(struct run_log *rl, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	end_unfinished_lines(rl, true);
	strbuf_addstr(&sb, MARKER_PREFIX);
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	strbuf_addch(&sb, '\n');
	emit(rl, sb.buf, sb.len);
	run_log_flush(rl);
	strbuf_release(&sb);
}

int run_log_close(struct run_log *rl, struct error *err)
{
	int ret = 0;

	/* The record keeps the bytes as printed: no newline invented here. */
	end_unfinished_lines(rl, false);
	run_log_flush(rl);
	write_tail(rl);
	strbuf_release(&rl->pending);
	strbuf_release(&rl->tail);
	for (size_t i = 0; i < 3; i++)
		strbuf_release(&rl->partial[i]);
	if (rl->fd >= 0 && close(rl->fd) < 0 && !rl->write_failed) {
		rl->write_failed = true;
		error_errno(&rl->write_error, "closing replay.log");
	}
	rl->fd = -1;
	if (rl->write_failed) {
		if (err)
			*err = rl->write_error;
		ret = -1;
	}
	return ret;
}

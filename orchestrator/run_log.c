#include "orchestrator/run_log.h"
#include "common/strbuf.h"
#include "orchestrator/finding.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

static int write_all(int fd, const char *data, size_t len)
{
	while (len) {
		ssize_t n = write(fd, data, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		data += n;
		len -= (size_t)n;
	}
	return 0;
}

int run_log_open(struct run_log *rl, const char *path, int echo_fd,
		 struct classifier *classifier, struct error *err)
{
	memset(rl, 0, sizeof(*rl));
	rl->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (rl->fd < 0)
		return error_errno(err, "cannot create %s", path);
	rl->echo_fd = echo_fd;
	rl->classifier = classifier;
	rl->at_line_start = true;
	return 0;
}

void run_log_write(struct run_log *rl, const char *data, size_t len)
{
	if (!len)
		return;
	if (!rl->write_failed && write_all(rl->fd, data, len) < 0) {
		rl->write_failed = true;
		error_errno(&rl->write_error, "writing replay.log");
	}
	/* A closed or slow terminal must not stop the record being kept. */
	if (rl->echo_fd >= 0 && write_all(rl->echo_fd, data, len) < 0)
		rl->echo_fd = -1;
	if (rl->classifier)
		classifier_feed(rl->classifier, data, len);
	rl->bytes += len;
	rl->at_line_start = data[len - 1] == '\n';
}

void run_log_marker(struct run_log *rl, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	if (!rl->at_line_start)
		strbuf_addch(&sb, '\n');
	strbuf_addstr(&sb, RUN_LOG_MARKER_PREFIX);
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	strbuf_addch(&sb, '\n');
	run_log_write(rl, sb.buf, sb.len);
	strbuf_release(&sb);
}

int run_log_close(struct run_log *rl, struct error *err)
{
	int ret = 0;

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

#include "preflight/fsutil.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"

int preflight_read_small_file(const char *path, size_t max_bytes, struct strbuf *out,
			      struct error *err)
{
	/* O_NONBLOCK: opening a FIFO planted where a file is expected must not
	 * block; the regular-file check below then refuses it. */
	cleanup_close int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	size_t start = out->len;
	struct stat st;

	if (fd < 0) {
		int saved = errno;

		error_errno(err, "%s", path);
		if (saved == ENOENT || saved == ENOTDIR)
			err->kind = ERR_NOT_FOUND;
		return -1;
	}
	if (fstat(fd, &st) < 0)
		return error_errno(err, "%s", path);
	if (!S_ISREG(st.st_mode))
		return error_set(err, ERR_DATA, 0, "%s is not a regular file", path);
	/* sysfs reports a nominal size (4096) whatever the content: only the
	 * bytes actually read count against the limit. */
	for (;;) {
		size_t room = max_bytes + 1 - (out->len - start);
		ssize_t n;

		if (room > 65536)
			room = 65536;
		strbuf_grow(out, room);
		n = read(fd, out->buf + out->len, room);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			error_errno(err, "reading %s", path);
			strbuf_setlen(out, start);
			return -1;
		}
		if (n == 0)
			break;
		strbuf_setlen(out, out->len + (size_t)n);
		if (out->len - start > max_bytes) {
			strbuf_setlen(out, start);
			return error_set(err, ERR_LIMIT, 0,
					 "%s is larger than the %zu-byte limit", path, max_bytes);
		}
	}
	return 0;
}

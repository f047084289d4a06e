#include "common/file_content.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/fsutil.h"
#include "common/text.h"

static int open_regular(const char *path, struct error *err)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		return errno == ENOENT ? error_set(err, ERR_NOT_FOUND, ENOENT, "%s: no such file", path)
				       : error_errno(err, "%s", path);
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return error_set(err, ERR_DATA, 0, "%s is not a regular file", path);
	}
	return fd;
}

/* Read fd from its start to its end (pread: a descriptor kept open and
 * read again starts over), folding each block into *h and, when out >= 0,
 * writing it there. */
static int pump(int fd, const char *path, int out, const char *out_path, unsigned long long *h,
		struct error *err)
{
	char buf[1 << 16];
	off_t at = 0;
	ssize_t n;

	while ((n = pread(fd, buf, sizeof(buf), at)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return error_errno(err, "read %s", path);
		}
		at += n;
		*h = text_fnv1a64(*h, buf, (size_t)n);
		if (out >= 0 && fs_write_all(out, buf, (size_t)n) < 0)
			return error_errno(err, "write %s", out_path);
	}
	return 0;
}

int file_content_digest(const char *path, unsigned long long *h, struct error *err)
{
	cleanup_close int fd = open_regular(path, err);

	if (fd < 0)
		return -1;
	return pump(fd, path, -1, NULL, h, err);
}

int file_content_digest_fd(int fd, const char *path, unsigned long long *h,
			   struct error *err)
{
	return pump(fd, path, -1, NULL, h, err);
}

int file_content_copy(const char *src, const char *dst, mode_t mode, unsigned long long *h,
		      struct error *err)
{
	cleanup_close int in = open_regular(src, err);

	if (in < 0)
		return -1;
	return file_content_copy_fd(in, src, dst, mode, h, err);
}

int file_content_copy_fd(int in, const char *src, const char *dst, mode_t mode,
			 unsigned long long *h, struct error *err)
{
	cleanup_free char *tmp = NULL;
	int out;

	if ((out = fs_atomic_tmp(dst, mode, &tmp, err)) < 0)
		return -1;
	*h = TEXT_FNV1A64_INIT;
	if (pump(in, src, out, tmp, h, err) < 0 ||
	    (fsync(out) < 0 && error_errno(err, "fsync %s", tmp) < 0)) {
		close(out);
		unlink(tmp);
		return -1;
	}
	if (close(out) < 0 || rename(tmp, dst) < 0) {
		error_errno(err, "cannot write %s", dst);
		unlink(tmp);
		return -1;
	}
	return 0;
}

#include "common/fsutil.h"

#include <errno.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/xalloc.h"

int fs_read_small_file(const char *path, size_t max_bytes, struct strbuf *out,
		       struct error *err)
{
	/* O_NONBLOCK: opening a FIFO planted where a file is expected must not
	 * block; the regular-file check below then refuses it. */
	cleanup_close int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);

	if (fd < 0) {
		int saved = errno;

		error_errno(err, "%s", path);
		if (saved == ENOENT || saved == ENOTDIR)
			err->kind = ERR_NOT_FOUND;
		return -1;
	}
	return fs_read_fd(fd, path, max_bytes, out, err);
}

int fs_read_fd(int fd, const char *path, size_t max_bytes, struct strbuf *out,
	       struct error *err)
{
	size_t start = out->len;
	struct stat st;

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

int fs_read_private_file(const char *path, size_t max_bytes, struct strbuf *out,
			 struct error *err)
{
	cleanup_close int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW);
	struct stat st;

	if (fd < 0)
		return error_errno(err, "%s", path);
	if (fstat(fd, &st) < 0)
		return error_errno(err, "%s", path);
	if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 022))
		return error_set(err, ERR_DATA, 0,
				 "%s is not a file only you can write (owner %u, mode %03o)", path,
				 (unsigned)st.st_uid, (unsigned)(st.st_mode & 0777));
	return fs_read_small_file(path, max_bytes, out, err);
}

FILE *fs_open_regular(const char *path, struct error *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	struct stat st;
	FILE *f;

	if (fd < 0 || fstat(fd, &st) < 0) {
		error_errno(err, "%s", path);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		error_set(err, ERR_DATA, 0, "%s is not a regular file", path);
		return NULL;
	}
	if (!(f = fdopen(fd, "r"))) {
		error_errno(err, "%s", path);
		close(fd);
	}
	return f;
}

int fs_write_all(int fd, const char *data, size_t len)
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

int fs_mkdir_p(const char *path, mode_t mode, struct error *err)
{
	cleanup_free char *copy = xstrdup(path);

	for (char *p = copy + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(copy, 0755) < 0 && errno != EEXIST)
			return error_errno(err, "cannot create %s", copy);
		*p = '/';
	}
	if (mkdir(copy, mode) < 0 && errno != EEXIST)
		return error_errno(err, "cannot create %s", copy);
	return 0;
}

/* The temporary is created O_EXCL under a name nobody can predict and never
 * through a link, so a file planted beside path (a shared -o directory)
 * can neither be written through nor truncated; the rename then replaces
 * whatever sits at path itself, a symlink included, without following it.
 * mode goes through the umask, as for any new file. */
int fs_atomic_tmp(const char *path, mode_t mode, char **tmp, struct error *err)
{
	int fd = -1;

	*tmp = NULL;
	for (int tries = 0; fd < 0 && tries < 16; tries++) {
		unsigned long long r = 0;

		if (getentropy(&r, sizeof(r)) < 0)
			r = (unsigned long long)getpid() * 2654435761u + (unsigned long long)tries;
		free(*tmp);
		*tmp = xasprintf("%s.tmp-%016llx", path, r);
		fd = open(*tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		int rc = error_errno(err, "cannot create a temporary file beside %s", path);

		/* Not ours: the name may be another's file. */
		free(*tmp);
		*tmp = NULL;
		return rc;
	}
	return fd;
}

int fs_write_atomic(const char *path, const char *data, size_t len, mode_t mode,
		    struct error *err)
{
	cleanup_free char *tmp = NULL;
	int fd = fs_atomic_tmp(path, mode, &tmp, err);

	if (fd < 0)
		return -1;
	if (fs_write_all(fd, data, len) < 0 || fsync(fd) < 0) {
		error_errno(err, "cannot write %s", tmp);
		close(fd);
		unlink(tmp);
		return -1;
	}
	if (close(fd) < 0 || rename(tmp, path) < 0) {
		error_errno(err, "cannot write %s", path);
		unlink(tmp);
		return -1;
	}
	return 0;
}

int fs_private_dir(const char *path, struct error *err)
{
	cleanup_close int fd = -1;
	struct stat st;

	if (mkdir(path, 0700) < 0 && errno != EEXIST)
		return error_errno(err, "cannot create %s", path);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return error_errno(err, "%s is not a directory of yours", path);
	if (fstat(fd, &st) < 0)
		return error_errno(err, "cannot stat %s", path);
	if (st.st_uid != geteuid())
		return error_set(err, ERR_USAGE, 0,
				 "%s belongs to uid %u, not to you (uid %u): refused", path,
				 (unsigned)st.st_uid, (unsigned)geteuid());
	if (st.st_mode & 077)
		return error_set(err, ERR_USAGE, 0,
				 "%s is open to others (mode %03o, want 0700): refused", path,
				 (unsigned)(st.st_mode & 0777));
	return 0;
}

void fs_path_normalize(const char *path, struct strbuf *out)
{
	size_t root = out->len;

	strbuf_addch(out, '/');
	while (*path) {
		size_t n;

		while (*path == '/')
			path++;
		n = strcspn(path, "/");
		if (n == 2 && path[0] == '.' && path[1] == '.') {
			char *slash = strrchr(out->buf + root, '/');

			strbuf_setlen(out, slash == out->buf + root ? root + 1
					   : (size_t)(slash - out->buf));
		} else if (n && !(n == 1 && path[0] == '.')) {
			if (out->buf[out->len - 1] != '/')
				strbuf_addch(out, '/');
			strbuf_add(out, path, n);
		}
		path += n;
	}
}

#include "common/owned_file.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/fsutil.h"
#include "common/owned.h"
#include "common/xalloc.h"

/* Directories above a file, at most: a loop of bind mounts must end. */
#define OWNED_FILE_DEPTH_MAX 256

/* What is wrong with the directory st for a file owned by file_uid, or
 * NULL. first: the file's own directory. */
static const char *dir_problem(const struct stat *st, enum owned_file_rule rule, bool first,
			       uid_t file_uid)
{
	static _Thread_local char why[96];
	bool sticky = (st->st_mode & S_ISVTX) && (st->st_uid == geteuid() || st->st_uid == 0);

	if (rule == OWNED_FILE_MINE)
		return owned_problem(st, first ? 0 : OWNED_ROOT_OK | OWNED_STICKY_SHARED);
	if (st->st_uid != geteuid() && st->st_uid != 0 && st->st_uid != file_uid) {
		snprintf(why, sizeof(why), "belongs to uid %u, neither the file's owner nor you",
			 (unsigned)st->st_uid);
		return why;
	}
	if ((st->st_mode & 022) && !sticky) {
		snprintf(why, sizeof(why), "is writable by others (mode %04o) and not sticky",
			 (unsigned)(st->st_mode & 07777));
		return why;
	}
	return NULL;
}

/* Every directory from dirfd's up to /, by "..": the directories the
 * opened file really sits under, whatever symlinks the path went through. */
static int check_dirs(int dirfd, const char *path, enum owned_file_rule rule, uid_t file_uid,
		      struct error *err)
{
	cleanup_close int fd = dup(dirfd);

	for (int depth = 0; fd >= 0 && depth < OWNED_FILE_DEPTH_MAX; depth++) {
		struct stat st, up_st;
		const char *why;
		int up;

		if (fstat(fd, &st) < 0)
			return error_errno(err, "%s: a directory above it", path);
		if ((why = dir_problem(&st, rule, depth == 0, file_uid)))
			return error_set(err, ERR_DATA, 0, "%s: %s %s: refused", path,
					 depth ? "a directory above it" : "its directory", why);
		up = openat(fd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (up < 0 || fstat(up, &up_st) < 0) {
			if (up >= 0)
				close(up);
			return error_errno(err, "%s: a directory above it", path);
		}
		close(fd);
		fd = up;
		if (up_st.st_dev == st.st_dev && up_st.st_ino == st.st_ino)
			return 0; /* "/": its ".." is itself */
	}
	return error_set(err, ERR_DATA, 0, "%s: its directories cannot be walked to /", path);
}

int owned_file_read(const char *path, enum owned_file_rule rule, size_t max,
		    struct strbuf *out, struct stat *st, struct error *err)
{
	cleanup_free char *d = xstrdup(path), *b = xstrdup(path);
	cleanup_close int dirfd = open(dirname(d), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cleanup_close int fd = -1;
	const char *why;
	char mode[48];

	if (dirfd < 0) {
		error_errno(err, "%s", path);
		if (err->status == ENOENT || err->status == ENOTDIR)
			err->kind = ERR_NOT_FOUND;
		return -1;
	}
	fd = openat(dirfd, basename(b), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		if (errno == ELOOP)
			return error_set(err, ERR_DATA, 0, "%s is a symlink: refused", path);
		error_errno(err, "%s", path);
		if (err->status == ENOENT)
			err->kind = ERR_NOT_FOUND;
		return -1;
	}
	if (fstat(fd, st) < 0)
		return error_errno(err, "%s", path);
	if (!S_ISREG(st->st_mode))
		why = "is not a regular file";
	else if (rule == OWNED_FILE_MINE)
		why = owned_problem(st, 0);
	else if (st->st_mode & 022) {
		snprintf(mode, sizeof(mode), "is writable by others (mode %04o)",
			 (unsigned)(st->st_mode & 07777));
		why = mode;
	} else
		why = NULL;
	if (why)
		return error_set(err, ERR_DATA, 0, "%s %s: refused", path, why);
	if (check_dirs(dirfd, path, rule, st->st_uid, err) < 0)
		return -1;
	return fs_read_fd(fd, path, max, out, err);
}

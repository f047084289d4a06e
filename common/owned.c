#include "common/owned.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/strbuf.h"
#include <stdio.h>

#define REMOVE_DEPTH_MAX 64

const char *owned_problem(const struct stat *st, unsigned flags)
{
	static _Thread_local char why[96];
	bool owner_ok = st->st_uid == geteuid() || ((flags & OWNED_ROOT_OK) && st->st_uid == 0);
	bool sticky_ok = (flags & OWNED_STICKY_SHARED) && S_ISDIR(st->st_mode) &&
			 (st->st_mode & S_ISVTX) && (st->st_uid == geteuid() || st->st_uid == 0);

	if (!owner_ok && !sticky_ok) {
		snprintf(why, sizeof(why), "belongs to uid %u, not to you (uid %u)",
			 (unsigned)st->st_uid, (unsigned)geteuid());
		return why;
	}
	if ((st->st_mode & 022) && !sticky_ok) {
		snprintf(why, sizeof(why), "is writable by others (mode %04o)%s",
			 (unsigned)(st->st_mode & 07777),
			 S_ISDIR(st->st_mode) ? " and not sticky" : "");
		return why;
	}
	return NULL;
}

int owned_dir_open(const char *path, const char *what, unsigned flags, struct error *err)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	const char *why;

	if (fd < 0) {
		if (errno == ENOTDIR || errno == ELOOP)
			return error_set(err, ERR_DATA, 0, "%s %s is a symlink or not a directory: refused",
					 what, path);
		return error_errno(err, "%s %s", what, path);
	}
	if (fstat(fd, &st) < 0) {
		error_errno(err, "%s %s", what, path);
		close(fd);
		return -1;
	}
	if ((why = owned_problem(&st, flags))) {
		close(fd);
		return error_set(err, ERR_DATA, 0, "%s %s %s: refused", what, path, why);
	}
	return fd;
}

int owned_openat(int dirfd, const char *dir_path, const char *name, int flags, mode_t mode,
		 struct error *err)
{
	int fd = openat(dirfd, name, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, mode);
	struct stat st;
	const char *why = NULL;

	if (fd < 0) {
		if (errno == ELOOP)
			return error_set(err, ERR_DATA, 0, "%s/%s is a symlink: refused", dir_path, name);
		return error_errno(err, "%s/%s", dir_path, name);
	}
	if (fstat(fd, &st) < 0) {
		error_errno(err, "%s/%s", dir_path, name);
		close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode))
		why = "is not a regular file";
	else
		why = owned_problem(&st, 0);
	if (why) {
		close(fd);
		return error_set(err, ERR_DATA, 0, "%s/%s %s: refused", dir_path, name, why);
	}
	/* Back to blocking: a regular file never blocks, and writers expect
	 * ordinary semantics. */
	(void)fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	return fd;
}

bool owned_path_has_no_symlink(const char *path)
{
	cleanup_strbuf struct strbuf sb = STRBUF_INIT;
	const char *p = path;
	struct stat st;

	if (path[0] != '/')
		return false;
	while (*p) {
		size_t n;

		while (*p == '/')
			p++;
		n = strcspn(p, "/");
		if (!n)
			break;
		strbuf_addch(&sb, '/');
		strbuf_add(&sb, p, n);
		if (lstat(sb.buf, &st) < 0 || S_ISLNK(st.st_mode))
			return false;
		p += n;
	}
	return true;
}

static int remove_below(int dirfd, const char *name, int depth, struct error *err);

/* Every entry of the directory fd (which the caller closes). */
static int remove_entries(int fd, int depth, struct error *err)
{
	int dup_fd = dup(fd);
	DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
	const struct dirent *e;
	int rc = 0;

	if (!d) {
		if (dup_fd >= 0)
			close(dup_fd);
		return error_errno(err, "opening a directory to remove it");
	}
	/* Everything that can go goes; the first entry left is reported. */
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (remove_below(fd, e->d_name, depth + 1, rc < 0 ? ERROR_DISCARD : err) < 0)
			rc = -1;
	}
	closedir(d);
	return rc;
}

static int remove_below(int dirfd, const char *name, int depth, struct error *err)
{
	struct stat st;
	int fd, rc;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : error_errno(err, "%s", name);
	if (!S_ISDIR(st.st_mode))
		return unlinkat(dirfd, name, 0) == 0 || errno == ENOENT
			       ? 0 : error_errno(err, "cannot remove %s", name);
	if (depth > REMOVE_DEPTH_MAX)
		return error_set(err, ERR_LIMIT, 0, "%s: nested deeper than %d", name,
				 REMOVE_DEPTH_MAX);
	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : error_errno(err, "%s", name);
	if (fstat(fd, &st) < 0 || owned_problem(&st, 0)) {
		close(fd);
		return error_set(err, ERR_DATA, 0, "%s is not a directory of yours: left as it is",
				 name);
	}
	rc = remove_entries(fd, depth, err);
	close(fd);
	if (rc == 0 && unlinkat(dirfd, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
		rc = error_errno(err, "cannot remove %s", name);
	return rc;
}

int owned_remove_tree(int dirfd, const char *name, struct error *err)
{
	return remove_below(dirfd, name, 0, err);
}

#include "orchestrator/site/site_dir.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/fsutil.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "orchestrator/site/site_text.h"

#define MANIFEST_MAX (64u << 20)

const char *site_dir_refusal(unsigned owner, unsigned mode, unsigned uid)
{
	if (owner != uid)
		return "belongs to another user";
	if (mode & (S_IWGRP | S_IWOTH))
		return "is writable by group or others";
	return NULL;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct site_file *)a)->name, ((const struct site_file *)b)->name);
}

static const struct site_file *find(const struct site_file *v, size_t n, const char *name)
{
	struct site_file key = { .name = (char *)name };

	return n ? bsearch(&key, v, n, sizeof(*v), by_name) : NULL;
}

/* A name the site may own: a plain file name, no dot file. */
static bool plain_name(const char *name)
{
	return *name && *name != '.' && !strchr(name, '/') && strlen(name) < 256;
}

static int read_manifest(struct site_dir *d, struct error *err)
{
	cleanup_strbuf struct strbuf text = STRBUF_INIT;
	cleanup_free char *path = xasprintf("%s/%s", d->path, SITE_MANIFEST);
	size_t alloc = 0;
	char *line, *save = NULL;

	struct stat st;

	if (fstatat(d->fd, SITE_MANIFEST, &st, AT_SYMLINK_NOFOLLOW) < 0 && errno == ENOENT)
		return 0; /* a new site */
	if (fs_read_private_file(path, MANIFEST_MAX, &text, err) < 0)
		return error_prefix(err, "history site: ");
	for (line = strtok_r(text.buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long h;
		int off = 0;

		if (sscanf(line, "%16llx %n", &h, &off) != 1 || !off || !plain_name(line + off))
			continue;
		if (d->n_old == alloc)
			d->old = xrealloc(d->old, (alloc = alloc ? 2 * alloc : 256) * sizeof(*d->old));
		d->old[d->n_old++] = (struct site_file){ xstrdup(line + off), h };
	}
	if (d->n_old)
		qsort(d->old, d->n_old, sizeof(*d->old), by_name);
	return 0;
}

int site_dir_open(struct site_dir *d, const char *path, struct error *err)
{
	struct stat st;
	const char *why;

	memset(d, 0, sizeof(*d));
	d->fd = -1;
	if (fs_mkdir_p(path, 0755, err) < 0)
		return error_prefix(err, "history site: ");
	d->fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (d->fd < 0)
		return error_set(err, ERR_USAGE, errno,
				 "history site: %s is %s; give a directory of yours", path,
				 errno == ELOOP || errno == ENOTDIR ? "a symlink or not a directory"
								    : strerror(errno));
	if (fstat(d->fd, &st) < 0)
		return error_errno(err, "history site: %s", path);
	if ((why = site_dir_refusal(st.st_uid, st.st_mode, getuid())))
		return error_set(err, ERR_USAGE, 0,
				 "history site: %s %s; give a directory only you can write", path,
				 why);
	d->path = realpath(path, NULL);
	if (!d->path)
		return error_errno(err, "history site: %s", path);
	return read_manifest(d, err);
}

/* Put tmp in name's place. Over an existing page the two are exchanged and
 * the old one dropped: ext4 (auto_da_alloc) starts writing a file renamed
 * over another back at once, which a night's thousands of pages wait for;
 * an exchange does not, and a reader still sees a whole page either way. */
static int replace(struct site_dir *d, const char *tmp, const char *name, bool exists)
{
	if (exists && renameat2(d->fd, tmp, d->fd, name, RENAME_EXCHANGE) == 0) {
		unlinkat(d->fd, tmp, 0);
		return 0;
	}
	return renameat(d->fd, tmp, d->fd, name);
}

static int write_file(struct site_dir *d, const char *name, const char *data, size_t len,
		      bool exists, struct error *err)
{
	cleanup_free char *tmp = xasprintf(".%s.tmp-%d", name, (int)getpid());
	int fd;

	/* A temporary file of an earlier run that died (same pid after a
	 * reboot) goes first; no unlink before every page, which is a system
	 * call a page for nothing. */
	fd = openat(d->fd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0 && errno == EEXIST && unlinkat(d->fd, tmp, 0) == 0)
		fd = openat(d->fd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return error_errno(err, "history site: cannot create %s/%s", d->path, tmp);
	/* No fsync: the site is rebuilt from the database any time. */
	if (fs_write_all(fd, data, len) < 0 || close(fd) < 0) {
		error_errno(err, "history site: cannot write %s/%s", d->path, name);
		unlinkat(d->fd, tmp, 0);
		return -1;
	}
	if (replace(d, tmp, name, exists) < 0) {
		error_errno(err, "history site: cannot write %s/%s", d->path, name);
		unlinkat(d->fd, tmp, 0);
		return -1;
	}
	return 0;
}

int site_dir_write(struct site_dir *d, const char *name, const char *data, size_t len,
		   struct error *err)
{
	uint64_t h = site_content_hash(data, len);
	const struct site_file *was = find(d->old, d->n_old, name);
	struct stat st;
	bool exists = fstatat(d->fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;

	if (!plain_name(name))
		return error_set(err, ERR_USAGE, 0, "history site: internal: bad page name %s", name);
	if (exists && !was)
		return error_set(err, ERR_USAGE, 0,
				 "history site: %s/%s was not written by hrr-docker-replay; move "
				 "it away or give another directory",
				 d->path, name);
	if (d->n_now == d->alloc_now)
		d->now = xrealloc(d->now, (d->alloc_now = d->alloc_now ? 2 * d->alloc_now : 256) *
						  sizeof(*d->now));
	d->now[d->n_now++] = (struct site_file){ xstrdup(name), h };
	if (exists && was->hash == h && S_ISREG(st.st_mode)) {
		d->kept++;
		return 0;
	}
	d->written++;
	return write_file(d, name, data, len, exists && S_ISREG(st.st_mode), err);
}

int site_dir_finish(struct site_dir *d, struct error *err)
{
	cleanup_strbuf struct strbuf m = STRBUF_INIT;

	if (d->n_now)
		qsort(d->now, d->n_now, sizeof(*d->now), by_name);
	for (size_t i = 0; i < d->n_old; i++)
		if (!find(d->now, d->n_now, d->old[i].name) &&
		    unlinkat(d->fd, d->old[i].name, 0) == 0)
			d->removed++;
	for (size_t i = 0; i < d->n_now; i++)
		strbuf_addf(&m, "%016llx %s\n", (unsigned long long)d->now[i].hash, d->now[i].name);
	return write_file(d, SITE_MANIFEST, m.buf ? m.buf : "", m.len, false, err);
}

void site_dir_release(struct site_dir *d)
{
	for (size_t i = 0; i < d->n_old; i++)
		free(d->old[i].name);
	for (size_t i = 0; i < d->n_now; i++)
		free(d->now[i].name);
	free(d->old);
	free(d->now);
	free(d->path);
	if (d->fd >= 0)
		close(d->fd);
	memset(d, 0, sizeof(*d));
	d->fd = -1;
}

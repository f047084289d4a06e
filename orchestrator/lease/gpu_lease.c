#include "orchestrator/lease/gpu_lease.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/cleanup.h"
#include "common/fsutil.h"
#include "common/owned.h"
#include "common/text.h"
#include "common/strbuf.h"
#include "common/xalloc.h"

#define POLL_MIN_MS 20
#define POLL_MAX_MS 250

const char *gpu_lease_dir(const char *dir)
{
	const char *env = getenv("HRR_LOCK_DIR");

	if (dir && *dir)
		return dir;
	return env && *env ? env : GPU_LEASE_DIR_DEFAULT;
}

/* Root's and sticky 1777 (what tmpfiles.d makes), or the caller's own:
 * anyone else who owns it could remove a held lock, and a second run
 * would then share the GPU. */
static int lock_dir_check(const char *dir, struct error *err)
{
	cleanup_close int fd = owned_dir_open(dir, "GPU lock directory", OWNED_STICKY_SHARED, err);
	struct stat st;

	if (fd < 0 || fstat(fd, &st) < 0) {
		if (fd >= 0)
			error_errno(err, "GPU lock directory %s", dir);
		err->kind = ERR_USAGE;
		return error_append(err, "; as root, remove it and run `systemd-tmpfiles --create "
					 "hrr-docker-replay.conf` (`make install` ships %s), or set "
					 "HRR_LOCK_DIR to a directory of your own", GPU_LEASE_TMPFILES);
	}
	if (st.st_uid != geteuid() && (st.st_mode & 07777) != 01777)
		return error_set(err, ERR_USAGE, 0,
				 "GPU lock directory %s is root's but mode %04o, not 1777: other users "
				 "cannot lock; let systemd-tmpfiles create it (`make install` ships %s)",
				 dir, (unsigned)(st.st_mode & 07777), GPU_LEASE_TMPFILES);
	return 0;
}

int gpu_lease_dir_prepare(const char *dir, struct error *err)
{
	struct stat st;

	if (lstat(dir, &st) == 0 || errno != ENOENT)
		return lock_dir_check(dir, err);
	if (fs_mkdir_p(dir, 0755, err) < 0) {
		err->kind = ERR_USAGE;
		return error_prefix(err, "GPU lock directory (set HRR_LOCK_DIR): ");
	}
	/* mkdir's mode passes through the umask; the sticky bit and world
	 * write are what let every user lock without removing others' files. */
	if (chmod(dir, 01777) < 0)
		return error_errno(err, "chmod 1777 %s", dir);
	return lock_dir_check(dir, err);
}

void gpu_lease_name(const char *sysfs_root, int node, unsigned long gpu_id, char *out, size_t len)
{
	cleanup_free char *path = xasprintf("%s/class/kfd/kfd/topology/nodes/%d/properties",
					    sysfs_root, node);
	cleanup_strbuf struct strbuf text = STRBUF_INIT;
	struct error err;

	snprintf(out, len, "gpu_id-%lu", gpu_id);
	if (fs_read_small_file(path, 1 << 16, &text, &err) < 0)
		return;
	for (char *line = text.buf; line && *line;) {
		char *nl = strchr(line, '\n');
		unsigned long long uid;

		if (nl)
			*nl = '\0';
		if (sscanf(line, "unique_id %llu", &uid) == 1 && uid) {
			snprintf(out, len, "unique_id-%llu", uid);
			return;
		}
		line = nl ? nl + 1 : NULL;
	}
}

/* Open without O_CREAT when the file exists, so a sticky directory with
 * fs.protected_regular still lets another user open it; read-only when the
 * file is someone else's and not writable (flock works on any fd). */
int gpu_lease_open_file(const char *dir, const char *name, bool *writable, struct error *err)
{
	cleanup_free char *path = xasprintf("%s/%s", dir, name);
	struct stat st;
	int fd;

	for (int tries = 0; tries < 3; tries++) {
		*writable = true;
		/* O_NONBLOCK: a FIFO planted under a lock's name must not hang
		 * an unattended sweep in open(). */
		fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
		if (fd < 0 && errno == EACCES) {
			*writable = false;
			fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
		}
		if (fd >= 0 || errno != ENOENT)
			break;
		fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666);
		if (fd >= 0) {
			(void)fchmod(fd, 0666); /* past the umask: every user locks it */
			break;
		}
		if (errno != EEXIST)
			break;
	}
	if (fd < 0)
		return error_errno(err, "GPU lock file %s", path);
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return error_set(err, ERR_DATA, 0,
				 "GPU lock file %s is not a regular file: refused; remove it", path);
	}
	return fd;
}

static void read_holder(int fd, char *holder, size_t len)
{
	char raw[GPU_LEASE_OWNER_MAX];
	char *clean;
	ssize_t n;

	if (!holder || !len)
		return;
	n = pread(fd, raw, sizeof(raw) - 1, 0);
	raw[n > 0 ? n : 0] = '\0';
	raw[strcspn(raw, "\n")] = '\0';
	/* Anyone may write a lock file: its label reaches a terminal only as
	 * printable text (no escape sequences to retitle or clear it). */
	clean = text_sanitized(raw, 0);
	snprintf(holder, len, "%s", clean[0] ? clean : "unknown owner");
	free(clean);
}

bool gpu_lease_probe(const char *dir, const char *name, char *holder, size_t holder_len)
{
	struct error err;
	bool writable;
	cleanup_close int fd = gpu_lease_open_file(gpu_lease_dir(dir), name, &writable, &err);

	if (fd < 0)
		return false;
	if (flock(fd, LOCK_SH | LOCK_NB) == 0) {
		flock(fd, LOCK_UN);
		return false;
	}
	read_holder(fd, holder, holder_len);
	return true;
}

void gpu_lease_release(struct gpu_lease *l)
{
	for (size_t i = 0; i < l->n; i++) {
		if (l->fds[i] < 0)
			continue;
		/* Clear our label first so a reader never blames a past owner. */
		if (ftruncate(l->fds[i], 0) < 0) { /* read-only fd: nothing to clear */
		}
		close(l->fds[i]); /* closing the last fd drops the flock */
	}
	free(l->fds);
	l->fds = NULL;
	l->n = 0;
}

static void label_lock(int fd, const char *owner)
{
	size_t len = owner ? strlen(owner) : 0;

	if (!len || ftruncate(fd, 0) < 0)
		return;
	if (pwrite(fd, owner, len, 0) == (ssize_t)len)
		(void)pwrite(fd, "\n", 1, (off_t)len);
}

/* One attempt at the whole set: 0 when all are ours, 1 when one is busy
 * (busy_idx, holder filled; everything released), < 0 on error. */
static int try_all(struct gpu_lease *l, const char *dir, const char *const *names, size_t n,
		   const struct gpu_lease_opts *o, size_t *busy_idx, char *holder, size_t hlen,
		   struct error *err)
{
	l->fds = xcalloc(n ? n : 1, sizeof(int));
	l->n = 0;
	for (size_t i = 0; i < n; i++) {
		bool writable;
		int fd = gpu_lease_open_file(dir, names[i], &writable, err);

		if (fd < 0)
			goto fail;
		if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
			/* Not ours: close it untouched, its label is the holder's. */
			int e = errno;

			if (e == EWOULDBLOCK)
				read_holder(fd, holder, hlen);
			close(fd);
			if (e != EWOULDBLOCK) {
				errno = e;
				error_errno(err, "flock %s/%s", dir, names[i]);
				goto fail;
			}
			*busy_idx = i;
			gpu_lease_release(l);
			return 1;
		}
		l->fds[l->n++] = fd;
		if (o->held && o->held(o->held_ctx, names[i], holder, hlen)) {
			*busy_idx = i;
			gpu_lease_release(l);
			return 1;
		}
	}
	for (size_t i = 0; i < l->n; i++)
		label_lock(l->fds[i], o->owner);
	return 0;
fail:
	gpu_lease_release(l);
	return -1;
}

int gpu_lease_acquire(struct gpu_lease *l, const char *const *names, size_t n,
		      const struct gpu_lease_opts *o, struct error *err)
{
	const char *dir = gpu_lease_dir(o->dir);
	double start = monotonic_now();
	unsigned delay_ms = POLL_MIN_MS;
	bool reported = false;

	memset(l, 0, sizeof(*l));
	if (gpu_lease_dir_prepare(dir, err) < 0)
		return -1;
	for (;;) {
		char holder[GPU_LEASE_OWNER_MAX] = "";
		size_t busy = 0;
		int r = try_all(l, dir, names, n, o, &busy, holder, sizeof(holder), err);

		if (r <= 0)
			return r;
		if (o->wait_s >= 0 && monotonic_now() - start >= o->wait_s) {
			l->busy = busy;
			snprintf(l->busy_holder, sizeof(l->busy_holder), "%s", holder);
			return error_set(err, ERR_BUSY, 0, "GPU %s is busy (held by %s); try later",
					 names[busy], holder);
		}
		if (!reported && o->on_wait)
			o->on_wait(o->wait_ctx, names[busy], holder);
		reported = true;
		if (o->cancelled && o->cancelled())
			return error_set(err, ERR_CANCELLED, 0, "interrupted waiting for GPU %s",
					 names[busy]);
		struct timespec ts = { 0, (long)delay_ms * 1000000L };

		nanosleep(&ts, NULL);
		delay_ms = delay_ms * 2 > POLL_MAX_MS ? POLL_MAX_MS : delay_ms * 2;
	}
}

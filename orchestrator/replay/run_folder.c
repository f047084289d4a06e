#include "orchestrator/replay/run_folder.h"
#include "common/cleanup.h"
#include "common/clock.h"
#include "common/fsutil.h"
#include "common/strbuf.h"
#include "common/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

void run_id_new(char out[7])
{
	unsigned char b[3];

	if (getrandom(b, sizeof(b), 0) != (ssize_t)sizeof(b)) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		b[0] = (unsigned char)ts.tv_nsec;
		b[1] = (unsigned char)(ts.tv_nsec >> 8);
		b[2] = (unsigned char)getpid();
	}
	snprintf(out, 7, "%02x%02x%02x", b[0], b[1], b[2]);
}

static bool path_inside(const char *inner, const char *outer)
{
	size_t n = strlen(outer);

	return !strncmp(inner, outer, n) && (inner[n] == '/' || inner[n] == '\0' ||
					     (n == 1 && outer[0] == '/'));
}

/* The canonical form of a path that may not exist yet: realpath of its
 * longest existing ancestor, then the rest lexically (the rest does not
 * exist, so its ".." is what mkdir -p will make of it: "/x/missing/../a"
 * is "/x/a"). */
static char *resolve_future_path(const char *path)
{
	cleanup_free char *copy = xstrdup(path);
	struct strbuf out = STRBUF_INIT;
	char real[PATH_MAX];
	char *slash;

	if (realpath(copy, real))
		return xstrdup(real);
	while ((slash = strrchr(copy, '/'))) {
		*slash = '\0';
		if (realpath(slash == copy ? "/" : copy, real)) {
			cleanup_free char *joined = xasprintf("%s/%s", real, path + (slash - copy) + 1);

			fs_path_normalize(joined, &out);
			return strbuf_detach(&out, NULL);
		}
	}
	return NULL;
}

/* An absolute form of a path given on the command line or in TMPDIR. */
static int absolute_path(const char *path, const char *what, char **out, struct error *err)
{
	char cwd[PATH_MAX];

	if (path[0] == '/') {
		*out = xstrdup(path);
		return 0;
	}
	if (!getcwd(cwd, sizeof(cwd)))
		return error_errno(err, "%s: current directory", what);
	*out = xasprintf("%s/%s", cwd, path);
	return 0;
}

/* Refuse before creating anything: the archive is never written. A path
 * that cannot be resolved at all is refused too (it cannot be checked). */
static int refuse_inside_archive(const char *dir, const char *what,
				 const char *const *archive_paths, size_t n, struct error *err)
{
	cleanup_free char *abs = NULL;
	cleanup_free char *future = NULL;

	if (absolute_path(dir, what, &abs, err) < 0)
		return -1;
	future = resolve_future_path(abs);
	if (!future)
		return error_set(err, ERR_USAGE, 0, "%s %s cannot be resolved", what, dir);
	for (size_t i = 0; i < n; i++) {
		char areal[PATH_MAX];

		if (realpath(archive_paths[i], areal) && path_inside(future, areal))
			return error_set(err, ERR_USAGE, 0,
					 "%s %s is inside the archive %s, which is never written; choose another --workdir",
					 what, dir, areal);
	}
	return 0;
}

int workdir_prepare(const char *requested, const char *const *archive_paths, size_t n,
		    char **out, struct error *err)
{
	cleanup_free char *dir = NULL;
	char real[PATH_MAX];
	struct stat st;

	if (requested) {
		if (refuse_inside_archive(requested, "--workdir", archive_paths, n, err) < 0)
			return -1;
		dir = xstrdup(requested);
		if (fs_mkdir_p(dir, 0755, err) < 0)
			return error_prefix(err, "--workdir: ");
	} else {
		const char *tmp = getenv("TMPDIR");

		dir = xasprintf("%s/hrr-docker-replay-%u", tmp && *tmp ? tmp : "/tmp",
				(unsigned)getuid());
		if (refuse_inside_archive(dir, "workdir (from TMPDIR)", archive_paths, n, err) < 0)
			return -1;
		if (fs_mkdir_p(dir, 0700, err) < 0)
			return -1;
		if (lstat(dir, &st) < 0)
			return error_errno(err, "cannot stat %s", dir);
		/* A shared /tmp: someone else may have made the directory first. */
		if (!S_ISDIR(st.st_mode) || st.st_uid != getuid())
			return error_set(err, ERR_USAGE, 0,
					 "workdir %s is not a directory owned by you; set --workdir",
					 dir);
	}
	if (!realpath(dir, real))
		return error_errno(err, "workdir %s", dir);
	for (size_t i = 0; i < n; i++) {
		char areal[PATH_MAX];

		if (realpath(archive_paths[i], areal) && path_inside(real, areal))
			return error_set(err, ERR_USAGE, 0,
					 "workdir %s is inside the archive %s, which is never written; choose another --workdir",
					 real, areal);
	}
	if (access(real, W_OK) < 0)
		return error_errno(err, "workdir %s is not writable", real);
	*out = xstrdup(real);
	return 0;
}

int run_folder_create(const char *workdir, const char *pid_name, const char *run_id,
		      char **out, struct error *err)
{
	char stamp[32];
	cleanup_free char *path = NULL;

	utc_stamp(stamp, sizeof(stamp));
	path = xasprintf("%s/%s-%s-%s", workdir, pid_name, stamp, run_id);
	if (mkdir(path, 0755) < 0)
		return error_errno(err, "cannot create run folder %s", path);
	*out = steal_pointer(&path);
	return 0;
}

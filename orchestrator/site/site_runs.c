#include "orchestrator/site/site_runs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "orchestrator/site/site_dir.h"
#include "orchestrator/site/site_text.h"
#include "orchestrator/sweep/sweep_worker.h"

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A directory entry that is a folder of its own (not a symlink to one). */
static bool is_folder(int dfd, const struct dirent *e)
{
	struct stat st;

	if (e->d_type != DT_UNKNOWN)
		return e->d_type == DT_DIR;
	return fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode) &&
	       st.st_uid == getuid();
}

void site_runs_list(struct site_runs *r, const char *folder, const char *site_dir)
{
	cleanup_free char *path = xasprintf("%s/%s", folder, SWEEP_RUNS_DIR);
	cleanup_strbuf struct strbuf href = STRBUF_INIT;
	size_t alloc = 0;
	struct stat st;
	struct dirent *e;
	DIR *d;
	int fd;

	memset(r, 0, sizeof(*r));
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		r->listed = errno == ENOENT; /* no run folder left: no link */
		return;
	}
	if (fstat(fd, &st) < 0 || site_dir_refusal(st.st_uid, st.st_mode, getuid()) ||
	    !(d = fdopendir(fd))) {
		close(fd);
		return;
	}
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || !is_folder(fd, e))
			continue;
		if (r->n == alloc)
			r->v = xrealloc(r->v, (alloc = alloc ? 2 * alloc : 256) * sizeof(*r->v));
		r->v[r->n++] = xstrdup(e->d_name);
	}
	closedir(d);
	if (r->n)
		qsort(r->v, r->n, sizeof(*r->v), by_name);
	site_relative_href(site_dir, path, &href);
	r->href = strbuf_detach(&href, NULL);
	r->listed = true;
}

int site_runs_href(const struct site_runs *r, const char *run_dir, struct strbuf *out)
{
	size_t n = strlen(SWEEP_RUNS_DIR);
	const char *name = run_dir + n + 1;

	if (!r->listed || strncmp(run_dir, SWEEP_RUNS_DIR "/", n + 1) || strchr(name, '/'))
		return -1;
	if (!r->n || !bsearch(&name, r->v, r->n, sizeof(*r->v), by_name))
		return 0;
	strbuf_addf(out, "%s/%s", r->href, name);
	return 1;
}

void site_runs_release(struct site_runs *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->v[i]);
	free(r->v);
	free(r->href);
	memset(r, 0, sizeof(*r));
}

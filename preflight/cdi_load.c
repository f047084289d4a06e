/* Finding the AMD GPU CDI spec in the spec dirs and completing its device
 * nodes from the host (preflight/cdi.h): the I/O half of cdi.c. */
#include "preflight/cdi.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "common/cleanup.h"
#include "common/fsutil.h"
#include "common/strbuf.h"
#include "common/xalloc.h"

#define CDI_SPEC_MAX (4u << 20)

/* A node that names no major/minor is the host's node at hostPath (or
 * path): what the engine would stat too. One that is missing stays -1. */
static void complete_nodes(struct cdi_node *nodes, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct stat st;

		if (nodes[i].major >= 0 && nodes[i].minor >= 0)
			continue;
		if (stat(nodes[i].host_path ? nodes[i].host_path : nodes[i].path, &st) < 0 ||
		    !S_ISCHR(st.st_mode))
			continue;
		nodes[i].major = (long)major(st.st_rdev);
		nodes[i].minor = (long)minor(st.st_rdev);
	}
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The *.json files of dir, sorted. */
static void spec_files(const char *dir, struct strvec *out)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t first = out->n;

	if (!d)
		return;
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);

		if (len > 5 && !strcmp(de->d_name + len - 5, ".json"))
			strvec_pushf(out, "%s/%s", dir, de->d_name);
	}
	closedir(d);
	qsort(out->v + first, out->n - first, sizeof(*out->v), by_name);
}

int cdi_load(const char *dirs, struct cdi_spec *out, struct error *err)
{
	cleanup_strvec struct strvec files = STRVEC_INIT;
	cleanup_free char *copy = xstrdup(dirs);
	char *save = NULL;

	for (char *dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":", &save))
		spec_files(dir, &files);
	for (size_t i = 0; i < files.n; i++) {
		cleanup_strbuf struct strbuf text = STRBUF_INIT;

		if (fs_read_small_file(files.v[i], CDI_SPEC_MAX, &text, ERROR_DISCARD) < 0)
			continue;
		if (cdi_spec_parse(text.buf, text.len, files.v[i], out, ERROR_DISCARD) < 0 ||
		    strcmp(out->kind, CDI_KIND_AMD_GPU)) {
			cdi_spec_release(out);
			continue;
		}
		complete_nodes(out->nodes, out->n_nodes);
		for (size_t j = 0; j < out->n_devices; j++)
			complete_nodes(out->devices[j].nodes, out->devices[j].n_nodes);
		return 0;
	}
	return error_set(err, ERR_NOT_FOUND, 0, "no CDI spec of kind %s in %s", CDI_KIND_AMD_GPU,
			 dirs);
}

#include "orchestrator/replay/overlay.h"
#include "common/cleanup.h"
#include "common/xalloc.h"

#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool is_executable_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static char *search_path(const char *name)
{
	const char *path = getenv("PATH");

	while (path && *path) {
		size_t len = strcspn(path, ":");
		char *cand = xasprintf("%.*s/%s", (int)len, path, name);

		if (len && is_executable_file(cand))
			return cand;
		free(cand);
		path += len;
		if (*path)
			path++;
	}
	return NULL;
}

int overlay_resolve(const struct overlay_sources *o, struct overlay_paths *ov, struct error *err)
{
	char real[PATH_MAX];
	cleanup_free char *cand = NULL;

	if (o->host_playback) {
		if (!is_executable_file(o->host_playback))
			return error_set(err, ERR_NOT_FOUND, 0,
					 "--mount-clr: HRR_PLAYBACK=%s is not an executable file",
					 o->host_playback);
		cand = xstrdup(o->host_playback);
	} else {
		cand = xasprintf("%s/bin/hrr-playback", o->rocm_path);
		if (!is_executable_file(cand)) {
			free(cand);
			cand = search_path("hrr-playback");
		}
		if (!cand)
			return error_set(err, ERR_NOT_FOUND, 0,
					 "--mount-clr: no host hrr-playback (set HRR_PLAYBACK, or install it as %s/bin/hrr-playback or on PATH)",
					 o->rocm_path);
	}
	if (!realpath(cand, real))
		return error_errno(err, "--mount-clr: %s", cand);
	ov->host_playback = xstrdup(real);

	if (o->clr_lib) {
		if (!is_dir(o->clr_lib))
			return error_set(err, ERR_NOT_FOUND, 0,
					 "--mount-clr: CLR_LIB=%s is not a directory", o->clr_lib);
		ov->clr_lib = realpath(o->clr_lib, NULL);
	} else if (o->clr_build) {
		cleanup_free char *dir = xasprintf("%s/hipamd/lib", o->clr_build);

		if (!is_dir(dir))
			return error_set(err, ERR_NOT_FOUND, 0,
					 "--mount-clr: %s (from CLR_BUILD) is not a directory; set CLR_LIB",
					 dir);
		ov->clr_lib = realpath(dir, NULL);
	} else {
		cleanup_free char *copy = xstrdup(ov->host_playback);
		cleanup_free char *dir = xasprintf("%s/../lib", dirname(copy));

		if (!is_dir(dir))
			return error_set(err, ERR_NOT_FOUND, 0,
					 "--mount-clr: no libamdhip64 directory next to %s (%s); set CLR_LIB or CLR_BUILD",
					 ov->host_playback, dir);
		ov->clr_lib = realpath(dir, NULL);
	}
	if (!ov->clr_lib)
		return error_errno(err, "--mount-clr: library directory");
	if (o->rocr_lib) {
		if (!is_dir(o->rocr_lib))
			return error_set(err, ERR_NOT_FOUND, 0,
					 "--mount-clr: ROCR_LIB=%s is not a directory", o->rocr_lib);
		ov->rocr_lib = realpath(o->rocr_lib, NULL);
	}
	return 0;
}


/* The site's folder, DIR of `history site DIR`: checked like a sweep
 * folder (the caller's, not a symlink, not writable by group or others)
 * and written through a manifest (.hrr-site-manifest) of the files this
 * tool wrote there: only those are ever replaced or removed; a page whose
 * content did not change is not rewritten. */
#ifndef HRR_REPORT_SITE_DIR_H
#define HRR_REPORT_SITE_DIR_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

#define SITE_MANIFEST ".hrr-site-manifest"

struct site_file {
	char *name;
	uint64_t hash;
};

struct site_dir {
	int fd;
	char *path;                  /* canonical */
	struct site_file *old, *now; /* the manifest read, the files of this run */
	size_t n_old, n_now, alloc_now;
	size_t written, kept, removed;
};

/* Create DIR (0755, parents too) or check the existing one; read its
 * manifest. A refusal is ERR_USAGE with a one-line message naming DIR. */
int site_dir_open(struct site_dir *d, const char *path, struct error *err)
	__attribute__((warn_unused_result));
/* Write name (a plain file name) unless the manifest says it already has
 * this content; refused when name exists and this tool did not write it. */
int site_dir_write(struct site_dir *d, const char *name, const char *data, size_t len,
		   struct error *err) __attribute__((warn_unused_result));
/* Remove what the last run wrote and this one did not, write the manifest. */
int site_dir_finish(struct site_dir *d, struct error *err) __attribute__((warn_unused_result));
void site_dir_release(struct site_dir *d);

/* Pure: whether a directory of uid `owner` and mode `mode` may be written
 * by user `uid` (NULL) or why not. */
const char *site_dir_refusal(unsigned owner, unsigned mode, unsigned uid);

#endif

/* Small-file I/O shared by every module: manifests, sysfs attributes,
 * version files, caches and the run folder's files are all small, and the
 * inputs untrusted enough that a FIFO or a huge file must not hang or
 * exhaust us. */
#ifndef HRR_COMMON_FSUTIL_H
#define HRR_COMMON_FSUTIL_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "common/error.h"
#include "common/strbuf.h"

/* Append the content of the regular file at path to out, at most max_bytes.
 * Missing: ERR_NOT_FOUND; not a regular file: ERR_DATA; larger than
 * max_bytes: ERR_LIMIT. On error out is left as it was. */
int fs_read_small_file(const char *path, size_t max_bytes, struct strbuf *out,
		       struct error *err);
/* The same from an open descriptor (read from where it stands); path
 * names it in errors. */
int fs_read_fd(int fd, const char *path, size_t max_bytes, struct strbuf *out,
	       struct error *err);

/* The regular file at path opened for reading a line at a time, as
 * fs_read_small_file opens it (a FIFO planted there never blocks the
 * open; anything but a regular file is ERR_DATA). NULL on failure. */
FILE *fs_open_regular(const char *path, struct error *err);
/* fs_read_small_file for a cache entry: refused (ERR_DATA) when path is a
 * symlink, not a regular file, not the caller's, or writable by group or
 * others: someone else's file must not steer what this tool does. */
int fs_read_private_file(const char *path, size_t max_bytes, struct strbuf *out,
			 struct error *err) __attribute__((warn_unused_result));

/* write(2) until done, retrying on EINTR. */
int fs_write_all(int fd, const char *data, size_t len);

/* mkdir -p: parents 0755, the last component with mode. Existing is fine. */
int fs_mkdir_p(const char *path, mode_t mode, struct error *err);

/* Replace path's content: written to a temporary beside it (created O_EXCL,
 * unpredictable name, no link followed, fsynced) and renamed, so a reader
 * never sees half a file and a symlink planted at path is replaced, not
 * followed. Until the rename, an earlier file at path is untouched. */
int fs_write_atomic(const char *path, const char *data, size_t len, mode_t mode,
		    struct error *err);
/* Its temporary, for a file written as it is produced: the descriptor
 * (open for writing) and *tmp, its name (caller frees; NULL on failure).
 * The caller fsyncs, closes and renames it over path. */
int fs_atomic_tmp(const char *path, mode_t mode, char **tmp, struct error *err)
	__attribute__((warn_unused_result));

/* A directory only the caller may use (a per-user cache): created 0700 when
 * missing; refused (ERR_USAGE) when it is a symlink, belongs to another
 * uid or is open to group or others. */
int fs_private_dir(const char *path, struct error *err) __attribute__((warn_unused_result));

/* An absolute path (a relative one is taken from "/") lexically: collapse "//", drop ".", and let ".." remove the component
 * before it ("/.." is "/"). Exact for a path whose existing part is
 * already canonical (realpath) and whose rest does not exist yet: that is
 * what mkdir -p would create. Appends to out. */
void fs_path_normalize(const char *path, struct strbuf *out);

#endif

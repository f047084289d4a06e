/* Small-file I/O shared by every module: manifests, sysfs attributes,
 * version files, caches and the run folder's files are all small, and the
 * inputs untrusted enough that a FIFO or a huge file must not hang or
 * exhaust us. */
#ifndef HRR_COMMON_FSUTIL_H
#define HRR_COMMON_FSUTIL_H

#include <stddef.h>
#include <sys/types.h>

#include "common/error.h"
#include "common/strbuf.h"

/* Append the content of the regular file at path to out, at most max_bytes.
 * Missing: ERR_NOT_FOUND; not a regular file: ERR_DATA; larger than
 * max_bytes: ERR_LIMIT. On error out is left as it was. */
int fs_read_small_file(const char *path, size_t max_bytes, struct strbuf *out,
		       struct error *err);

/* write(2) until done, retrying on EINTR. */
int fs_write_all(int fd, const char *data, size_t len);

/* mkdir -p: parents 0755, the last component with mode. Existing is fine. */
int fs_mkdir_p(const char *path, mode_t mode, struct error *err);

/* Replace path's content: written to a temporary beside it and renamed, so
 * a reader never sees half a file. */
int fs_write_atomic(const char *path, const char *data, size_t len, mode_t mode,
		    struct error *err);

#endif

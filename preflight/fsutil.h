/* Bounded file reading shared by the preflight module: manifests, sysfs
 * attributes, version files and the stack cache are all small, and all
 * untrusted enough that a FIFO or a huge file must not hang or exhaust us. */
#ifndef HRR_PREFLIGHT_FSUTIL_H
#define HRR_PREFLIGHT_FSUTIL_H

#include <stddef.h>

#include "common/error.h"
#include "common/strbuf.h"

/* Append the content of the regular file at path to out, at most max_bytes.
 * Missing: ERR_NOT_FOUND; not a regular file: ERR_DATA; larger than
 * max_bytes: ERR_LIMIT. On error out is left as it was. */
int preflight_read_small_file(const char *path, size_t max_bytes, struct strbuf *out,
			      struct error *err);

#endif

/* A whole file's content, streamed and never held: its FNV-1a 64 digest,
 * and an atomic copy that hashes what it wrote. Code objects and archives
 * can be large; the digest is what names them in fingerprints. */
#ifndef HRR_COMMON_FILE_CONTENT_H
#define HRR_COMMON_FILE_CONTENT_H

#include <sys/types.h>

#include "common/error.h"

/* Fold the content of the regular file at path into *h (text_fnv1a64).
 * Missing: ERR_NOT_FOUND; not a regular file: ERR_DATA. */
int file_content_digest(const char *path, unsigned long long *h, struct error *err)
	__attribute__((warn_unused_result));

/* Copy the regular file src to dst (fs_write_atomic's way: a temporary
 * beside dst, fsynced, renamed) and set *h to the FNV-1a 64 digest of what
 * was written, so the caller can check the copy is the content it checked
 * before. */
int file_content_copy(const char *src, const char *dst, mode_t mode, unsigned long long *h,
		      struct error *err) __attribute__((warn_unused_result));

/* The same from a descriptor already open on a regular file, read from
 * its start whatever its offset (src names it in errors): the bytes a
 * caller checked through that descriptor, not whatever a path holds now. */
int file_content_digest_fd(int fd, const char *path, unsigned long long *h,
			   struct error *err) __attribute__((warn_unused_result));
int file_content_copy_fd(int fd, const char *src, const char *dst, mode_t mode,
			 unsigned long long *h, struct error *err)
	__attribute__((warn_unused_result));

#endif

/* Ownership before trust (docs/security.md "What is trusted"): on a host
 * several users share, a directory or file steers what this tool does only
 * when the caller owns it, it is not a symlink, and nobody else may write
 * it. A directory others may write is accepted only where the caller asks
 * for it and it is sticky (like /tmp): others can add entries but not
 * rename or remove the caller's.
 *
 * Every check opens the object (O_NOFOLLOW, O_NONBLOCK) and looks at what
 * was opened, so the answer is about the object used, not about a name
 * that may be swapped afterwards. Refusals are ERR_DATA with one line
 * naming the path and what is wrong; callers turn a path that came from an
 * option or a variable into ERR_USAGE. */
#ifndef HRR_COMMON_OWNED_H
#define HRR_COMMON_OWNED_H

#include <stdbool.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "common/error.h"

enum owned_flags {
	/* Writable by others is fine when sticky and owned by the caller
	 * or root (a team's shared sweeps/, /run/lock). */
	OWNED_STICKY_SHARED = 1 << 0,
	/* Owned by root is as good as by the caller (root made it for
	 * everyone: a tmpfiles.d lock directory). */
	OWNED_ROOT_OK = 1 << 1,
};

/* What is wrong with st for the caller, or NULL when it may be trusted
 * ("belongs to uid 1001", "is writable by others and not sticky"). */
const char *owned_problem(const struct stat *st, unsigned flags);

/* Open the directory path (no symlink as its last component) and check
 * it; the descriptor (O_DIRECTORY, O_CLOEXEC) or -1 with err naming
 * `what` and path. */
int owned_dir_open(const char *path, const char *what, unsigned flags, struct error *err)
	__attribute__((warn_unused_result));

/* Open name inside the directory dirfd: no symlink followed, no blocking
 * on a FIFO, a regular file only, the caller's and not writable by others.
 * flags are open(2)'s (O_CREAT allowed, mode then applies). */
int owned_openat(int dirfd, const char *dir_path, const char *name, int flags, mode_t mode,
		 struct error *err) __attribute__((warn_unused_result));

/* True when no component of the absolute path is a symlink. */
bool owned_path_has_no_symlink(const char *path);

/* rm -r of name inside dirfd by descriptors: every entry is removed with
 * unlinkat relative to its own directory's descriptor, directories are
 * entered with O_NOFOLLOW, so a directory swapped for a symlink mid-walk
 * is removed as a link, never followed. Only the caller's own directories
 * are entered. 0, or -1 with err naming the first entry left. */
int owned_remove_tree(int dirfd, const char *name, struct error *err)
	__attribute__((warn_unused_result));

#endif

/* A file read only when nobody but those trusted could have written it
 * (docs/security.md "What is trusted"): the known-issues file, whose rules
 * mark failures known and whose owners receive alarms. The file is opened
 * once (O_NOFOLLOW, O_NONBLOCK) and everything checked is about what was
 * opened: the file's owner and mode by fstat, then every directory from
 * its own up to / through "..", so a planted file, a symlink, or a
 * directory someone else can write on the way is refused. */
#ifndef HRR_COMMON_OWNED_FILE_H
#define HRR_COMMON_OWNED_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "common/error.h"
#include "common/strbuf.h"

enum owned_file_rule {
	/* The caller's own file: the file and its directory the caller's and
	 * not writable by others (the history database's rule); above it,
	 * directories of the caller or root, others' writes only where sticky. */
	OWNED_FILE_MINE,
	/* A file someone shares: any owner, but nobody else may write it or
	 * a directory above it (each directory the caller's, root's or the
	 * file owner's; others' writes only where sticky, by root or the
	 * caller). */
	OWNED_FILE_SHARED,
};

/* Read path whole into out (at most max bytes) after the checks of rule;
 * *st the opened file's (owner for the caller to weigh). Missing:
 * ERR_NOT_FOUND; refused: ERR_DATA, one line naming path and why. */
int owned_file_read(const char *path, enum owned_file_rule rule, size_t max,
		    struct strbuf *out, struct stat *st, struct error *err)
	__attribute__((warn_unused_result));

#endif

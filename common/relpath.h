/* Relative paths an untrusted record may name (a results line's run_dir):
 * only a plain path below the directory it is relative to. */
#ifndef HRR_COMMON_RELPATH_H
#define HRR_COMMON_RELPATH_H

#include <stdbool.h>

/* True for "runs/pid-1-20261130T000000Z-abcdef": not empty, not absolute,
 * no empty, "." or ".." component, and only letters, digits and "._+-"
 * between the slashes, so it can be neither a URL ("javascript:...") nor a
 * way out of the directory. */
bool relpath_plain_below(const char *path);

#endif

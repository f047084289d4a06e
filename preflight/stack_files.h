/* The replay stack's versions from what names them: library file names,
 * HIP's version file, and a host CLR overlay directory. Pure but for
 * overlay_stack_probe, which reads the host directory it is given. */
#ifndef HRR_PREFLIGHT_STACK_FILES_H
#define HRR_PREFLIGHT_STACK_FILES_H

#include "common/error.h"
#include "preflight/preflight.h"

#define STACK_HIP_LIB "libamdhip64.so"
#define STACK_COMGR_LIB "libamd_comgr.so"
/* Real chains are 2-3 links (libamdhip64.so -> .so.7 -> .so.7.x.y-hash). */
#define STACK_MAX_HOPS 16

/* Runtime-only images may lack the unversioned development symlink: the
 * loader opens the soname, so look for those too. NULL-terminated. */
extern const char *const stack_hip_names[];
extern const char *const stack_comgr_names[];

/* The version in a library file name: name
 * "libamdhip64.so.7.15.26291-2ed46569ce" with prefix "libamdhip64.so." ->
 * "7.15.26291" (the hash dropped, at most three numbers); NULL unless at
 * least min_nums numbers follow the prefix. */
char *stack_version_from_name(const char *name, const char *prefix, int min_nums);
/* How many version numbers a library name carries: ranks chain members. */
int stack_name_version_count(const char *name, const char *prefix);
/* /opt/rocm/share/hip/version (HIP_VERSION_MAJOR/MINOR/PATCH=N lines) ->
 * "X.Y.Z"; NULL unless all three are there. */
char *stack_hip_version_file_parse(const char *text);
/* A symlink target resolved against the link's directory, lexically:
 * inside an image there is nothing local to stat "." or ".." against. */
char *stack_link_resolve(const char *link_path, const char *target);
const char *stack_base_name(const char *path);

/* The host CLR overlay: HIP version from the libamdhip64.so.X.Y.Z... file
 * name in clr_lib_dir (following symlinks), comgr likewise if present.
 * out (initialised) is replaced; a missing dir is ERR_NOT_FOUND, a dir
 * without the library leaves the version NULL with unknown_reason set. */
int overlay_stack_probe(const char *clr_lib_dir, struct stack_info *out, struct error *err);

#endif

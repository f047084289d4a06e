/* Where a run's files go: the workdir and one folder per replay. */
#ifndef HRR_REPLAY_RUN_FOLDER_H
#define HRR_REPLAY_RUN_FOLDER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "common/error.h"

/* 6 random hex digits. */
void run_id_new(char out[7]);

/* The workdir: opts value, else $TMPDIR/hrr-docker-replay-<uid> (0700,
 * created; refused when owned by someone else). Refused when it lies inside
 * any of the archive paths. *out: caller frees (canonical). */
__attribute__((warn_unused_result))
int workdir_prepare(const char *requested, const char *const *archive_paths, size_t n,
		    char **out, struct error *err);
/* <workdir>/<pid-name>-<stamp>-<run id>, created 0755. */
__attribute__((warn_unused_result))
int run_folder_create(const char *workdir, const char *pid_name, const char *run_id,
		      char **out, struct error *err);

#endif

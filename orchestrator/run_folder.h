/* Where a run's files go, and the identity labels that let `gc` find
 * containers whose orchestrator died. */
#ifndef HRR_ORCHESTRATOR_RUN_FOLDER_H
#define HRR_ORCHESTRATOR_RUN_FOLDER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "common/error.h"

/* 6 random hex digits. */
void run_id_new(char out[7]);
/* "YYYYmmddTHHMMSSZ" for now, UTC. */
void utc_stamp(char *out, size_t len);
/* ISO 8601 UTC with milliseconds, for run.json. */
void utc_iso(char *out, size_t len);

/* The start time of process pid (clock ticks since boot, /proc/<pid>/stat
 * field 22), 0 when the process does not exist. Together with the pid it
 * tells a live orchestrator from a recycled pid. */
unsigned long long process_start_ticks(pid_t pid);
/* "<host>:<pid>:<start ticks>" of this process (caller frees). */
char *owner_label_self(void);
/* Pure: split an owner label. */
int owner_label_parse(const char *label, char *host, size_t hostlen, pid_t *pid,
		      unsigned long long *start);

/* The workdir: opts value, else $TMPDIR/hrr-docker-replay-<uid> (0700,
 * created; refused when owned by someone else). Refused when it lies inside
 * any of the archive paths. *out: caller frees (canonical). */
int workdir_prepare(const char *requested, const char *const *archive_paths, size_t n,
		    char **out, struct error *err);
/* <workdir>/<pid-name>-<stamp>-<run id>, created 0755. */
int run_folder_create(const char *workdir, const char *pid_name, const char *run_id,
		      char **out, struct error *err);

#endif

/* The option table, shared by the parser (options.c) and the help
 * (options_help.c): one row per option, its env twin and the commands
 * that take it. Internal to the command layer. */
#ifndef HRR_ORCHESTRATOR_OPTIONS_TABLE_H
#define HRR_ORCHESTRATOR_OPTIONS_TABLE_H

#include <stdbool.h>
#include <stddef.h>

#include "orchestrator/options.h"

enum option_id {
	OPT_IMAGE = 1000,
	OPT_ARCHIVE,
	OPT_WORKDIR,
	OPT_OUTPUT,
	OPT_FORMAT,
	OPT_GPU,
	OPT_PULL,
	OPT_TIMEOUT,
	OPT_PROGRESS_TIMEOUT,
	OPT_STOP_GRACE,
	OPT_PROGRESS_SECONDS,
	OPT_NO_SYNC,
	OPT_MOUNT_CLR,
	OPT_PLAYBACK,
	OPT_EXTRA_LD,
	OPT_ENV,
	OPT_CAP_ADD,
	OPT_YES,
	OPT_SKIP_PREFLIGHT,
	OPT_STRICT_VERSION,
	OPT_STRICT_ARCH,
	OPT_KEEP,
	OPT_DEVICE_ROOT,
	OPT_SYSFS_ROOT,
	OPT_QUIET,
	OPT_VERBOSE,
	OPT_VERSION,
	OPT_HELP,
	OPT_ALL,
	OPT_LOG,
	OPT_ALL_USERS,
	OPT_SECCOMP,
	OPT_AS_ROOT,
	OPT_MEMORY,
	/* sweep, history, leases: applied by orchestrator/sweep_options.c */
	OPT_PLAN,
	OPT_LABEL,
	OPT_BASELINE,
	OPT_GPUS,
	OPT_JOBS,
	OPT_RETRY_FAILED,
	OPT_GPU_WAIT,
	OPT_DB,
	OPT_JUNIT,
	OPT_HTML,
	OPT_SUMMARY,
	OPT_RESUME,
	OPT_STATUS,
	OPT_SHARD,
	OPT_FAIL_ON,
	OPT_CASE,
	OPT_LAST,
	OPT_KEEP_LAST,
	OPT_DIAGNOSE,
	OPT_DIAGNOSE_TIMEOUT,
	OPT_ENGINE,
	OPT_SLURM,
	OPT_SLURM_OPT,
	OPT_SLURM_TASKS,
	OPT_SLURM_MAX_RUNNING,
	OPT_WAIT,
	OPT_MERGE,
	OPT_SHARD_CASES,
};

/* Which commands take an option. */
#define FOR_RUN (1u << CMD_RUN)
#define FOR_PREFLIGHT (1u << CMD_PREFLIGHT)
#define FOR_GC (1u << CMD_GC)
#define FOR_ANALYZE (1u << CMD_ANALYZE)
#define FOR_SWEEP (1u << CMD_SWEEP)
#define FOR_HISTORY (1u << CMD_HISTORY)
#define FOR_REPLAY (FOR_RUN | FOR_PREFLIGHT)
#define FOR_ALL (FOR_RUN | FOR_PREFLIGHT | FOR_GC | FOR_ANALYZE)

struct option_def {
	enum option_id id;
	const char *name;
	char short_name;
	const char *arg;  /* NULL: a flag */
	const char *env;  /* the env twin, or NULL */
	unsigned commands;
	const char *help;
};

extern const struct option_def option_table[];
extern const size_t option_table_size;

/* Whether cmd takes d: a sweep takes every run option but --gpu and -o
 * (each case gets them), plus its own. */
bool option_applies(const struct option_def *d, enum command cmd);

#endif

/* Command-line options and their environment twins (docs/cli.md).
 * One table drives parsing, the env fallbacks and --help, so they cannot
 * drift apart. Parsing is pure: the environment comes in as a lookup. */
#ifndef HRR_CLI_OPTIONS_H
#define HRR_CLI_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"
#include "common/strbuf.h"
#include "common/strvec.h"
#include "orchestrator/diagnosis/diag_plan.h"
#include "orchestrator/replay/image.h"
#include "orchestrator/replay/kernel_replace.h"
#include "orchestrator/replay/playback_args.h"
#include "orchestrator/cli/command_ids.h"
#include "orchestrator/cli/option_values.h"
#include "preflight/cdi.h"
#include "orchestrator/seccomp/seccomp_profile.h"
#include "orchestrator/cli/sweep_options.h"
#include "preflight/topology.h"

enum output_format { FORMAT_MARKDOWN = 0, FORMAT_JSON };

/* --engine: the engine DOCKER_HOST names (or the one found without it),
 * or a rootless Podman service started for this invocation alone. */
enum engine_mode { ENGINE_MODE_AUTO = 0, ENGINE_MODE_PODMAN_SERVICE };

/* --log-limit's default: 1 GiB of replay.log per case. */
#define OPTIONS_LOG_LIMIT_DEFAULT (1LL << 30)

struct options {
	enum command command;
	char *image;
	char *archive;
	char *workdir;
	char *output;
	enum output_format format;
	int gpus[GPU_MAX];
	size_t n_gpus;            /* 0 = auto-pick */
	const char *gpus_from;    /* "--gpu" or "GPU" (the environment), for messages */
	enum pull_policy pull;
	long timeout_s;           /* 0 = none */
	long progress_timeout_s;  /* 0 = off */
	long stop_grace_s;
	long progress_seconds;
	enum diagnose_mode diagnose;   /* --diagnose / HRR_DIAGNOSE (docs/gpu-debug-tools.md) */
	long diagnose_timeout_s;       /* --diagnose-timeout: rocgdb's bound */
	bool no_sync;
	bool mount_clr;
	char *playback;           /* inside the image; NULL = found */
	struct strvec extra_ld;
	struct strvec env;        /* --env K=V, in order */
	struct strvec cap_add;
	struct playback_args playback_args; /* --playback-arg, checked */
	struct kernel_replacements replace_kernels; /* --replace-kernel, files checked */
	bool yes;
	bool skip_preflight;
	bool strict_version;
	bool strict_arch;
	bool keep;
	enum device_mode devices; /* --devices / HRR_DEVICES */
	char *device_root;
	char *sysfs_root;
	int verbosity;            /* -1 quiet, 0 normal, 1+ verbose */
	bool gc_all;
	bool gc_all_users;        /* gc --all-users (root only) */
	bool gc_pulled_images;    /* gc --pulled-images */
	long long gc_older_than_s; /* gc --older-than; 0: any age */
	struct seccomp_choice seccomp; /* --seccomp */
	bool as_root;             /* --as-root: the replay runs as root inside */
	long long memory_bytes;   /* --memory: the replay container's limit, 0 = none */
	long long log_limit_bytes; /* --log-limit: replay.log's bound, 0 = none */
	enum engine_mode engine_mode;
	struct strvec logs;       /* analyze --log, in order */
	bool want_help;           /* --help given: print the command's help */
	/* Overlay sources, env only (the shell workflow's names). */
	char *host_playback;      /* HRR_PLAYBACK */
	char *clr_lib;            /* CLR_LIB */
	char *clr_build;          /* CLR_BUILD */
	char *rocr_lib;           /* ROCR_LIB */
	char *rocm_path;          /* ROCM_PATH, default /opt/rocm */
	struct sweep_options sweep; /* sweep and history; --gpu-wait for run too */
	struct strvec hip_hrr_env; /* host HIP_HRR_* variables, "K=V" */
};

typedef const char *(*env_lookup_fn)(const char *name, void *ud);

void options_init(struct options *o);
void options_release(struct options *o);

/* Parse argv (argv[0] is the program; an optional subcommand follows) with
 * env as fallback for options not given. envp lists the whole environment
 * (for HIP_HRR_*), may be NULL. Usage errors: ERR_USAGE, one line naming
 * the input and what to do. */
__attribute__((warn_unused_result))
int options_parse(struct options *o, int argc, char **argv, env_lookup_fn env,
		  void *env_ud, char **envp, struct error *err);

/* The --help text for a command (CMD_RUN / CMD_PREFLIGHT / CMD_GC). */
void options_help(enum command cmd, struct strbuf *out);


#endif

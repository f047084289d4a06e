/* The replay plan: which GPUs, which devices, which mounts and environment
 * the replay container gets (docs/cli.md). Pure: everything the host or the
 * engine had to say is resolved by the caller and passed in. */
#ifndef HRR_REPLAY_REPLAY_PLAN_H
#define HRR_REPLAY_REPLAY_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "common/error.h"
#include "common/strbuf.h"
#include "common/strvec.h"
#include "docker/engine.h"
#include "orchestrator/containers/ours.h"
#include "orchestrator/replay/kernel_replace.h"
#include "orchestrator/replay/playback_args.h"
#include "preflight/topology.h"

#define VLLM_EXTRA_LD "/opt/python/lib/python3.13/site-packages/_rocm_sdk_core/lib"
#define OVERLAY_PLAYBACK "/opt/hrr/bin/hrr-playback"
#define OVERLAY_LIB "/opt/hrr/lib"
#define OVERLAY_ROCR "/opt/hrr/rocr"
#define ARCHIVE_MOUNT_ROOT "/arch"
#define REPLAY_PIDS_LIMIT 4096
#define REPLAY_LOG_MAX_BYTES (64LL << 20) /* sent as "64m" */
#define REPLAY_LOG_MAX_FILE "2"

struct plan_device {
	char *host_path;      /* <device-root>/kfd, <device-root>/dri/renderD128 */
	char *container_path; /* /dev/kfd, /dev/dri/renderD128 */
	gid_t gid;
};

/* The device nodes for the chosen GPUs: kfd, then each render node at its
 * host path (never renumbered). Paths only; gids are filled by the caller. */
void plan_devices(const char *device_root, const struct gpu_topology *host,
		  const int *chosen, size_t n_chosen, struct plan_device **out, size_t *n_out);
void plan_devices_free(struct plan_device *d, size_t n);

struct overlay_paths {
	char *host_playback;  /* the host hrr-playback binary */
	char *clr_lib;        /* dir holding libamdhip64.so* */
	char *rocr_lib;       /* NULL when not given */
};
void overlay_paths_release(struct overlay_paths *o);

/* What a replay is told, as the user gave it (docs/cli.md). */
struct replay_plan_knobs {
	const struct strvec *extra_ld;    /* --extra-ld; NULL/empty = the image's default */
	const struct strvec *hip_hrr_env; /* the host's HIP_HRR_* "K=V"; may be NULL */
	const struct strvec *env;         /* --env K=V, in order; may be NULL */
	const struct strvec *cap_add;     /* may be NULL */
	const struct playback_args *playback_args; /* after our own flags; may be NULL */
	/* Each mounted read-only at its digest's path (kernel_replace.h) and
	 * passed as --replace-kernel NAME=<that path>; may be NULL. */
	const struct kernel_replacements *replace_kernels;
	/* A hang-diagnostic run: rocgdb may attach (CAP_SYS_PTRACE). */
	bool allow_ptrace;
	/* The run folder's diagnostics/ on the host, mounted writable at
	 * DIAGNOSE_MOUNT (orchestrator/replay/diagnose.h); NULL = none. */
	const char *diagnostics_dir;
	long progress_seconds;
	long stop_grace_s;
	long long memory_bytes;           /* 0 = no limit */
	bool no_sync;
	bool timing;          /* hrr-playback --timing: the GPU-time lines (docs/perf.md) */
	bool keep;
};

/* The knobs of an agent rerun (docs/gpu-debug-tools.md): the plain run's,
 * with the agent's environment and the diagnostics mount, never kept, and
 * no ptrace: its capabilities and seccomp profile are a plain run's. */
void replay_plan_agent_knobs(const struct replay_plan_knobs *plain, const struct strvec *env,
			     const char *diagnostics_dir, struct replay_plan_knobs *out);

struct replay_plan_input {
	const struct replay_plan_knobs *knobs;
	const char *pid_dir;          /* absolute host path */
	const char *pid_name;         /* "pid-1234" */
	const char *image_ref;        /* as the user gave it (the label) */
	const char *image_id;         /* non-NULL: create from this ID (a pinned image) */
	const char *image_repository; /* "rocm/vllm" (for the default extra dirs) */
	const struct strvec *image_env; /* the image's Config.Env */
	const char *playback;         /* inside the container */
	const struct overlay_paths *overlay; /* NULL: no overlay */
	const struct plan_device *devices;
	size_t n_devices;
	/* Non-empty: the GPUs go by these CDI names, and of devices only
	 * their groups and /dev/kfd (unless kfd_from_cdi) are used. */
	const struct strvec *cdi_devices;
	bool kfd_from_cdi;
	size_t n_gpus;
	const char *run_id;
	const char *owner;            /* host:pid:start */
	const char *archive_label;    /* the archive path for the label */
	const char *user;             /* "uid:gid" inside; NULL = the image's */
	const char *seccomp_profile;  /* the profile's JSON; NULL = none of ours */
	const char *seccomp_opt;      /* "seccomp=unconfined" for SecurityOpt, or NULL */
};

/* Library dirs inside, in docs/cli.md's order (overlay, extra, /opt/rocm/lib,
 * the image's own LD_LIBRARY_PATH), without duplicates. extra_ld may be
 * NULL (the image's default). */
void plan_library_dirs(const struct strvec *extra_ld, const char *image_repository,
		       const struct strvec *image_env, bool overlay, struct strvec *out);
/* The dirs preflight searches for the image's own stack: extra, /opt/rocm/lib,
 * the image's LD_LIBRARY_PATH (no overlay). */
void plan_image_library_dirs(const struct strvec *extra_ld, const char *image_repository,
			     const struct strvec *image_env, struct strvec *out);

/* The value of KEY in a "K=V" list, or NULL. */
const char *env_list_get(const struct strvec *env, const char *key);

__attribute__((warn_unused_result))
int replay_plan_build(const struct replay_plan_input *in, struct container_spec *out,
		      struct error *err);
/* A question to the same hrr-playback, `--info` (the follow-up of a
 * replay whose log cannot name the kernel) or `--help` (which flags it
 * knows): the same image, labels, mounts, library path and hardening;
 * `<playback> /arch/<pid> <flag>`; no devices. */
void replay_plan_build_query(const struct replay_plan_input *in, const char *flag,
			     struct container_spec *out);

#endif

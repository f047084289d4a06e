/* What a host shares across its replays (replay_unit.h "Who does what"):
 * the engine connection, GPU topology, device root, workdir and cache,
 * owner label; and where a replay or its set-up stopped without a verdict
 * (the stage and one-line message of every such stop). */
#ifndef HRR_REPLAY_HOST_H
#define HRR_REPLAY_HOST_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"
#include "common/events.h"
#include "preflight/cdi.h"
#include "preflight/topology.h"

struct known_issues; /* orchestrator/finding/known_issues.h */

struct engine;

/* Where a replay (or the set-up before it) stopped without a verdict. */
enum replay_stage {
	REPLAY_STAGE_NONE = 0,  /* no error: a verdict, or preflight-only done */
	REPLAY_STAGE_USAGE,     /* "usage": options, environment variables */
	REPLAY_STAGE_ARCHIVE,   /* "archive": path, pid dirs, events.bin */
	REPLAY_STAGE_INPUT,     /* "input": a log given to analyze */
	REPLAY_STAGE_WORKDIR,   /* "workdir": workdir, run folder */
	REPLAY_STAGE_ENGINE,    /* "engine": connecting to the engine */
	REPLAY_STAGE_HOST,      /* "host": no AMD GPU (KFD topology), device nodes */
	REPLAY_STAGE_PULL,      /* "pull": the image is missing and could not be pulled */
	REPLAY_STAGE_IMAGE,     /* "image": inspect, hrr-playback lookup, overlay */
	REPLAY_STAGE_PREFLIGHT, /* "preflight": blocked, confirmation needed or declined */
	REPLAY_STAGE_REPLAY,    /* "replay": create/start failed, or interrupted */
	REPLAY_STAGE_RECORDS,   /* "records": the run folder's files could not be written */
};
const char *replay_stage_name(enum replay_stage s); /* "archive", ...; NULL for NONE */

/* A stop without a verdict: stage, exit code and the one-line message (the
 * one printed on stderr, without the program prefix). */
struct replay_failure {
	enum replay_stage stage;
	int exit_code;
	char msg[ERROR_MSG_MAX];
};
/* Record a failure and say it (ev's error); returns exit_code. */
int replay_fail(struct replay_failure *f, const struct job_events *ev, enum replay_stage stage,
		int exit_code, const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* Said on stderr and recorded in run.json (orchestrator.engine_limits). */
#define REPLAY_LIMITS_DROPPED \
	"the engine (rootless Podman on cgroup v1) does not apply the replay's pids and memory limits; the watchdog (--timeout, --progress-timeout) is its only bound"

struct replay_host {
	struct engine *engine;          /* one connection; NULL only for preflight without engine */
	struct gpu_topology topo;
	bool have_topo;                 /* false: host GPUs unknown, topo_error says why */
	char topo_error[ERROR_MSG_MAX];
	char *device_root;              /* "/dev" */
	char *workdir;                  /* canonical, prepared */
	char *cache_dir;                /* <workdir>/cache */
	char *owner;                    /* owner label of this process */
	/* The engine drops PidsLimit and Memory (rootless Podman on cgroup
	 * v1): the watchdog is the replay's only bound. */
	bool engine_drops_limits;
	enum device_mode devices;       /* --devices */
	/* `run --known-issues`: the rules each finding is matched against
	 * (finding.json's "known"); NULL: none. Set by the caller after
	 * replay_host_open; it outlives the host. */
	const struct known_issues *known;
	const struct job_events *events; /* the config's */
};

struct replay_host_config {
	const char *workdir;            /* NULL: $TMPDIR/hrr-docker-replay-<uid> */
	const char *const *archives;    /* refused as workdir parents */
	size_t n_archives;
	const char *device_root;        /* "/dev" */
	const char *sysfs_root;         /* "/sys" */
	bool need_gpu;                  /* no GPU = failure (run); else a preflight note */
	enum device_mode devices;       /* --devices (default auto) */
	int verbosity;
	const struct job_events *events; /* what the set-up says; NULL: nothing */
};

/* Prepare the workdir, connect to the engine (DOCKER_HOST), read the GPU
 * topology. Returns 0, else the exit code with f filled (stage workdir,
 * engine or host). h is usable for replay_host_release() either way. */
int replay_host_open(struct replay_host *h, const struct replay_host_config *cfg,
		     struct replay_failure *f) __attribute__((warn_unused_result));
void replay_host_release(struct replay_host *h);
/* The name results and known-issue rules know this host by: the Slurm
 * node name in a Slurm job (SLURMD_NODENAME), else gethostname's. */
void replay_host_name(char *buf, size_t n);

#endif

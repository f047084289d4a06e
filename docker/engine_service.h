/* --engine podman-service: a rootless Podman service of this invocation's
 * own, for a site (a Slurm task) that runs no engine daemon at all. It
 * listens on a private socket, DOCKER_HOST points every engine call of the
 * process at it, and it is stopped when the command ends. */
#ifndef HRR_DOCKER_ENGINE_SERVICE_H
#define HRR_DOCKER_ENGINE_SERVICE_H

#include <sys/types.h>

#include "common/error.h"
#include "common/events.h"

/* How long the service may take to answer its first ping. */
#define ENGINE_SERVICE_START_S 30.0
/* After SIGTERM, how long it may take to exit before SIGKILL. */
#define ENGINE_SERVICE_STOP_S 10.0

struct engine_service {
	pid_t pid;  /* 0: none running */
	char *dir;  /* private: the socket and the service's log */
	char *host; /* "unix://<dir>/podman.sock" */
};

/* Start `podman system service --time=0 unix://<dir>/podman.sock` (podman
 * from PATH; $HRR_PODMAN names another), in a process group of its own so
 * that a Ctrl-C meant for the replay does not stop the engine under it,
 * and wait until it answers; then DOCKER_HOST names it (said to ev when
 * verbosity > 0). ERR_CONNECT (with the end of its log) when it exits or
 * does not answer in time. */
int engine_service_start(struct engine_service *s, const struct job_events *ev, int verbosity,
			 struct error *err)
	__attribute__((warn_unused_result));
/* SIGTERM, then SIGKILL after ENGINE_SERVICE_STOP_S; removes its directory.
 * Safe on a service that never started. */
void engine_service_stop(struct engine_service *s);

#endif

/* A Docker engine of the tests' own (tests/private-dockerd.sh): its own
 * socket, data root, exec root and containerd, so a fault test can stop,
 * kill or restart it without disturbing the suites that share the main
 * engine. Root only. Setup failures abort the test (cr_assert). */
#ifndef HRR_TESTS_SUPPORT_PRIVATE_ENGINE_H
#define HRR_TESTS_SUPPORT_PRIVATE_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct private_engine {
	char *dir;   /* /tmp/hrr-pe-XXXXXX: short, containerd's sockets live in it */
	char *host;  /* "unix://<dir>/docker.sock": the DOCKER_HOST to use */
};

/* Start one in a fresh directory and copy images (NULL-terminated, may be
 * NULL) into it from the main engine. */
void private_engine_start(struct private_engine *pe, const char *const *images);
/* Start it again in the same directory (after private_engine_kill). */
void private_engine_restart(struct private_engine *pe);
/* dockerd's pid, 0 when none runs. */
pid_t private_engine_pid(const struct private_engine *pe);
/* Send dockerd a signal (SIGSTOP, SIGCONT, SIGKILL). SIGKILL waits until
 * it is gone. */
void private_engine_signal(struct private_engine *pe, int sig);
/* Whether GET /_ping answers 200 within timeout_ms: a raw request with a
 * deadline, so a stopped engine is a "no", not a hang. */
bool private_engine_answers(const struct private_engine *pe, int timeout_ms);
/* Stop it cleanly (SIGTERM); true when it exited and its socket is gone. */
bool private_engine_stop(struct private_engine *pe);
/* Stop it, unmount what it left and delete the directory. */
void private_engine_destroy(struct private_engine *pe);

/* A tmpfs of `bytes` mounted on a fresh scratch directory (root only), for
 * "the filesystem is full" tests; caller frees the path through
 * tmpfs_scratch_remove (unmount, rmdir, free). */
char *tmpfs_scratch(const char *tag, size_t bytes);
void tmpfs_scratch_remove(char *path);

#endif

/* Test helpers for the docker/ engine client: scratch directories, the
 * test image, and containers labelled per test process so that cleanup
 * never touches anything another test run created. Setup failures abort
 * the test (cr_assert). */
#ifndef HRR_TESTS_SUPPORT_ENGINE_TEST_H
#define HRR_TESTS_SUPPORT_ENGINE_TEST_H

#include <stdbool.h>

#include "tests/support/scratch.h"
#include <stddef.h>
#include <sys/types.h>

#include <cjson/cJSON.h>

#include "docker/engine.h"

/* The one image the engine tests run: FROM scratch with a static busybox
 * (/bin/sh, /bin/busybox and applet links). Commands always go through
 * /bin/sh or /bin/busybox explicitly. */
#define ENGINE_TEST_IMAGE test_image("sim")
#define ENGINE_TEST_LABEL_KEY "hrr-docker-replay.test"
#define ENGINE_TEST_REGISTRY "127.0.0.1:5000"
#define ENGINE_TEST_AUTH_REGISTRY "127.0.0.1:5001"
#define ENGINE_TEST_REG_USER "hrrtest"
#define ENGINE_TEST_REG_PASS "hrrtest-secret"

/* ---- files ---- */
void et_write(const char *path, const char *content, unsigned mode);
/* Decode an X-Registry-Auth value back to its JSON (caller deletes). */
cJSON *et_decode_auth(const char *header);
/* Run a shell command line; returns its exit status (-1 if it did not
 * run). Output goes to the test's stderr. */
int et_sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
long long et_now_ms(void);

/* Run one stream in a loop of its own to its end (10 s at most, else the
 * test fails); its result. */
int et_run_stream(struct engine_stream *s, struct error *err);

/* tests/token-registry.py in front of ENGINE_TEST_REGISTRY on a free port,
 * with args (its options after --upstream, NULL-ended); its port, *pid its
 * process (the caller kills it). */
int et_registry_front(const char *const *args, pid_t *pid);

/* ---- a real engine ---- */
struct engine *et_engine(void);
/* "hrr-docker-replay.test=engine-<pid>": this process's containers. */
const char *et_label(void);
/* A spec running `/bin/sh -c script` in ENGINE_TEST_IMAGE, labelled. */
void et_spec(struct container_spec *s, const char *script);
/* Create such a container (caller frees the id). */
char *et_create(struct engine *e, const char *script);
/* Make sure ENGINE_TEST_IMAGE exists (imports a busybox stand-in when
 * `make images` has not built it yet). */
void et_ensure_image(void);
/* Remove every container carrying et_label(); returns how many. */
int et_cleanup(void);
/* Remove containers left by engine test processes that no longer exist
 * (a crashed test cannot run its fini). */
void et_cleanup_stale(void);
/* Suite fixtures: image present and stale containers gone / cleanup. */
void et_suite_init(void);
void et_suite_fini(void);

#endif

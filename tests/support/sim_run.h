/* Helpers for testing the hrr-playback simulator itself: run a command
 * (the host-built simulator, or `docker run` of hrr-sim:dev through the
 * docker CLI) capturing its output and exit status, fake device nodes,
 * fixture paths and a tree hash to prove archives stay untouched.
 *
 * These tests exercise the simulator, not the engine client, so the docker
 * CLI is fine here; everything else talks to the engine through docker/. */
#ifndef HRR_TESTS_SIM_RUN_H
#define HRR_TESTS_SIM_RUN_H

#include <stdbool.h>

#include "tests/support/scratch.h"
#include "common//error.h"
#include "common/strbuf.h"
#include "common/strvec.h"

#define SIM_RUN_IMAGE test_image("sim")

struct sim_result {
	int status;         /* exit code, or 128 + signal */
	bool signaled;      /* the process itself died by a signal */
	bool timed_out;     /* killed by sim_run at the deadline */
	struct strbuf out;  /* stdout */
	struct strbuf err;  /* stderr */
	struct strbuf all;  /* both, in the order they were read */
	double seconds;
};

void sim_result_init(struct sim_result *r);
void sim_result_release(struct sim_result *r);

/* Run argv (argv[0] searched in PATH) with extra "K=V" environment entries
 * (NULL-terminated, may be NULL), no core dumps, stdin from /dev/null;
 * capture both streams; SIGKILL its process group after timeout_s. */
int sim_run(const char *const *argv, const char *const *env, double timeout_s,
	    struct sim_result *r, struct error *err);

/* The host-built simulator: $HRR_SIM_BIN, else build/sim/hrr-playback. */
const char *sim_host_binary(void);

/* Absolute path of a fixture: tests/fixtures/archives/<name>/capture.hrr,
 * or its single pid-* directory. Caller frees. NULL when missing. */
char *sim_fixture_root(const char *name);
char *sim_fixture_pid_dir(const char *name);

/* A scratch directory (mkdtemp) and its recursive removal. */
int sim_tmpdir(struct strbuf *path, struct error *err);
void sim_rmtree(const char *path);

/* <dir>/kfd (c 1 3) and <dir>/renderD<minor> (c 226 minor), made with
 * mknod (root only): what docker --device hands to a container. */
int sim_make_device_nodes(const char *dir, const unsigned *minors, size_t n,
			  struct error *err);

/* For running the simulator on the host without root or ROCm: <dir>/lib
 * with libamdhip64/hsa/comgr symlink chains (HIP 7.13.0, comgr 2.8) and
 * <dir>/dev with regular files kfd and dri/renderD<minor>. */
int sim_make_host_env(const char *dir, const unsigned *minors, size_t n,
		      struct error *err);

/* Hash of a tree: relative names, types, modes, sizes, mtimes, link
 * targets and file contents, in name order (hex digest into out). */
int sim_tree_hash(const char *dir, struct strbuf *out, struct error *err);

/* Copy a fixture's pid directory to <dst> (cp -a). */
int sim_copy_tree(const char *src, const char *dst, struct error *err);

/* Count the lines of text that start with prefix. */
size_t sim_count_lines(const char *text, const char *prefix);
/* The first line starting with prefix (without its newline), or false. */
bool sim_find_line(const char *text, const char *prefix, struct strbuf *line);
/* The last non-empty line. */
void sim_last_line(const char *text, struct strbuf *line);

/* The label of the containers this test process starts, "<key>=<pid>":
 * Criterion runs each test in a process of its own, and a teardown removes
 * only its own, never those of a test running beside it (--jobs 2). */
const char *sim_test_label(void);
/* argv for: docker run --rm --init --network none --ulimit core=0
 *   --label sim_test_label()
 *   [--device <devdir>/kfd:/dev/kfd --device <devdir>/renderD128:...]
 *   [-e each env] -v <pid_dir>:/arch/<basename>:ro SIM_RUN_IMAGE
 *   /opt/rocm/bin/hrr-playback /arch/<basename> <args...>
 * devdir NULL: no devices. env and args are NULL-terminated (may be NULL). */
void sim_docker_argv(struct strvec *argv, const char *devdir, const char *pid_dir,
		     const char *const *env, const char *const *args);

#endif

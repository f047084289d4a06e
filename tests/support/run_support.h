/* Helpers for end-to-end tests of the hrr-docker-replay binary against the
 * real engine and the simulator image. */
#ifndef HRR_TESTS_RUN_SUPPORT_H
#define HRR_TESTS_RUN_SUPPORT_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <cjson/cJSON.h>

#include "tests/support/scratch.h"
#include "common//strbuf.h"

#define SIM_IMAGE test_image("sim")
#define SIM_DEBUG_IMAGE test_image("sim-debug") /* the simulator with the GPU debuggers */

struct tool_run {
	int status;            /* exit code, or 128+signal */
	struct strbuf out;     /* stdout */
	struct strbuf err;     /* stderr */
	char *run_dir;         /* from the last "run folder:" line, or NULL */
	double seconds;
};

/* A scratch area per test: workdir, fake /dev with kfd and render nodes
 * 128 and 136 (mknod), matching tests/fixtures/sysfs/mi300x-2. */
struct test_env {
	char root[256];
	char workdir[300];
	char devroot[300];
	char sysfs[4200];
};

void test_env_setup(struct test_env *t);
void test_env_teardown(struct test_env *t);

/* The scratch area of the running test, and suite hooks around it: the
 * fini also checks that no container of the test's runs was left. */
extern struct test_env tenv;
void tenv_init(void);
/* tenv_init, plus render nodes 129..131 beside 128 and, in sysfs, the
 * path of the fixture whose four GPUs have those minors
 * (tests/fixtures/sysfs/mi300x-4). */
void tenv_init_four_gpus(char *sysfs, size_t len);
/* The scratch of a sweep suite on those four GPUs, under the test's root:
 * a lock directory, a history database and a capture library of its own,
 * and env = { "HRR_LOCK_DIR=<lockdir>", NULL } for tool_run, so no test
 * shares a GPU lease with anyone. */
struct tenv_sweep {
	char sysfs4[PATH_MAX + 64], lockdir[400], dbpath[400], library[400], lockenv[450];
	const char *env[2];
};
void tenv_init_sweep(struct tenv_sweep *sw);
void tenv_fini(void);
/* Headless Chromium on a file:// page, in the test's scratch area: its DOM
 * after parsing into dom (with png NULL) or a screenshot into png, its log
 * (console messages are its ":CONSOLE" lines) into log. Asserts it ran. */
void chromium_open(const char *page, const char *dom, const char *png, const char *log);
/* Skips the test, removing its scratch directory first: Criterion runs no
 * .fini after cr_skip_test, and the directory would stay behind in /tmp. */
__attribute__((noreturn)) void tenv_skip(const char *why);

/* The pid directory of a fixture scenario (absolute). Caller frees. */
char *fixture_pid_dir(const char *scenario);
/* The capture root of a fixture scenario (absolute). Caller frees. */
char *fixture_root(const char *scenario);

/* Replay a fixture on the simulator image in the running test's scratch
 * area (-q, --timeout timeout_s, --stop-grace 1); asserts the exit code and
 * returns finding.json (caller deletes; r is filled, release it). */
cJSON *run_fixture_finding(struct tool_run *r, const char *fixture, const char *timeout_s,
			   int want_code);
/* finding.json's outcome and fault class, and its kernel: none named when
 * prefix is NULL, else one starting with prefix. */
/* A string of o's "notes" array containing part. */
bool json_has_note(const cJSON *o, const char *part);

void assert_finding_verdict(const cJSON *f, const char *what, const char *outcome,
			    const char *fault_class, const char *kernel_prefix);

/* Run the built binary (HRR_BIN, default build/hrr-docker-replay) with
 * argv (NULL-terminated, without argv[0]); extra_env "K=V" entries are
 * added to (or replace in) the environment. */
void tool_run(struct tool_run *r, const char *const *argv, const char *const *extra_env);
/* The same with its own bound (tool_run's is 300 s): a sweep of many replays. */
void tool_run_within(struct tool_run *r, const char *const *argv, const char *const *extra_env,
		     double timeout_s);
/* Start it in the background (stdout/stderr to files under dir). */
pid_t tool_spawn(const char *const *argv, const char *const *extra_env, const char *dir);
/* Wait for a spawned tool; returns the exit code (128+sig when killed). */
int tool_wait(pid_t pid, double timeout_s);
void tool_run_release(struct tool_run *r);

/* A container like an image probe of this process (never started,
 * labelled probe and owner); its id (caller frees). */
struct engine;
char *create_probe_like(struct engine *e);
/* The pid of a process of ours that ran and is gone, and its start ticks:
 * an owner label naming it names a dead owner on this host. */
pid_t dead_pid(unsigned long long *start);

/* Run the tool on a pseudo-terminal (stdin and stderr; stdout into
 * stdout_path when given, else the terminal too), type answer when prompt
 * appears; the screen is kept in screen. Returns the exit status; fails the
 * test when the prompt never came. */
int tool_run_on_pty(const char *const *argv, const char *prompt, const char *answer,
		    const char *stdout_path, struct strbuf *screen);

/* <tenv.root>/capture.hrr/pid-4242: the pass fixture with a capture HIP
 * version the simulator image lacks (a preflight CONFIRM). out: its path. */
void make_mismatch_archive(char *out, size_t len);

/* Read a file into sb; false when missing. */
bool read_text(const char *path, struct strbuf *sb);
/* Parse <run_dir>/<name> as JSON (caller deletes), NULL when missing. */
cJSON *read_json(const char *run_dir, const char *name);
bool file_exists(const char *dir, const char *name);

/* A hash of a directory tree: names, modes, sizes, contents, mtimes. */
uint64_t tree_hash(const char *dir);

/* Containers of the runs whose folders are under workdir (a run folder is
 * <pid>-<stamp>-<run id>, created before its container), in any state.
 * Scoped so that a test never counts or removes anyone else's replay. */
int count_tool_containers(const char *workdir);
void remove_tool_containers(const char *workdir);
/* Poll until such a container exists; its id or NULL. */
char *wait_for_tool_container(const char *workdir, double timeout_s);
/* Poll until the file at path contains text. */
bool wait_for_text(const char *path, const char *text, double timeout_s);
/* Poll until path exists and is non-empty. */
bool wait_for_file(const char *path, double timeout_s);

#endif

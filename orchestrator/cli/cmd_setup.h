/* The command layer's set-up for `run` and `preflight`: from the parsed
 * options to a host, pinned image facts, the overlay and playback path,
 * the stack facts, and one replay description per pid directory. Below
 * this layer nothing sees `struct options`. */
#ifndef HRR_CLI_CMD_SETUP_H
#define HRR_CLI_CMD_SETUP_H

#include <stdbool.h>

#include "common/strbuf.h"
#include "common/strvec.h"
#include "orchestrator/cli/options.h"
#include "orchestrator/replay/image_setup.h"
#include "orchestrator/replay/replay_unit.h"

/* What every pid of one invocation shares. */
struct cmd_env {
	struct options *o;
	struct replay_host host;
	struct strvec pid_dirs;
	unsigned *format_versions;  /* per pid, from the one archive check */
	struct image_env image;     /* pinned facts, hrr-playback, stack (orchestrator/replay/image_setup.h) */
	struct overlay_paths overlay;
	bool use_overlay;
	int interrupt_fd;
	struct strvec run_dirs;
	struct strbuf output;       /* everything printed on stdout, for -o */
	bool output_ok;             /* -o's directory is writable */
	struct replay_failure failure; /* the last stop without a verdict */
};

void cmd_env_init(struct cmd_env *env, struct options *o);
void cmd_env_release(struct cmd_env *env);
/* -o's directory, archive, host, image, overlay, playback, stack: 0, or
 * the exit code with env->failure filled. for_run: a GPU is required,
 * signals are installed, a missing hrr-playback fails. */
__attribute__((warn_unused_result))
int cmd_setup(struct cmd_env *env, bool for_run);
/* What the options say of an image's set-up (orchestrator/replay/image_setup.h), for
 * `run`, `preflight` and each image of a sweep. */
struct image_setup cmd_image_setup(const struct options *o);
/* --mount-clr's sources: HRR_PLAYBACK, CLR_LIB, CLR_BUILD, ROCR_LIB, ROCM_PATH. */
struct overlay_sources cmd_overlay_sources(const struct options *o);

/* The replay description of pid i, from the options, with its manifest and
 * GPUs as the command read and chose them (once; both outlive d; NULL when
 * the job d is handed to reads and chooses them, as a run's does). */
void cmd_describe(const struct cmd_env *env, size_t i, const struct capture_manifest *capture,
		  const struct gpu_choice *gpus, struct replay_desc *d);
/* The environment variable --gpu's list came from ("GPU"), for messages;
 * NULL when it was --gpu. */
const char *cmd_gpus_from_env(const struct options *o);
/* The part of a description every replay of the options shares: limits,
 * what goes inside, preflight and confirmation policy, verbosity (a sweep's
 * worker starts from it, then applies its case). */
void cmd_describe_policy(const struct options *o, struct replay_desc *d);
/* Print on stdout now and keep for -o. */
void cmd_emit(struct cmd_env *env, const char *text, size_t len);
/* Say a replay's warnings (replay_unit_result.warnings) on stderr. */
void cmd_say_warnings(const struct strvec *warnings);
/* The exit code of several replays: the highest (docs/cli.md). */
int cmd_worst(int a, int b);
/* -o, written once and atomically after every pid (docs/cli.md). */
void cmd_output_write(const struct cmd_env *env);

#endif

/* One replay as a unit: everything from one pid directory to its run
 * folder and finding, callable many times in one process and from any
 * caller (the `run` and `preflight` commands, a sweep worker, a Slurm task,
 * a debugger run, the tests). See docs/design.md.
 *
 * Who does what
 *   The caller sets up what a host shares once (struct replay_host: engine
 *   connection, GPU topology, device root, workdir and cache, owner label)
 *   and what an image shares once (struct image_facts: pinned ID, env,
 *   repository; optionally the preflight stack facts and the playback path),
 *   then describes each replay (struct replay_desc) and calls
 *   replay_unit_run(). The unit does: preflight (manifest, GPU choice,
 *   rules, confirmation policy), run folder, device nodes, container spec,
 *   the replay under the watchdog, the classifier, the `--info` follow-up,
 *   and the records (run.json, preflight.md, finding.json, finding.md).
 *   It prints nothing on stdout: the finding comes back in the result and
 *   the caller decides where it goes. It prints progress and errors on
 *   stderr (prefixed, per verbosity) and echoes the live log unless quiet.
 *   The per-host types are replay_host.h's, the per-replay ones
 *   replay_desc.h's, the exit codes exit_codes.h's; the stages share the
 *   state of one run through unit_run.h.
 *
 * State
 *   No global state: no `struct options`, no signal handler state. The
 *   interrupt arrives as a file descriptor (the signal self-pipe's read end:
 *   one byte per signal, the byte is the signal number); -1 means none.
 *   Everything the unit allocates is released before it returns, except the
 *   result (replay_unit_result_release()).
 *
 * Concurrency
 *   One replay per process at a time: a parent that wants N replays at once
 *   forks N workers, each opens its own engine connection (replay_host_open)
 *   and calls replay_unit_run() once; GPUs are chosen by the parent (leases)
 *   and passed in desc.gpus. Sequential calls in one process (the `run`
 *   command over a multi-process capture, the tests) share one host.
 *
 * Exit codes and stages (docs/cli.md)
 *   The result carries the exit code the CLI would return for this replay,
 *   and on every path that ended without a verdict the stage that stopped it
 *   and the one-line message, for `--format json` ({"exit", "stage",
 *   "error", "run_dir"}). */
#ifndef HRR_REPLAY_REPLAY_UNIT_H
#define HRR_REPLAY_REPLAY_UNIT_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "common/error.h"
#include "common/strvec.h"
#include "orchestrator/replay/image.h"
#include "orchestrator/replay/image_setup.h"
#include "orchestrator/replay/exit_codes.h"
#include "orchestrator/replay/replay_desc.h"
#include "orchestrator/replay/replay_host.h"
#include "preflight/preflight.h"

struct engine;

/* Run one replay (or only its preflight). Returns the exit code, also in
 * out->exit_code. out is initialised here; release it with
 * replay_unit_result_release(). */
int replay_unit_run(const struct replay_host *host, const struct replay_desc *d,
		    struct replay_unit_result *out);

#endif

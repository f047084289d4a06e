/* What --diagnose asks for, and how the GPU debuggers are run
 * (docs/gpu-debug-tools.md): the decisions and the command lines, pure,
 * so the replay code only executes them. */
#ifndef HRR_FINDING_DIAG_PLAN_H
#define HRR_FINDING_DIAG_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"
#include "common/strbuf.h"
#include "common/strvec.h"

enum diagnose_mode { DIAGNOSE_OFF, DIAGNOSE_AUTO, DIAGNOSE_AGENT, DIAGNOSE_HANG, DIAGNOSE_ALL };

#define DIAGNOSE_ENV "HRR_DIAGNOSE"
#define DIAGNOSE_DEFAULT DIAGNOSE_AUTO
#define DIAGNOSE_TIMEOUT_DEFAULT_S 90
/* Under the agent a replay runs 3-5 times slower: its watchdog limits are
 * the plain run's times this. */
#define DIAGNOSE_AGENT_WATCHDOG_SCALE 4
#define DIAGNOSE_AGENT_LIB "librocm-debug-agent.so.2"
/* What the disassembly keeps around the faulting pc. */
#define DIAGNOSE_DISASSEMBLY_RADIUS 16

int diagnose_mode_parse(const char *s, enum diagnose_mode *out, struct error *err)
	__attribute__((warn_unused_result));
const char *diagnose_mode_name(enum diagnose_mode m);

/* The first run is an agent run (--diagnose agent). */
bool diagnose_agent_first(enum diagnose_mode m);
/* After a first run that ended with a GPU fault: rerun under the agent. */
bool diagnose_agent_rerun(enum diagnose_mode m, bool gpu_fault, bool image_has_agent);
/* Before the watchdog stops a hung plain run: run rocgdb. */
bool diagnose_rocgdb(enum diagnose_mode m, bool image_has_rocgdb, bool agent_run);
/* After a plain run that the watchdog stopped for a hang: rerun it under
 * the agent and send SIGQUIT before the stop (no ptrace, no capability). */
bool diagnose_agent_hang(enum diagnose_mode m, bool image_has_rocgdb);
/* That rerun's wall-clock limit: the first run's time to its stop, whole
 * seconds rounded up (at least 1). */
long diagnose_agent_hang_limit(double first_stop_s);
/* After a first run that the GPU's own hang detection ended (ROCr's HW
 * exception "GPU Hang", class gpu_hang): rerun it under the agent and send
 * SIGQUIT while it is stuck, before the driver resets the GPU. No rocgdb:
 * the process was gone before any watchdog of ours could attach one. */
bool diagnose_agent_gpu_hang(enum diagnose_mode m);
/* That rerun's limits. The agent prints waves on a wave's trap, a queue
 * error or SIGQUIT, never on a GPU reset (the reset takes the waves), so
 * SIGQUIT must come inside the window where the first run was silent
 * before the exception: quiet_s long, ending quiet_end_s after its start,
 * the run ending end_s after it. *progress_s: half that silence, to the
 * nearest second, at least 1 (1 as well when no silence led to the end);
 * *timeout_s: the first run's time to its end x4 (the agent slows the
 * replay), whole seconds. */
void diagnose_gpu_hang_limits(double end_s, double quiet_s, double quiet_end_s, long *timeout_s,
			      long *progress_s);
/* A silence that ended this close to the run's end led to it. */
#define DIAGNOSE_QUIET_LEADS_S 1.0
/* How long the agent gets to print its waves after SIGQUIT. */
#define DIAGNOSE_AGENT_QUIT_WAIT_S 5.0

/* The plain run's container gets CAP_SYS_PTRACE and ptrace in its seccomp
 * profile: only when rocgdb may run in it. */
bool diagnose_needs_ptrace(enum diagnose_mode m, bool image_has_rocgdb, bool agent_run);

enum diagnose_tool { DIAGNOSE_TOOL_AGENT, DIAGNOSE_TOOL_ROCGDB, DIAGNOSE_TOOL_OBJDUMP };

/* Where to look for a tool in an image whose Config.Env is env ("K=V"),
 * most likely first, without duplicates: the agent in LD_LIBRARY_PATH's
 * directories then /opt/rocm/lib; rocgdb in PATH then /opt/rocm/bin;
 * llvm-objdump in /opt/rocm/llvm/bin then PATH. Relative directories are
 * skipped (a container's working directory is not known). */
void diagnose_tool_candidates(const struct strvec *env, enum diagnose_tool tool,
			      struct strvec *paths);

/* The agent run's environment: HSA_TOOLS_LIB, ROCM_DEBUG_AGENT_OPTIONS
 * saving code objects into save_dir (a path inside the container), and
 * HSA_ENABLE_DEBUG=1 for older runtimes. */
void diagnose_agent_env(struct strvec *env, const char *save_dir);
/* A watchdog limit of the agent run (0 = none stays none). */
long diagnose_agent_limit(long plain_limit_s);

/* rocgdb's batch command line for pid: machine-interface records first,
 * then the human tables, then detach and quit. */
void diagnose_rocgdb_argv(struct strvec *argv, const char *rocgdb, long pid);

/* The lines of an llvm-objdump disassembly within radius instructions of
 * the instruction at offset (llvm-objdump prints "// <ADDR>: <words>" after
 * each). Appends them to out, the faulting one marked "=> "; -1 (ERR_DATA)
 * when no instruction is at offset. */
int diagnose_disassembly_window(const char *objdump, size_t len, unsigned long long offset,
				int radius, struct strbuf *out, struct error *err)
	__attribute__((warn_unused_result));
/* The offset of pc in its code object: pc minus the start of the agent's
 * "loaded at: [0xSTART-0xEND]". -1 when either does not parse or pc is
 * outside. */
int diagnose_pc_offset(const char *pc, const char *loaded_at, unsigned long long *offset);

#endif

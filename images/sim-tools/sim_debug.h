/* The simulator's two calls into its debug tools (docs/gpu-debug-tools.md),
 * so that hooking them into the replay loop takes two lines:
 *
 *   sim_debug_launch(kernel, grid, workgroup, ordinal)  at a launch (the
 *                                                      one that fails or hangs)
 *   sim_debug_fault(stderr, kernel, reason, NULL, addr) on a GPU fault,
 *                                                      before aborting
 *
 * Both are best effort: the replay never depends on them. Build with
 * images/sim-tools/agent_report.c. */
#ifndef HRR_SIM_DEBUG_H
#define HRR_SIM_DEBUG_H

#include <stdio.h>

/* The in-flight dispatch for rocgdb: the state file (sim_state.h) for this
 * process. grid and workgroup as ROCgdb prints them ("[4096,1,1]", work-
 * items); ordinal numbers the launch (0-based). */
void sim_debug_launch(const char *kernel, const char *grid, const char *workgroup,
		      unsigned long long ordinal);

/* When HSA_TOOLS_LIB loads the debug agent: print its wave report for the
 * faulting kernel to out and save the code object where
 * ROCM_DEBUG_AGENT_OPTIONS says. reason is the agent's stop reason
 * (MEMORY_VIOLATION, ASSERT_TRAP); event the runtime's line before the
 * report (NULL: the usual one for reason); faulting_page may be NULL.
 * Returns 1 when the agent is loaded (and printed), else 0. */
int sim_debug_fault(FILE *out, const char *kernel, const char *reason, const char *event,
		    const char *faulting_page);

/* A hang: when the agent is loaded, catch SIGQUIT as the agent does (it
 * prints every wave's state and the process goes on). Without the agent
 * SIGQUIT keeps its default action: the process dies of it. */
void sim_debug_hang(const char *kernel);
/* After a wake-up: print the waves when a SIGQUIT came. */
void sim_debug_quit_dump(FILE *out);

/* HRR_SIM_AGENT=old: the older agent (rocr_debug_agent), which registers
 * its handler before ROCr's and, on a memory fault, prints
 * "System event (HSA_AMD_GPU_MEMORY_FAULT_EVENT)", "Faulting page: 0x..."
 * (page-aligned), its waves without kernel_code_entry, and calls abort():
 * ROCr's own fault line never comes. HRR_SIM_AGENT=rocm7: ROCm 7's wave
 * line with kernargs= and the memory blocks. HRR_SIM_AGENT=unloadable: an
 * agent the loader could not load (it prints nothing, catches nothing). */

#endif

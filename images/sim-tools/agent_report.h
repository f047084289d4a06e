/* The rocm-debug-agent's part in the simulator.
 *
 * When HSA_TOOLS_LIB names an existing file called librocm-debug-agent.so.2
 * (the image ships a placeholder of that name), the simulator behaves as if
 * the agent were loaded: on a GPU fault it prints the agent's wave report
 * (the real agent's format: src/debug_agent.cpp and code_object.cpp of
 * ROCm/rocr_debug_agent) and, with --save-code-objects[=DIR] in
 * ROCM_DEBUG_AGENT_OPTIONS, writes the faulting code object into DIR under
 * the agent's file name (its URI with each of ":/#?&=" made '_').
 *
 * The saved "code object" is the simulator's own: an ELF magic, then text
 * lines the image's llvm-objdump stand-in disassembles:
 *
 *   \177ELF
 *   HRRSIM-CODE-OBJECT 1
 *   symbol=<kernel name>
 *   text=0x1000                 the kernel's offset in the code object
 *   insn=<offset> <encoding> <instruction>   (offsets from text, hex)
 *
 * Plain C and libc only: the simulator is static and shares no library. */
#ifndef HRR_SIM_AGENT_REPORT_H
#define HRR_SIM_AGENT_REPORT_H

#include <stddef.h>
#include <stdio.h>

#define AGENT_REPORT_LIB "librocm-debug-agent.so.2"
#define AGENT_REPORT_TEXT_OFFSET 0x1000ull

struct agent_report {
	const char *event;         /* the runtime's line before the report, or NULL */
	const char *faulting_page; /* "0x7fbe4cc01000" (memory faults), or NULL */
	long pid;                  /* for the memory:// URI */
	unsigned long long wave_id;
	unsigned long long load_base; /* where the code object is loaded */
	const char *kernel;        /* demangled; NULL: the agent finds no symbol */
	const char *reason;        /* "MEMORY_VIOLATION", "ASSERT_TRAP", ...; NULL: running */
	/* Which agent prints it: AGENT_CURRENT "(kernel_code_entry=0x... <K>)";
	 * AGENT_OLD (rocr_debug_agent) no entry, no disassembly; AGENT_ROCM7
	 * "(kernel_code_entry=0x... <K>, kernargs=0x...)" and the local and
	 * kernarg-segment memory blocks. */
	enum agent_generation { AGENT_CURRENT = 0, AGENT_OLD, AGENT_ROCM7 } generation;
};

/* HRR_SIM_AGENT's value: "old", "rocm7", anything else current. */
enum agent_generation agent_report_generation(const char *env);

/* True when HSA_TOOLS_LIB names an existing file whose base name is
 * librocm-debug-agent.so.2 (a bare name is looked up in LD_LIBRARY_PATH's
 * directories, as the loader would). */
int agent_report_enabled(const char *hsa_tools_lib, const char *ld_library_path);
/* The DIR of --save-code-objects[=DIR] / -s [DIR] in options (the value of
 * ROCM_DEBUG_AGENT_OPTIONS) into out; "." when given without DIR. Returns 0
 * when the option is there, -1 when not. */
int agent_report_save_dir(const char *options, char *out, size_t outsz);

/* The faulting pc and the kernel's entry for a report. */
unsigned long long agent_report_entry(const struct agent_report *r);
unsigned long long agent_report_pc(const struct agent_report *r);
/* "memory://<pid>#offset=0x<base>&size=<bytes>" */
void agent_report_uri(const struct agent_report *r, char *out, size_t outsz);
/* The agent's saved file name for a URI. */
void agent_report_saved_name(const char *uri, char *out, size_t outsz);

/* The wave report, as the agent prints it (to stderr by default). */
void agent_report_print(FILE *out, const struct agent_report *r);
/* Write the code object into dir. 0, or -1 with errno. */
int agent_report_save(const char *dir, const struct agent_report *r);

#endif

/* The rocm-debug-agent's wave report, read from a replay's log.
 *
 * When HSA_TOOLS_LIB loads librocm-debug-agent.so.2 and a wave traps, the
 * agent prints, per stopped wave (docs/gpu-debug-tools.md):
 *
 *   --------------------------------------------------------
 *   wave_1: pc=0x7fd4f100d0e8 (kernel_code_entry=0x7fd4f100d000 <k(int*)>) (stopped, reason: ASSERT_TRAP)
 *   ... system / scalar / vector registers, local memory ...
 *   Disassembly for function k(int*):
 *       code object: memory://4242#offset=0x7fd4f0000000&size=31336
 *       loaded at: [0x7fd4f100c000-0x7fd4f100e070]
 *   ... source lines ...
 *    => 0x7fd4f100d0e8 <+232>:    s_trap 2
 *   End of disassembly.
 *
 * Older agents print no kernel_code_entry; "not available" stands for an
 * entry the agent could not read. The parser is streaming and bounded:
 * bytes in, one line at a time (longer lines are matched on their head),
 * at most DIAG_AGENT_MAX_WAVES waves kept in detail (the rest counted) and
 * DIAG_AGENT_MAX_CODE_OBJECTS distinct code objects. Strings it keeps are
 * raw bytes from the log: render them through common/text.h. */
#ifndef HRR_FINDING_DIAG_AGENT_H
#define HRR_FINDING_DIAG_AGENT_H

#include <stdbool.h>
#include <stddef.h>

#include "common/strvec.h"
#include "orchestrator/diagnosis/diag_lines.h"

#define DIAG_AGENT_LINE_MAX 4096
#define DIAG_AGENT_MAX_WAVES 16
#define DIAG_AGENT_MAX_CODE_OBJECTS 64
#define DIAG_AGENT_FIELD_MAX 1024 /* kernel names, instructions, URIs */

struct diag_agent_wave {
	char *id;           /* "wave_27876" */
	char *pc;           /* "0x7f20f5e534c4" */
	char *kernel_entry; /* "0x7f20f5e52900", NULL when absent or not available */
	char *kernargs;     /* ROCm 7's ", kernargs=0x..." after the entry, else NULL */
	char *kernel;       /* from "<...>" after the entry, else from "Disassembly for function" */
	char *reason;       /* "MEMORY_VIOLATION", "ASSERT_TRAP|TRAP", NULL when running */
	char *instruction;  /* the "=>" line's instruction */
	char *code_object;  /* the code object URI its disassembly names */
	char *loaded_at;    /* "[0x...-0x...]" */
};

struct diag_agent_report {
	char *event;           /* first "Queue error (...)"/"System event (...)"/"Memory access fault ..." */
	char *faulting_page;   /* "0x7fbe4cc01000" */
	char *hw_exception;    /* ROCr's first "HW Exception by GPU node-..." line (not the agent's) */
	long long waves;       /* every wave header seen */
	long long stopped;     /* of which stopped with a reason */
	size_t n_detail;       /* waves[0..n_detail) kept */
	struct diag_agent_wave wave[DIAG_AGENT_MAX_WAVES];
	struct strvec code_objects; /* distinct URIs, in order of appearance */
	bool code_objects_truncated;
	bool end_of_disassembly;    /* saw "End of disassembly." */
};

struct diag_agent_parser {
	struct diag_agent_report *r;
	struct diag_lines lines;
	struct diag_agent_wave *cur; /* the wave whose block we are in, or NULL */
	bool in_disassembly;
};

void diag_agent_report_init(struct diag_agent_report *r);
void diag_agent_report_release(struct diag_agent_report *r);

void diag_agent_parser_init(struct diag_agent_parser *p, struct diag_agent_report *r);
void diag_agent_feed(struct diag_agent_parser *p, const char *data, size_t len);
/* Handles a last line without '\n' and frees the parser's buffer. */
void diag_agent_finish(struct diag_agent_parser *p);
/* The whole of data at once. */
void diag_agent_parse(struct diag_agent_report *r, const char *data, size_t len);

/* The wave to name in a finding: the first stopped wave with a reason that
 * says it faulted (MEMORY_VIOLATION, ASSERT_TRAP, ILLEGAL_INSTRUCTION, ...),
 * else the first stopped wave, else the first wave; NULL without waves. */
const struct diag_agent_wave *diag_agent_suspect(const struct diag_agent_report *r);
/* The kernel a wave names: its entry's symbol, else its disassembly's. */
const char *diag_agent_wave_kernel(const struct diag_agent_wave *w);

/* The file name the agent saves a code object under: the URI with each of
 * ":/#?&=" replaced by '_' ("memory://42#offset=0x10&size=8" ->
 * "memory___42_offset_0x10_size_8"). Caller frees. */
char *diag_agent_saved_name(const char *uri);
/* True when a file in the save directory holds the code object of uri: its
 * name is the saved name, optionally after a "<n>_" ordinal prefix. */
bool diag_agent_saved_name_matches(const char *file, const char *uri);

#endif

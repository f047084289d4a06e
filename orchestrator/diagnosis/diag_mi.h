/* ROCgdb's output on a hung replay: GDB/MI records and the human tables.
 *
 * Two layers. A small GDB/MI output-record parser (the grammar of GDB's
 * manual, "GDB/MI Output Syntax"): one record per line,
 *
 *   [token] "^" class ("," result)*        result record (done, error, ...)
 *   [token] "*"|"+"|"=" class ("," result)*  async records
 *   "~"|"@"|"&" c-string                   stream records
 *   result = variable "=" value; value = c-string | tuple | list
 *
 * with c-string escapes (\n \t \" \\ \ooo ...). And the extraction of what a
 * hang diagnosis needs from a whole rocgdb transcript, in which MI records
 * (`interpreter-exec mi3 "-dispatch-info"`) and human output (`info
 * dispatches`) may be mixed line by line:
 *
 *   -agent-info     ^done,agents=[{id="1.1",state="A",target-id="AMDGPU Agent (GPUID 45151)",
 *                    architecture="gfx906",name="vega20",cores=..,threads=..,location=..}]
 *   -queue-info     ^done,queues=[{id="1.1",agent-id="1.1",target-id="AMDGPU Queue 1:1 (QID 2)",
 *                    type="HSA",read="0",write="2",size=..,addr=..}]
 *   -dispatch-info  ^done,dispatches=[{id="1.1",queue-id="1.1",target-id="AMDGPU Dispatch 1:1:1 (PKID 0)",
 *                    grid="[1024,1,1]",workgroup="[256,1,1]",...,kernel-function="0x00007ffde7e01000"}]
 *   -thread-info    ^done,threads=[{id="9",target-id="AMDGPU Wave 1:1:1:4 (0,0,0)/0",
 *                    frame={level="0",addr="0x..",func="kernel",args=[]},state="stopped"}]
 *
 * The MI dispatch record gives the kernel's code address only; its name
 * comes from the wave threads of that dispatch (frame func) or from the
 * human `info dispatches` table's "Kernel Function" column. Everything is
 * bounded (line length, nesting, entity counts); strings are raw bytes from
 * the transcript: render them through common/text.h. */
#ifndef HRR_FINDING_DIAG_MI_H
#define HRR_FINDING_DIAG_MI_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"
#include "common/strbuf.h"
#include "orchestrator/diagnosis/diag_lines.h"

#define DIAG_MI_LINE_MAX (256 * 1024) /* longer records are skipped, counted */
#define DIAG_MI_DEPTH_MAX 32
#define DIAG_MI_VALUES_MAX 65536      /* values in one record */
#define DIAG_MI_MAX_ENTITIES 64       /* agents, queues, dispatches, waves kept */
#define DIAG_MI_FIELD_MAX 1024

/* ---- GDB/MI records ---- */

enum mi_kind { MI_CONST, MI_TUPLE, MI_LIST };

struct mi_value {
	enum mi_kind kind;
	char *name;              /* the variable of a result; NULL for a bare list value */
	char *str;               /* MI_CONST: the decoded c-string (may hold NULs: str_len) */
	size_t str_len;
	struct mi_value **items; /* MI_TUPLE / MI_LIST */
	size_t n;
};

enum mi_record_type {
	MI_RESULT = '^',
	MI_EXEC_ASYNC = '*',
	MI_STATUS_ASYNC = '+',
	MI_NOTIFY_ASYNC = '=',
	MI_CONSOLE = '~',
	MI_TARGET = '@',
	MI_LOG = '&',
};

struct mi_record {
	enum mi_record_type type;
	long long token;         /* -1 without one */
	char *cls;               /* "done", "error", "stopped", ...; NULL for streams */
	struct mi_value *results; /* a tuple of the results (never NULL after a parse) */
	char *stream;            /* stream records: the decoded text */
	size_t stream_len;
};

/* True when line looks like an MI record (optional digits, then one of
 * ^*+=~@&); "(gdb)" prompts are not records. */
bool mi_is_record(const char *line, size_t len);
/* Parse one record (no trailing newline needed). */
int mi_parse_record(const char *line, size_t len, struct mi_record *rec, struct error *err)
	__attribute__((warn_unused_result));
void mi_record_release(struct mi_record *rec);
void mi_value_free(struct mi_value *v);
/* The result named name in a tuple (or a list of results), or NULL. */
const struct mi_value *mi_get(const struct mi_value *v, const char *name);
/* Its string when it is a c-string, else NULL. */
const char *mi_get_str(const struct mi_value *v, const char *name);

/* ---- ROCgdb's heterogeneous entities ---- */

struct diag_mi_agent {
	char *id, *target_id, *architecture, *name;
};

struct diag_mi_queue {
	char *id, *agent_id, *target_id, *type, *read, *write;
};

struct diag_mi_dispatch {
	char *id, *queue_id, *target_id, *grid, *workgroup;
	char *kernel_function; /* the MI record's code address */
	char *kernel;          /* the kernel's name, when a wave or the table gave it */
	const char *kernel_from; /* "wave" or "info dispatches" (static), NULL */
};

struct diag_mi_wave {
	char *id, *target_id, *func, *addr;
};

struct diag_mi_result {
	struct diag_mi_agent agents[DIAG_MI_MAX_ENTITIES];
	struct diag_mi_queue queues[DIAG_MI_MAX_ENTITIES];
	struct diag_mi_dispatch dispatches[DIAG_MI_MAX_ENTITIES];
	struct diag_mi_wave waves[DIAG_MI_MAX_ENTITIES];
	size_t n_agents, n_queues, n_dispatches, n_waves;
	long long dropped;            /* entities past the caps */
	long long records;            /* MI records parsed */
	long long bad_records;        /* unparsable or over-long */
	char *first_error;            /* first ^error msg, or an attach failure line */
	bool saw_mi_dispatches;       /* a -dispatch-info result (even empty) */
	bool no_dispatches;           /* "No dispatches are currently active." */
	bool detached;                /* "[Inferior 1 (process N) detached]" */
	bool attached;                /* an MI record only an attach gives: *stopped,
				       * =thread-group-started, =thread-created, a
				       * -thread-info result listing a thread, a
				       * -dispatch-info result or `info dispatches`
				       * row listing a dispatch in flight */
	/* the human `info dispatches` table, by Target Id */
	size_t n_table;
	char *table_target[DIAG_MI_MAX_ENTITIES];
	char *table_kernel[DIAG_MI_MAX_ENTITIES];
};

struct diag_mi_parser {
	struct diag_mi_result *r;
	struct diag_lines lines;
	struct strbuf console;      /* console stream text not yet ended by '\n' */
	long kernel_col;            /* the "Kernel Function" column of the table in view, or -1 */
	long target_col, grid_col;  /* "Target Id" and "Grid" columns */
};

void diag_mi_result_init(struct diag_mi_result *r);
void diag_mi_result_release(struct diag_mi_result *r);
void diag_mi_parser_init(struct diag_mi_parser *p, struct diag_mi_result *r);
void diag_mi_feed(struct diag_mi_parser *p, const char *data, size_t len);
/* Handles a last line without '\n', names the dispatches' kernels (waves,
 * then the table) and frees the parser's buffers. */
void diag_mi_finish(struct diag_mi_parser *p);
void diag_mi_parse(struct diag_mi_result *r, const char *data, size_t len);

/* "AMDGPU Dispatch 1:2:3 (PKID 0)" -> "1:2:3"; "AMDGPU Wave 1:2:3:4 (..)" ->
 * "1:2:3" too (the wave's dispatch). Writes into out (size outsz); false when
 * target_id is neither. */
bool diag_mi_dispatch_key(const char *target_id, char *out, size_t outsz);

/* ROCgdb's target ids, in its CLI tables and MI records:
 *   AMDGPU Agent (GPUID 35090)
 *   AMDGPU Queue 1:2 (QID 0)
 *   AMDGPU Dispatch 1:2:1 (PKID 0)
 *   AMDGPU Wave 1:2:1:1 (0,0,0)/0
 * agent:queue:dispatch:wave, then the work-group position and the lane;
 * "?" (and "(?,?,?)") stands for a field rocgdb does not know, as for a
 * wave that existed before it attached, whose dispatch is unknown. */
enum diag_target_kind { DIAG_TARGET_AGENT = 1, DIAG_TARGET_QUEUE, DIAG_TARGET_DISPATCH,
			DIAG_TARGET_WAVE };
struct diag_target_id {
	enum diag_target_kind kind;
	long long path[4];       /* agent, queue, dispatch, wave; -1 for "?" or absent */
	long long work_group[3]; /* waves; -1 for "?" */
	long long lane;          /* waves: after '/'; -1 for "?" */
	long long extra;         /* GPUID, QID or PKID; -1 for "?" */
};
/* False when s is not one of the forms above. */
bool diag_mi_target_id_parse(const char *s, struct diag_target_id *t);

#endif

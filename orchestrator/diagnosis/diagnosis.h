/* A finding's diagnosis: what a GPU debugger said about the kernel
 * (docs/gpu-debug-tools.md).
 *
 * Either rocm-debug-agent (a second run after a GPU fault: the faulting
 * wave's kernel, stop reason, pc, instruction, saved code objects) or rocgdb
 * (attached before a hang is stopped: the in-flight dispatches and their
 * kernels). A diagnosis names the kernel the tool saw; it is never proof
 * of the root cause, and it never changes the run's verdict. Every string
 * in it came from a replay's output (kernel names come from the archive)
 * and is sanitised (common/text.h) when rendered. */
#ifndef HRR_FINDING_DIAGNOSIS_H
#define HRR_FINDING_DIAGNOSIS_H

#include <stdbool.h>
#include <stddef.h>

#include "common/strbuf.h"
#include "common/strvec.h"
#include "orchestrator/diagnosis/diag_agent.h"
#include "orchestrator/diagnosis/diag_mi.h"

enum diagnosis_tool { DIAGNOSIS_AGENT, DIAGNOSIS_ROCGDB };

/* What the tool saw, never more (docs/gpu-debug-tools.md, "Statuses"). */
enum diagnosis_status {
	DIAGNOSIS_OK,               /* the tool ran, attached or reported, and answered */
	DIAGNOSIS_NOT_AVAILABLE,    /* the image has no such tool */
	DIAGNOSIS_FAILED,           /* hrr-docker-replay could not do its part (files, engine) */
	DIAGNOSIS_TIMED_OUT,        /* it did not answer within --diagnose-timeout */
	DIAGNOSIS_NOT_RUN,          /* the tool never ran: the exec failed, the loader gave up
				     * (exit 126/127), or the step did not apply */
	DIAGNOSIS_NOT_ATTACHED,     /* rocgdb ran, but no MI record shows an attach */
	DIAGNOSIS_AGENT_NOT_LOADED, /* the agent rerun shows no agent in the process */
	DIAGNOSIS_AGENT_SILENT,     /* the agent was there and printed no wave */
};

#define DIAGNOSIS_MAX_DISPATCHES DIAG_MI_MAX_ENTITIES
#define DIAGNOSIS_MAX_NOTES 16
#define DIAGNOSIS_MAX_FILES 128

struct diagnosis_dispatch {
	char *id, *queue_id, *target_id, *grid, *workgroup, *kernel;
	const char *kernel_from; /* static: "wave", "info dispatches", NULL */
};

struct diagnosis {
	enum diagnosis_tool tool;
	enum diagnosis_status status;
	char *summary;       /* one line: what happened, for every status */
	char *kernel;        /* the agent's wave kernel, or the in-flight dispatch's */
	const char *kernel_from; /* static: "wave report", "wave", "info dispatches" */
	char *reason;        /* MEMORY_VIOLATION, ASSERT_TRAP, ..., "in-flight dispatch" */
	char *pc;
	char *instruction;
	char *loaded_at;     /* the agent's "[0xSTART-0xEND]" of the code object */
	long long waves;     /* -1 unknown */
	struct strvec code_objects; /* URIs the report names */
	struct diagnosis_dispatch dispatches[DIAGNOSIS_MAX_DISPATCHES];
	size_t n_dispatches;
	struct strvec files; /* relative paths under diagnostics/ */
	struct strvec notes;
	int tool_exit;       /* the debugger's exit status; -1 unknown or not run */
	char *tool_stderr;   /* the last non-empty line of its stderr, or NULL */
	long long running, stopped; /* agent SIGQUIT dump: waves by state; -1 unknown */
};

const char *diagnosis_tool_name(enum diagnosis_tool t);     /* "rocm-debug-agent", "rocgdb" */
const char *diagnosis_status_name(enum diagnosis_status s); /* "ok", "not-available", ... */

void diagnosis_init(struct diagnosis *d, enum diagnosis_tool tool);
void diagnosis_release(struct diagnosis *d);

/* A status other than ok, with its one line ("rocgdb is not in the image"). */
void diagnosis_set_status(struct diagnosis *d, enum diagnosis_status s, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void diagnosis_add_note(struct diagnosis *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void diagnosis_add_file(struct diagnosis *d, const char *relpath);

/* Fill from a parsed wave report: the suspect wave's kernel, reason, pc
 * and instruction; failed when the log holds no wave report. */
void diagnosis_from_agent(struct diagnosis *d, const struct diag_agent_report *r);
/* Fill from a parsed rocgdb transcript: the in-flight dispatches; the
 * kernel is the first one named. Only an MI record that proves the attach
 * gives ok; d->tool_exit and d->tool_stderr (set by the caller) say why
 * not: not-run (exit 126/127, or no MI record and a failing exit),
 * not-attached otherwise. */
void diagnosis_from_rocgdb(struct diagnosis *d, const struct diag_mi_result *r);
/* Fill from the log of an agent rerun that was sent SIGQUIT before its
 * stop (a hang): the waves it dumped, running or stopped. quit_sent: the
 * rerun reached its limit and got SIGQUIT; exit_code: its exit status
 * (131 = killed by SIGQUIT: no agent handled it). */
void diagnosis_from_agent_quit(struct diagnosis *d, const struct diag_agent_report *r,
			       bool quit_sent, long exit_code);

/* Fill from the log of an agent rerun after a GPU Hang exception, with
 * quiet_s the silence that was to trigger its SIGQUIT: the SIGQUIT dump
 * when it was sent (as diagnosis_from_agent_quit, with a note); else the
 * waves the agent printed by itself, if any; else not-run, saying whether
 * the GPU Hang recurred before the rerun had been silent that long. */
void diagnosis_from_agent_gpu_hang(struct diagnosis *d, const struct diag_agent_report *r,
				   bool quit_sent, long exit_code, long quiet_s);

/* What a well-known kernel name and stop reason mean (PyTorch indexing
 * kernels, device-side asserts), or NULL. Caller frees. */
char *diagnosis_explain(const char *kernel, const char *reason);

/* The caveat every diagnosis carries. */
extern const char diagnosis_caveat[];

/* A "### Diagnosis" markdown section. */
void diagnosis_render_markdown(const struct diagnosis *d, struct strbuf *out);

#endif

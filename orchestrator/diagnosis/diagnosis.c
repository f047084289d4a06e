/* A finding's diagnosis: the model, filled from a tool's parsed output. */
#include "orchestrator/diagnosis/diagnosis.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"

const char diagnosis_caveat[] =
	"The tool names the kernel it saw, not the root cause: a wave's pc can "
	"belong to the victim of an earlier kernel or of a race (if "
	"HIP_LAUNCH_BLOCKING=1 makes the failure go away, suspect a race).";

const char *diagnosis_tool_name(enum diagnosis_tool t)
{
	return t == DIAGNOSIS_ROCGDB ? "rocgdb" : "rocm-debug-agent";
}

const char *diagnosis_status_name(enum diagnosis_status s)
{
	switch (s) {
	case DIAGNOSIS_OK:
		return "ok";
	case DIAGNOSIS_NOT_AVAILABLE:
		return "not-available";
	case DIAGNOSIS_FAILED:
		return "failed";
	case DIAGNOSIS_TIMED_OUT:
		return "timed-out";
	case DIAGNOSIS_NOT_RUN:
		return "not-run";
	case DIAGNOSIS_NOT_ATTACHED:
		return "not-attached";
	case DIAGNOSIS_AGENT_NOT_LOADED:
		return "agent-not-loaded";
	case DIAGNOSIS_AGENT_SILENT:
		return "agent-silent";
	}
	return "failed";
}

void diagnosis_init(struct diagnosis *d, enum diagnosis_tool tool)
{
	memset(d, 0, sizeof(*d));
	d->tool = tool;
	d->status = DIAGNOSIS_OK;
	d->waves = -1;
	d->tool_exit = -1;
	d->running = d->stopped = -1;
	strvec_init(&d->code_objects);
	strvec_init(&d->files);
	strvec_init(&d->notes);
}

void diagnosis_release(struct diagnosis *d)
{
	enum diagnosis_tool tool = d->tool;

	for (size_t i = 0; i < d->n_dispatches; i++) {
		struct diagnosis_dispatch *x = &d->dispatches[i];

		free(x->id), free(x->queue_id), free(x->target_id);
		free(x->grid), free(x->workgroup), free(x->kernel);
	}
	free(d->summary);
	free(d->kernel);
	free(d->reason);
	free(d->pc);
	free(d->instruction);
	free(d->loaded_at);
	free(d->tool_stderr);
	strvec_clear(&d->code_objects);
	strvec_clear(&d->files);
	strvec_clear(&d->notes);
	diagnosis_init(d, tool);
}

static char *vformat(const char *fmt, va_list ap)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_vaddf(&sb, fmt, ap);
	return strbuf_detach(&sb, NULL);
}

void diagnosis_set_status(struct diagnosis *d, enum diagnosis_status s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	free(d->summary);
	d->summary = vformat(fmt, ap);
	va_end(ap);
	d->status = s;
}

void diagnosis_add_note(struct diagnosis *d, const char *fmt, ...)
{
	va_list ap;

	if (d->notes.n >= DIAGNOSIS_MAX_NOTES)
		return;
	va_start(ap, fmt);
	strvec_push_nodup(&d->notes, vformat(fmt, ap));
	va_end(ap);
}

void diagnosis_add_file(struct diagnosis *d, const char *relpath)
{
	if (d->files.n < DIAGNOSIS_MAX_FILES)
		strvec_push(&d->files, relpath);
}

void diagnosis_from_agent(struct diagnosis *d, const struct diag_agent_report *r)
{
	const struct diag_agent_wave *w = diag_agent_suspect(r);

	d->waves = r->waves;
	for (size_t i = 0; i < r->code_objects.n; i++)
		strvec_push(&d->code_objects, r->code_objects.v[i]);
	if (r->code_objects_truncated)
		diagnosis_add_note(d, "more code objects than the %d listed",
				   DIAG_AGENT_MAX_CODE_OBJECTS);
	if (!w && r->event) {
		diagnosis_set_status(d, DIAGNOSIS_AGENT_SILENT, "rocm-debug-agent printed \"%s\" "
				     "but no wave report", r->event);
		return;
	}
	if (!w) {
		diagnosis_set_status(d, DIAGNOSIS_AGENT_NOT_LOADED, "no sign of rocm-debug-agent in "
				     "the rerun's log (no event line, no wave report): it was not "
				     "loaded, or the fault did not recur under it");
		return;
	}
	d->kernel = xstrdup_or_null(diag_agent_wave_kernel(w));
	d->kernel_from = d->kernel ? "wave report" : NULL;
	d->reason = xstrdup_or_null(w->reason);
	d->pc = xstrdup_or_null(w->pc);
	d->instruction = xstrdup_or_null(w->instruction);
	d->loaded_at = xstrdup_or_null(w->loaded_at);
	if (!d->kernel)
		diagnosis_add_note(d, "the wave report names no kernel (no symbol at the pc)");
	if (r->waves > 1)
		diagnosis_add_note(d, "%lld waves reported, %lld stopped; the first faulting one is shown",
				   r->waves, r->stopped);
	diagnosis_set_status(d, DIAGNOSIS_OK, "%s in %s", w->reason ? w->reason : "a stopped wave",
			     d->kernel ? d->kernel : "an unnamed kernel");
}

static void take_dispatch(struct diagnosis *d, const struct diag_mi_dispatch *x)
{
	struct diagnosis_dispatch *y = &d->dispatches[d->n_dispatches++];

	y->id = xstrdup_or_null(x->id);
	y->queue_id = xstrdup_or_null(x->queue_id);
	y->target_id = xstrdup_or_null(x->target_id);
	y->grid = xstrdup_or_null(x->grid);
	y->workgroup = xstrdup_or_null(x->workgroup);
	y->kernel = xstrdup_or_null(x->kernel ? x->kernel : x->kernel_function);
	y->kernel_from = x->kernel ? x->kernel_from : NULL;
}

/* rocgdb's own word on why it did not attach: its exit and stderr. */
static void rocgdb_not_attached(struct diagnosis *d, const struct diag_mi_result *r)
{
	const char *why = d->tool_stderr ? d->tool_stderr : "no output on stderr";

	if (d->tool_exit == 126 || d->tool_exit == 127 || (!r->records && d->tool_exit > 0)) {
		diagnosis_set_status(d, DIAGNOSIS_NOT_RUN, "rocgdb did not run (exit status %d): %s",
				     d->tool_exit, why);
		return;
	}
	if (r->first_error)
		diagnosis_set_status(d, DIAGNOSIS_NOT_ATTACHED, "rocgdb did not attach: %s",
				     r->first_error);
	else if (d->tool_exit >= 0)
		diagnosis_set_status(d, DIAGNOSIS_NOT_ATTACHED, "rocgdb ran (exit status %d) but "
				     "no MI record shows it attached: %s", d->tool_exit, why);
	else
		diagnosis_set_status(d, DIAGNOSIS_NOT_ATTACHED, "no MI record shows rocgdb attached");
}

/* Attached, no dispatch record: waves that existed before the attach
 * carry no dispatch ("AMDGPU Wave 1:2:?:1 (?,?,?)/?"), but their frame
 * still names the kernel they run. */
static void rocgdb_waves_only(struct diagnosis *d, const struct diag_mi_result *r)
{
	for (size_t i = 0; i < r->n_waves; i++)
		if (r->waves[i].func) {
			d->kernel = xstrdup(r->waves[i].func);
			d->kernel_from = "wave";
			d->reason = xstrdup("wave on the GPU");
			diagnosis_set_status(d, DIAGNOSIS_OK, "rocgdb attached: no dispatch record, "
					     "%zu GPU wave(s), in %s", r->n_waves, d->kernel);
			return;
		}
	diagnosis_set_status(d, DIAGNOSIS_OK, "rocgdb attached and found no dispatch in flight");
	diagnosis_add_note(d, "no dispatch in flight: the replay may be stuck on the host, "
			      "or a debug agent holds the debugger slot");
}

void diagnosis_from_rocgdb(struct diagnosis *d, const struct diag_mi_result *r)
{
	const struct diag_mi_dispatch *named = NULL;

	for (size_t i = 0; i < r->n_dispatches && d->n_dispatches < DIAGNOSIS_MAX_DISPATCHES; i++) {
		take_dispatch(d, &r->dispatches[i]);
		if (!named && r->dispatches[i].kernel)
			named = &r->dispatches[i];
	}
	d->waves = (long long)r->n_waves;
	if (!r->attached) {
		rocgdb_not_attached(d, r);
		return;
	}
	if (!r->n_dispatches) {
		rocgdb_waves_only(d, r);
		return;
	}
	d->reason = xstrdup("in-flight dispatch");
	if (named) {
		d->kernel = xstrdup(named->kernel);
		d->kernel_from = named->kernel_from;
	}
	if (r->n_dispatches > 1)
		diagnosis_add_note(d, "%zu dispatches in flight; the first named one is shown",
				   r->n_dispatches);
	if (!r->detached)
		diagnosis_add_note(d, "rocgdb's output does not show the detach");
	diagnosis_set_status(d, DIAGNOSIS_OK, "%zu dispatch(es) in flight, %s", r->n_dispatches,
			     d->kernel ? d->kernel : "none named");
}

/* The waves of a SIGQUIT dump, one note each (bounded by the parser). */
static void quit_wave_notes(struct diagnosis *d, const struct diag_agent_report *r)
{
	for (size_t i = 0; i < r->n_detail; i++) {
		const struct diag_agent_wave *w = &r->wave[i];
		const char *k = diag_agent_wave_kernel(w);

		diagnosis_add_note(d, "%s %s at pc=%s in %s", w->id ? w->id : "wave",
				   w->reason ? "stopped" : "running", w->pc ? w->pc : "?",
				   k ? k : "a kernel the agent could not name");
	}
}

void diagnosis_from_agent_quit(struct diagnosis *d, const struct diag_agent_report *r,
			       bool quit_sent, long exit_code)
{
	const struct diag_agent_wave *w = r->n_detail ? &r->wave[0] : NULL;

	d->tool_exit = (int)exit_code;
	if (!quit_sent) {
		diagnosis_set_status(d, DIAGNOSIS_NOT_RUN, "the rerun under the agent did not hang "
				     "(it ended by itself, exit status %ld): no SIGQUIT was sent",
				     exit_code);
		return;
	}
	d->waves = r->waves;
	d->stopped = r->stopped;
	d->running = r->waves - r->stopped;
	if (!r->waves) {
		if (exit_code == 128 + 3)
			diagnosis_set_status(d, DIAGNOSIS_AGENT_NOT_LOADED, "the replay died of SIGQUIT "
					     "(exit status 131): no debug agent was loaded to catch it");
		else
			diagnosis_set_status(d, DIAGNOSIS_AGENT_SILENT, "the agent took SIGQUIT "
					     "(the replay survived it) but printed no wave: nothing "
					     "was running on the GPU, or the hang is on the host");
		return;
	}
	for (size_t i = 0; i < r->n_detail; i++)
		if (diag_agent_wave_kernel(&r->wave[i])) {
			w = &r->wave[i];
			break;
		}
	d->kernel = xstrdup_or_null(diag_agent_wave_kernel(w));
	d->kernel_from = d->kernel ? "wave report" : NULL;
	d->pc = xstrdup_or_null(w->pc);
	d->reason = xstrdup(w->reason ? w->reason : "running at SIGQUIT");
	quit_wave_notes(d, r);
	diagnosis_set_status(d, DIAGNOSIS_OK, "SIGQUIT: %lld wave(s) on the GPU (%lld running, "
			     "%lld stopped), %s", r->waves, d->running, d->stopped,
			     d->kernel ? d->kernel : "no kernel named (no kernel_code_entry)");
}

void diagnosis_from_agent_gpu_hang(struct diagnosis *d, const struct diag_agent_report *r,
				   bool quit_sent, long exit_code, long quiet_s)
{
	if (quit_sent) {
		diagnosis_from_agent_quit(d, r, true, exit_code);
		diagnosis_add_note(d, "SIGQUIT after %ld s of silence in the rerun, before the "
				   "driver's hang detection: the waves it dumped were on the GPU "
				   "then, not necessarily the ones the hang detection saw", quiet_s);
		return;
	}
	d->tool_exit = (int)exit_code;
	if (r->waves) {
		/* Not what the agent does on a GPU reset, but its report is read. */
		diagnosis_from_agent(d, r);
		diagnosis_add_note(d, "the agent printed these waves by itself, before SIGQUIT");
		return;
	}
	if (r->hw_exception)
		diagnosis_set_status(d, DIAGNOSIS_NOT_RUN, "the GPU Hang recurred under the agent "
				     "before the rerun had been silent %ld s (exit status %ld): the "
				     "driver reset the GPU first, no SIGQUIT was sent, no wave was "
				     "printed", quiet_s, exit_code);
	else
		diagnosis_set_status(d, DIAGNOSIS_NOT_RUN, "the rerun under the agent ended by itself "
				     "(exit status %ld) without a GPU Hang: no SIGQUIT was sent",
				     exit_code);
}

/* Kernel-name fragments worth a sentence (PyTorch ATen indexing kernels). */
static const struct {
	const char *fragment;
	const char *what;
} known_kernels[] = {
	{ "index_copy_kernel_impl", "Tensor.index_copy_(dim, index, source)" },
	{ "scatter_gather_elementwise_kernel", "Tensor.scatter_/gather (dim, index, src)" },
	{ "scatter_kernel", "Tensor.scatter_(dim, index, src)" },
	{ "index_put_kernel", "an advanced-indexing write tensor[idx] = v (index_put_)" },
	{ "index_kernel", "an advanced-indexing read tensor[idx]" },
};

static const char *reason_sentence(const char *reason, bool aten)
{
	if (!reason)
		return NULL;
	if (strstr(reason, "ASSERT_TRAP"))
		return aten ? "The wave hit s_trap 2: a device-side assert failed. In this kernel "
			      "that is PyTorch's bound check 0 <= index < self.size(dim): an index "
			      "was out of bounds. A PyTorch built with TORCH_USE_HIP_DSA=1 prints "
			      "the assert's text."
			    : "The wave hit s_trap 2: a device-side assert (assert(), "
			      "__builtin_trap) failed in this kernel.";
	if (strstr(reason, "MEMORY_VIOLATION"))
		return "A load or store at the pc touched memory it may not: a real "
		       "out-of-bounds access; the registers in the report hold its address.";
	if (strstr(reason, "ILLEGAL_INSTRUCTION") || strstr(reason, "INVALID_OPCODE"))
		return "The instruction at the pc is not valid: usually a corrupted code object "
		       "(an allocator overwriting the kernel's code), rarely a compiler bug.";
	return NULL;
}

/* "OpaqueType<4>" in the name: the element size in bytes. */
static int opaque_bytes(const char *kernel)
{
	const char *o = strstr(kernel, "OpaqueType<");
	int n;

	return o && sscanf(o + 11, "%d>", &n) == 1 && n > 0 && n <= 64 ? n : 0;
}

char *diagnosis_explain(const char *kernel, const char *reason)
{
	struct strbuf sb = STRBUF_INIT;
	const char *what = NULL, *why;

	for (size_t i = 0; kernel && i < sizeof(known_kernels) / sizeof(*known_kernels); i++)
		if (strstr(kernel, "at::native::") && strstr(kernel, known_kernels[i].fragment)) {
			what = known_kernels[i].what;
			break;
		}
	why = reason_sentence(reason, what != NULL);
	if (what) {
		int bytes = opaque_bytes(kernel);

		strbuf_addf(&sb, "This PyTorch kernel implements %s", what);
		if (bytes)
			strbuf_addf(&sb, " on %d-byte elements", bytes);
		strbuf_addstr(&sb, ".");
	}
	if (why)
		strbuf_addf(&sb, "%s%s", sb.len ? " " : "", why);
	if (!sb.len) {
		strbuf_release(&sb);
		return NULL;
	}
	return strbuf_detach(&sb, NULL);
}

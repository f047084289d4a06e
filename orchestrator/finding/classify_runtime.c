/* The GPU runtime's fault and abort lines (ROCr's memory access fault,
 * HIP's Memory Fault Error, queue aborts, HSA status codes,
 * rocm-debug-agent's wave dump), and the words around "replay": the stop
 * markers (read through orchestrator/finding/marker.h) and hrr-playback's abort words;
 * the dispatch assignments a fault is attributed to. */
#include "orchestrator/finding/classify_state.h"

#include <limits.h>

void classify_maf(struct classifier *c, const char *p, const char *end)
{
	struct finding *f = &c->f;
	const char *q = p + sizeof("Memory access fault by GPU node-") - 1;
	const char *node = q, *a, *h, *r;

	c->maf_line = true;
	saw_fault(c);
	while (q < end && is_digit(*q))
		q++;
	if (c->maf_address)
		return; /* the first fault is the one that matters */
	set_once(&f->gpu_node, node, q);
	a = find(q, end, LIT("on address "));
	if (!a)
		return;
	a += sizeof("on address ") - 1;
	/* ROCr prints the address with %p: a null one is glibc's "(nil)". */
	if (has_prefix(a, end, LIT("(nil)"))) {
		c->maf_address = xstrdup("0x0");
		c->maf_nil = true;
		h = a + 5;
	} else {
		h = hex_token(a, end);
		if (!h)
			return;
		c->maf_address = dup_range(a, h);
	}
	if (has_prefix(h, end, LIT("(may not be exact address)")))
		c->maf_imprecise = true;
	r = find(h, end, LIT("Reason:"));
	if (r)
		classify_reason(c, r + 7, end);
	else
		c->reason_lines = FINDING_REASON_LINES;
}

/* "<reason>." (ROCr ends it with a period); on a cut line a reason without
 * its period is cut too, and not read. */
void classify_reason(struct classifier *c, const char *r, const char *end)
{
	const char *b;

	r = skip_blanks(r, end);
	b = memchr(r, '.', span(r, end));
	if (!b && c->cut)
		return;
	b = trim_end(r, b ? b : end);
	if (b <= r || c->f.fault_reason)
		return;
	c->f.fault_reason = dup_range(r, b);
	for (const char *x = r; x + 9 <= b; x++)
		if (!strncasecmp(x, "read-only", 9)) {
			c->maf_read_only = true;
			break;
		}
}

/* "kernel: <name>]" inside a runtime bracket; the name runs to the last ']'. */
static void bracket_kernel(char **dst, const char *p, const char *end)
{
	const char *k = find(p, end, LIT("kernel: "));
	const char *b;

	if (!k)
		return;
	k += 8;
	b = end;
	while (b > k && b[-1] != ']')
		b--;
	/* No closing bracket: the name is cut (a log cut mid-line, a line
	 * read in windows), and a cut name is never used. */
	if (b <= k)
		return;
	b = trim_end(k, b - 1);
	if (b > k && !(b - k == 6 && !memcmp(k, "(null)", 6)))
		set_once(dst, k, b);
}

/* Memory Fault Error [host: x, GPU index: 0, faulting addr: 0x..., kernel: <name>] */
void classify_mfe(struct classifier *c, const char *p, const char *end)
{
	const char *a = find(p, end, LIT("faulting addr: "));

	c->mfe_line = true;
	saw_fault(c);
	if (a) {
		const char *h = hex_token(a + 15, end);

		if (h)
			set_once(&c->mfe_address, a + 15, h);
	}
	bracket_kernel(&c->mfe_kernel, p, end);
}

/* aborting with error ... [... kernel: <name>] */
void classify_queue_abort(struct classifier *c, const char *p, const char *end)
{
	saw_fault(c);
	bracket_kernel(&c->queue_kernel, p, end);
}

void classify_hsa_status(struct classifier *c, const char *p, const char *end)
{
	const char *q = p;

	while ((q = find(q, end, LIT("HSA_STATUS_ERROR_"))) != NULL) {
		enum hsa_status s = HSA_NONE;

		q += sizeof("HSA_STATUS_ERROR_") - 1;
		if (has_prefix(q, end, LIT("MEMORY_FAULT"))) {
			c->hsa_memory_fault = true;
			s = HSA_MEMORY_FAULT;
		} else if (has_prefix(q, end, LIT("ABORTED"))) {
			c->hsa_aborted = true;
			s = HSA_ABORTED;
		} else if (has_prefix(q, end, LIT("EXCEPTION"))) {
			c->hsa_exception = true;
			s = HSA_EXCEPTION;
		}
		if (s != HSA_NONE) {
			saw_fault(c);
			if (c->hsa_first == HSA_NONE)
				c->hsa_first = s;
		}
	}
}

/* The orchestrator's (or the shell workflow's) stop markers, and the
 * replay's own "aborting replay" / "Replay aborted". */
/* A stop marker: the runner's word on how the replay ended. */
static void on_marker(struct classifier *c, const struct marker *m)
{
	struct finding *f = &c->f;

	switch (m->ended_by) {
	case ENDED_TIMEOUT:
	case ENDED_PROGRESS_TIMEOUT:
		c->timeout = true;
		f->timeout_s = m->seconds;
		if (m->ended_by == ENDED_PROGRESS_TIMEOUT)
			f->timeout_without_output = true;
		break;
	case ENDED_SIGNAL:
		c->signal_marker = true;
		f->replay_signal = m->signal;
		break;
	case ENDED_OOM:
		f->saw_oom_marker = true;
		break;
	case ENDED_INTERRUPT:
		f->saw_user_interrupt = true;
		if (m->signal_name)
			set_last(&f->interrupt_signal, m->signal_name,
				 m->signal_name + m->signal_name_len);
		break;
	case ENDED_EXIT:
		break;
	}
}

void classify_replay_word(struct classifier *c, const char *p, const char *from,
			  const char *end)
{
	const char *q = from;
	struct marker m;

	while ((q = find(q, end, LIT("eplay"))) != NULL) {
		const char *w = q - 1; /* 'r' or 'R' */
		const char *r = q + 5;

		q = r;
		if (w < p || (r < end && *r != ' '))
			continue;
		if (*w == 'R') {
			if (has_prefix(r, end, LIT(" aborted")))
				c->replay_aborted = true;
			continue;
		}
		if (*w != 'r')
			continue;
		if (w >= p + 9 && !memcmp(w - 9, "aborting ", 9))
			c->aborting_replay = true;
		if (marker_parse(w, end, &m))
			on_marker(c, &m);
	}
}

/* The agent's wave line, both generations:
 *   wave_N: pc=0x... (stopped, reason: R)                                (old)
 *   wave_N: pc=0x... (kernel_code_entry=0x... <FQN>) (stopped, reason: R)
 *   wave_N: pc=0x... (kernel_code_entry=0x... <FQN>, kernargs=0x...) (stopped, reason: R)
 *   wave_N: pc=0x... (kernel_code_entry=not available) (running)
 * Only a stopped wave whose entry names a symbol names a kernel here. */
void classify_agent_wave(struct classifier *c, const char *p, const char *end)
{
	const char *e = find(p, end, LIT("(kernel_code_entry="));
	const char *h, *stop, *a, *b, *k;

	if (!e || c->agent_kernel)
		return;
	h = hex_token(e + 19, end);
	stop = h ? find(h, end, LIT(") (stopped, reason: ")) : NULL;
	if (!stop)
		return;
	a = skip_blanks(h, stop);
	b = stop;
	/* ", kernargs=0x..." after the symbol (ROCm 7): the last one, since a
	 * symbol may itself hold the text. */
	for (k = a; (k = find(k, stop, LIT(", kernargs="))) != NULL; k++)
		b = k;
	b = trim_end(a, b);
	if (a < b && *a == '<' && b[-1] == '>') {
		a++;
		b--;
	}
	if (a < b)
		set_once(&c->agent_kernel, a, b);
	a = stop + sizeof(") (stopped, reason: ") - 1;
	b = memchr(a, ')', span(a, end));
	set_once(&c->agent_reason, a, b ? b : end);
}

/* HW Exception by GPU node-N (Agent handle: 0x...) reason :REASON
 * (ROCr's runtime.cpp; a space before the colon and none after). The
 * reason is "GPU Hang" or an ECC text. */
void classify_hw_exception(struct classifier *c, const char *p, const char *end)
{
	const char *q = p + sizeof("HW Exception by GPU node-") - 1;
	const char *node = q, *r;

	saw_fault(c);
	while (q < end && is_digit(*q))
		q++;
	if (c->hw != HW_NONE)
		return; /* the first exception is the one that matters */
	c->hw = HW_OTHER;
	set_once(&c->hw_node, node, q);
	r = find(q, end, LIT(" reason :"));
	if (!r || c->cut)
		return;
	r = skip_blanks(r + sizeof(" reason :") - 1, end);
	end = trim_end(r, end);
	if (r >= end)
		return;
	set_once(&c->hw_reason, r, end);
	if (has_prefix(r, end, LIT("GPU Hang")))
		c->hw = HW_GPU_HANG;
	else if (find(r, end, LIT("ECC")))
		c->hw = HW_ECC;
}

/* The older agent (rocr_debug_agent): "System event (HSA_AMD_GPU_MEMORY_FAULT_EVENT)"
 * then "Faulting page: 0x7f3ade000000", then its waves and abort(). */
void classify_agent_event(struct classifier *c, const char *s, const char *end)
{
	if (has_prefix(s, end, LIT("System event (HSA_AMD_GPU_MEMORY_FAULT_EVENT)"))) {
		c->agent_memory_event = true;
		saw_fault(c);
	} else if (has_prefix(s, end, LIT("Faulting page: ")) && c->agent_memory_event) {
		const char *a = s + sizeof("Faulting page: ") - 1;
		const char *h = hex_token(a, end);

		if (h)
			set_once(&c->agent_page, a, h);
	}
}

/* kernarg_address=0x... / grid=[x,y,z], workgroup=[x,y,z]: the dispatch
 * printed last before the fault, else the first after it. */
void classify_assignments(struct classifier *c, const char *kernarg, const char *grid,
			  const char *end)
{
	struct finding *f = &c->f;

	if (kernarg) {
		const char *h = hex_token(kernarg + 16, end);

		if (h) {
			if (!c->fault_seen)
				set_last(&f->kernarg_address, kernarg + 16, h);
			else
				set_once(&f->kernarg_address, kernarg + 16, h);
		}
	}
	if (grid) {
		const char *g = grid + 6;
		const char *ge = memchr(g, ']', span(g, end));
		const char *w = ge && has_prefix(ge, end, LIT("], workgroup=[")) ? ge + 14 : NULL;
		const char *we = w ? memchr(w, ']', span(w, end)) : NULL;

		if (we && (!c->fault_seen || !f->grid)) {
			set_last(&f->grid, g, ge);
			set_last(&f->workgroup, w, we);
		}
	}
}


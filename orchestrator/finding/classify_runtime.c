/* The GPU runtime's fault and abort lines (ROCr's memory access fault,
 * HIP's Memory Fault Error, queue aborts, HSA status codes,
 * rocm-debug-agent's wave dump), and the words around "replay": the stop
 * markers (read through orchestrator/finding/marker.h) and hrr-playback's abort words;
 * the dispatch assignments a fault is attributed to. */
#include "orchestrator/finding/classify_state.h"

#include <limits.h>
#include <stdio.h>

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

/* The first runtime status decides, unless a later one says more: a status
 * with a class of its own outranks one that only says the queue stopped
 * (replay_aborted), so a MEMORY_FAULT after an EXCEPTION line is a fault
 * (issue 40 §1.1). printed: the name or code as the line had it (a name
 * the table does not know is kept for the note). true when this status
 * now decides. */
static bool saw_status(struct classifier *c, const struct runtime_status *st,
		       const char *printed, const char *printed_end)
{
	if (st->outcome == OUTCOME_UNKNOWN)
		return false;
	if (c->status && (c->status->fault_class != FAULT_REPLAY_ABORTED ||
			  st->fault_class == FAULT_REPLAY_ABORTED))
		return false;
	c->status = st;
	free(c->status_printed);
	c->status_printed = printed_end > printed ? dup_range(printed, printed_end) : NULL;
	return true;
}

static const char *word_end(const char *p, const char *end)
{
	while (p < end && is_word(*p))
		p++;
	return p;
}

/* A status code "0x2b" at p (at most 8 hex digits); -1 when there is none,
 * or when it runs to the end of a cut line (a cut number is not read). */
static long long status_hex(const struct classifier *c, const char *p, const char *end)
{
	const char *h = hex_token(p, end);
	long long v = 0;

	if (!h || h - p > 10 || (c->cut && h == end))
		return -1;
	for (const char *x = p + 2; x < h; x++)
		v = v * 16 + (isdigit((unsigned char)*x) ? *x - '0'
			      : tolower((unsigned char)*x) - 'a' + 10);
	return v;
}

/* "code: 0x2b" / "Code: 0x1008" after the status text; -1 when absent. */
static long long status_code_after(const struct classifier *c, const char *p, const char *end)
{
	const char *k = find(p, end, LIT("ode: 0x"));

	if (!k || k == p || (k[-1] != 'c' && k[-1] != 'C'))
		return -1;
	return status_hex(c, k + 5, end);
}

/* A queue abort's status, and the kernel its bracket names: the kernel
 * comes from the line whose status decided (a later, more specific status
 * takes its line's kernel, or none). */
static void queue_status(struct classifier *c, const struct runtime_status *st, const char *name,
			 const char *name_end, long long code, const char *p, const char *end)
{
	bool replaces = c->status != NULL;
	bool decided = false;
	char *kernel = NULL;

	if (st && name)
		decided = saw_status(c, st, name, name_end);
	else if (st) {
		char buf[32];

		snprintf(buf, sizeof(buf), "code 0x%llx", code);
		decided = saw_status(c, st, buf, buf + strlen(buf));
	}
	bracket_kernel(&kernel, p, end);
	if (decided && replaces) {
		free(c->queue_kernel);
		c->queue_kernel = kernel;
	} else if (!c->queue_kernel) {
		c->queue_kernel = kernel;
	} else {
		free(kernel);
	}
}

/* CLR's queue callback (rocdevice.cpp), every generation:
 *   Device::callbackQueue aborting with status: 0x100f               (oldest)
 *   Device::callbackQueue aborting with error : NAME: text code: 0x2a
 *   Callback: Queue 0x... aborting with error : NAME: text code: 0x2a [GPU index: 0, kernel: K]
 *   Callback: Queue 0x... Aborting with error : NAME: text Code: 0x1008 Available Free mem : N MB
 * p is at "aborting with" / "Aborting with". The name is looked up in the
 * status table, else the code; neither known: a status this version does
 * not know, named in a note. */
void classify_queue_abort(struct classifier *c, const char *p, const char *end)
{
	const char *q = p + sizeof("aborting with ") - 1;
	const char *name = NULL, *name_end = NULL;
	const struct runtime_status *st = NULL;
	long long code = -1;

	saw_fault(c);
	if (has_prefix(q, end, LIT("status:"))) {
		code = status_hex(c, skip_blanks(q + 7, end), end);
	} else {
		q = skip_blanks(q + sizeof("error") - 1, end);
		if (q < end && *q == ':')
			q = skip_blanks(q + 1, end);
		if (has_prefix(q, end, LIT("HSA_STATUS_"))) {
			name = q;
			name_end = word_end(q, end);
			if (c->cut && name_end == end)
				name = name_end = NULL; /* a cut name is not read */
		}
		if (!name)
			code = status_code_after(c, q, end);
	}
	/* The name decides when there is one (a code alone only in the oldest
	 * form): a name the table does not know is a status this version does
	 * not know, whatever its code. */
	if (name)
		st = runtime_status_by_name(name, span(name, name_end));
	else if (code >= 0)
		st = runtime_status_by_hsa_code(code);
	if (!st && (name || code >= 0))
		st = runtime_status_other();
	queue_status(c, st, name, name_end, code, p, end);
}

/* Any HSA_STATUS_ERROR_<NAME> in a line (a queue abort, the older agent's
 * "Queue error (...)", a runtime's "hsa api call failure ... NAME"), and
 * the bare generic HSA_STATUS_ERROR (0x1000, "with error: HSA_STATUS_ERROR:
 * A generic error has occurred" of HIP's older hip_memory.cpp). */
void classify_hsa_status(struct classifier *c, const char *p, const char *end)
{
	const char *q = p;

	while ((q = find(q, end, LIT("HSA_STATUS_ERROR"))) != NULL) {
		const char *e = word_end(q, end);
		const struct runtime_status *st;

		if (c->cut && e == end)
			break;
		st = runtime_status_by_name(q, span(q, e));
		if (!st)
			st = runtime_status_other();
		if (st->outcome != OUTCOME_UNKNOWN) {
			saw_fault(c);
			saw_status(c, st, q, e);
		}
		q = e;
	}
}

void classify_hip_code(struct classifier *c, long long code, bool after_launch,
		       const char *api, const char *api_end)
{
	const struct runtime_status *st = runtime_status_by_hip_code(code);

	if (!st || c->hip)
		return;
	saw_fault(c);
	c->hip = st;
	c->hip_after_launch = after_launch;
	if (api && api_end > api)
		c->hip_api = dup_range(api, api_end);
}

/* hipErrorIllegalAddress, hipErrorAssert, ... by name anywhere (HIP's
 * hipGetErrorName(), in hrr-playback's lines or a framework's). */
bool classify_hip_name(struct classifier *c, const char *p, const char *end)
{
	const char *e = word_end(p, end);
	const struct runtime_status *st;

	if (c->cut && e == end)
		return true;
	st = runtime_status_by_name(p, span(p, e));
	if (!st || st->origin != RUNTIME_HIP)
		return false;
	classify_hip_code(c, st->code, false, NULL, NULL);
	return true;
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


/* The streaming classifier: replay log bytes in, one finding out.
 *
 * One pass, line by line, with a fixed-size line buffer: a line longer than
 * FINDING_LINE_MAX is read in overlapping windows of that buffer (its head
 * by every rule, the rest for the runtime's lines), so memory stays bounded
 * whatever the log holds and nothing written after a long line is lost. Lines only record evidence; the
 * precedence of docs/findings.md (outcome and fault class, each "first match
 * wins" over the whole input) is applied once, in classifier_finish().
 *
 * Hot path: most lines of a long log are heartbeats, verbose event lines or
 * pointer-argument lines, recognised by their prefix for a few comparisons.
 * Every other line gets one pass that finds all the anchors the remaining
 * rules need (classify_anchor.c), instead of one substring search per rule.
 *
 * Calls run one way: classify.c -> classify_<kind>.c -> classify_text.h
 * (classify_decide.c, at the end, flushes through classify.c). */
#include "orchestrator/finding/classify_state.h"

/* A cut line's last token may be a cut number ("seq=20" of "seq=2047", an
 * address cut after "0x7f"): it is not read. */
static const char *drop_cut_token(const char *s, const char *end)
{
	if (end <= s || !isxdigit((unsigned char)end[-1]))
		return end;
	while (end > s && is_word(end[-1]))
		end--;
	return end;
}

/* A fault line without its "Reason:" (two writes with another thread's
 * output between them): the reason may come on one of the next lines. */
static void late_reason(struct classifier *c, const char *p, const char *end)
{
	const char *r = find(p, end, LIT("Reason: "));

	c->reason_lines--;
	if (r) {
		classify_reason(c, r + 8, end);
		c->reason_lines = 0;
	}
}

/* One line (or the first window of an overlong one: anchors from limit on
 * are read in the next window). */
static void classify_line(struct classifier *c, const char *p, size_t len, size_t limit)
{
	const char *end = p + len;
	const char *lim = p + limit;
	const char *s;
	struct anchors a;

	if (len && end[-1] == '\r')
		end--;
	if (c->cut)
		end = drop_cut_token(p, end);
	if (lim > end)
		lim = end;
	if (c->reason_lines > 0)
		late_reason(c, p, end);
	s = skip_blanks(p, end);
	if (end - s >= 4 && s[0] == '[' && s[1] == 'H' && s[2] == 'R' && s[3] == 'R') {
		if (classify_hrr(c, s, end))
			return;
		classify_scan_anchors(s, end, &a);
	} else {
		if (classify_info(c, p, end))
			return;
		classify_scan_anchors(s, end, &a);
		/* A prefixed line ("<timestamp> [HRR] PASS", "[triage] ...", a
		 * colour code), or another write spliced in front of an [HRR]
		 * line: the text before it is read for the runtime's anchors. */
		if (a.hrr && classify_hrr(c, a.hrr, end)) {
			const char *hrr = a.hrr;

			classify_anchors_before(&a, hrr < lim ? hrr : lim);
			classify_generic(c, s, hrr, &a);
			return;
		}
	}
	/* Most lines are read whole: nothing lies past their limit. */
	if (lim < end)
		classify_anchors_before(&a, lim);
	classify_generic(c, s, end, &a);
}

/* A window of an overlong line after its first: only the runtime's
 * anchors can start there. */
static void classify_window(struct classifier *c, const char *p, size_t len, size_t limit)
{
	const char *end = p + len;

	if (!c->continued) {
		classify_line(c, p, len, limit);
		return;
	}
	if (c->cut)
		end = drop_cut_token(p, end);
	classify_anchored(c, p, end, p + (limit < len ? limit : len));
}

/* Whether the runtime's status or HIP code (runtime_status.h) gave a
 * verdict: a memory fault (MAF) when fault, any other when not. */
static bool runtime_says(const struct classifier *c, bool fault)
{
	const struct runtime_status *rows[] = { c->status, c->hip };

	for (size_t i = 0; i < 2; i++)
		if (rows[i] && rows[i]->outcome != OUTCOME_UNKNOWN &&
		    (rows[i]->outcome == OUTCOME_MAF) == fault)
			return true;
	return false;
}

/* Hot path: called twice a line, so one expression, no table or loop. */
#define BIT(kind, cond) ((unsigned)!!(cond) << (kind))
unsigned classify_evidence_bits(const struct classifier *c)
{
	unsigned bits = BIT(EV_VERSION, c->version_mismatch) | BIT(EV_HW, c->hw != HW_NONE) |
			BIT(EV_TIMEOUT, c->timeout) | BIT(EV_WATCHDOG, c->f.saw_watchdog) |
			BIT(EV_OOM_TEXT, c->oom_text) | BIT(EV_MAF, c->maf_line) |
			BIT(EV_MFE, c->mfe_line) | BIT(EV_AGENT, c->agent_memory_event) |
			BIT(EV_ASSERT, c->device_assert || c->missing_co) | BIT(EV_FATAL, c->fatal) |
			BIT(EV_FAIL, c->fail) |
			BIT(EV_D2H_FAIL, c->f.d2h_failure_lines > 0 || c->prog_fail > 0 ||
						 c->sum_fail > 0) |
			BIT(EV_DIVERGED, c->diverged) | BIT(EV_SCHED, c->sched_line) |
			BIT(EV_ABORTED, c->replay_aborted || c->aborting_replay ||
						c->critical_reason || c->critical_node) |
			BIT(EV_INTERRUPT, c->f.saw_user_interrupt) |
			BIT(EV_SIGNAL, c->signal_marker) | BIT(EV_OOM_MARKER, c->f.saw_oom_marker);

	if (c->status || c->hip)
		bits |= BIT(EV_HSA_FAULT, runtime_says(c, true)) |
			BIT(EV_HSA_ABORT, runtime_says(c, false));
	return bits;
}
#undef BIT

/* The line (window) and, for each kind of evidence it was the first to
 * record, the line itself: from its first anchor on, at most
 * EVIDENCE_LINE_MAX bytes. */
static void classify_piece(struct classifier *c, const char *p, size_t len, size_t limit)
{
	unsigned before = classify_evidence_bits(c), added;

	classify_window(c, p, len, limit);
	added = classify_evidence_bits(c) & ~before;
	for (unsigned k = 0; added && k < EV__COUNT; k++) {
		const char *end = p + len, *at;

		if (!(added >> k & 1) || c->ev_line[k])
			continue;
		if (!(at = finding_line_anchor(p, end)))
			at = p;
		if (end - at > EVIDENCE_LINE_MAX)
			end = at + EVIDENCE_LINE_MAX;
		c->ev_line[k] = dup_range(at, trim_end(at, end));
	}
}

/* The buffer is full and the line goes on: read this window, keep its
 * last FINDING_LINE_OVERLAP bytes as the start of the next. */
static void window_out(struct classifier *c)
{
	size_t keep = FINDING_LINE_OVERLAP;

	if (!c->continued)
		c->line_no++;

	classify_piece(c, c->line, c->line_len, c->line_len - keep);
	memmove(c->line, c->line + c->line_len - keep, keep);
	c->line_len = keep;
	c->continued = true;
}

static void line_end(struct classifier *c)
{
	if (!c->continued)
		c->line_no++;
	classify_piece(c, c->line, c->line_len, c->line_len);
	c->line_len = 0;
	c->continued = false;
}

void classify_flush(struct classifier *c)
{
	if (!c->line_len && !c->continued)
		return;
	c->cut = true;
	line_end(c);
	c->cut = false;
}

/* ---- public ---- */

struct classifier *classifier_new(const char *source_name)
{
	struct classifier *c = xcalloc(1, sizeof(*c));

	classify_anchors_init();
	c->source = xstrdup_or_null(source_name);
	c->line = xmalloc(FINDING_LINE_MAX);
	finding_init(&c->f);
	strbuf_init(&c->prog_last, 0);
	strbuf_init(&c->ev_api, 0);
	strbuf_init(&c->ev_kernel, 0);
	c->prog_seq = c->prog_kernels = c->prog_pass = c->prog_fail = c->prog_attempted = -1;
	c->sum_kernels = -1;
	c->watchdog_ms = c->watchdog_seq = -1;
	c->diverged_seq = c->diverged_fail = c->diverged_total = -1;
	c->d2h_unchecked = c->events_failed = c->co_unloadable = c->region_oob = -1;
	c->launch_seq = c->sync_seq = -1;
	strvec_init(&c->pid_dirs);
	return c;
}

void classifier_free(struct classifier *c)
{
	if (!c)
		return;
	free(c->source);
	free(c->line);
	finding_release(&c->f);
	strbuf_release(&c->prog_last);
	strbuf_release(&c->ev_api);
	strbuf_release(&c->ev_kernel);
	free(c->maf_address);
	free(c->mfe_address);
	free(c->fatal_api);
	free(c->mfe_kernel);
	free(c->queue_kernel);
	free(c->gpu_error_kernel);
	free(c->agent_kernel);
	free(c->agent_reason);
	free(c->watchdog_kernel);
	free(c->watchdog_at);
	free(c->hw_reason);
	free(c->hw_node);
	free(c->agent_page);
	for (size_t k = 0; k < EV__COUNT; k++)
		free(c->ev_line[k]);
	free(c->status_printed);
	free(c->hip_api);
	free(c->noop_api);
	free(c->critical_reason);
	free(c->critical_node);
	free(c->sched_line);
	free(c->launch_kernel);
	free(c->sync_kernel);
	for (size_t i = 0; i < c->n_unread; i++) {
		free(c->unread[i].kind);
		free(c->unread[i].text);
	}
	strvec_clear(&c->pid_dirs);
	free(c);
}

/* Bytes of an unfinished line into the buffer, a window at a time. */
static void buffer_line(struct classifier *c, const char *p, size_t n)
{
	while (n) {
		size_t room, k;

		if (c->line_len == FINDING_LINE_MAX)
			window_out(c);
		room = FINDING_LINE_MAX - c->line_len;
		k = n < room ? n : room;
		memcpy(c->line + c->line_len, p, k);
		c->line_len += k;
		p += k;
		n -= k;
	}
}

void classifier_feed(struct classifier *c, const char *data, size_t len)
{
	while (len) {
		const char *nl = memchr(data, '\n', len);
		size_t take = nl ? span(data, nl) : len;

		if (!c->line_len && !c->continued && nl && take <= FINDING_LINE_MAX) {
			c->line_no++;
			classify_piece(c, data, take, take);
		} else {
			buffer_line(c, data, take);
			if (nl)
				line_end(c);
		}
		if (nl)
			take++;
		data += take;
		len -= take;
	}
}

void classifier_cut_line(struct classifier *c)
{
	classify_flush(c);
}


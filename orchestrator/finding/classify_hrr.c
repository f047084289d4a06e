/* hrr-playback's own `[HRR]` lines: verdict, summary, D2H checks, Fatal,
 * version mismatch, divergence, its sync watchdog. */
#include "orchestrator/finding/classify_state.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>

#include "common/text.h"

static void add_d2h_failure(struct classifier *c, struct d2h_failure *d)
{
	struct finding *f = &c->f;

	f->d2h_failure_lines++;
	if (f->n_d2h_failures >= FINDING_MAX_D2H_FAILURES) {
		free(d->tag);
		free(d->src);
		return;
	}
	f->d2h_failures = xrealloc(f->d2h_failures, (f->n_d2h_failures + 1) * sizeof(*d));
	f->d2h_failures[f->n_d2h_failures++] = *d;
}

/* [HRR] <tag> D2H FAIL seq=N[ (exact)]: B bytes, D/B bytes differ ...[, max|d|=X maxrel=Y] */
static void on_d2h_fail(struct classifier *c, const char *tag, const char *tag_end,
			const char *rest, const char *end)
{
	struct d2h_failure d = { .seq = -1, .bytes = -1, .bytes_differ = -1 };
	const char *colon, *q, *m;
	long long v;

	d.tag = tag_end > tag ? dup_range(tag, tag_end) : NULL;
	if (num_after(rest, end, LIT("seq="), &v))
		d.seq = v;
	colon = memchr(rest, ':', span(rest, end));
	if (colon) {
		q = skip_blanks(colon + 1, end);
		if (parse_num(&q, end, &v) && has_prefix(q, end, LIT(" bytes")))
			d.bytes = v;
		q = skip_blanks(q + (has_prefix(q, end, LIT(" bytes")) ? 6 : 0), end);
		if (*q == ',')
			q = skip_blanks(q + 1, end);
		if (parse_num(&q, end, &v) && q < end && *q == '/')
			d.bytes_differ = v;
	}
	m = find(rest, end, LIT("max|d|="));
	if (m && parse_double(m + 7, end, &d.max_abs)) {
		const char *r = find(m, end, LIT("maxrel="));

		if (r && parse_double(r + 7, end, &d.max_rel))
			d.has_max = true;
	}
	add_d2h_failure(c, &d);
}

/* [HRR] D2H validate FAIL: src 0x... not mapped — pointer translation bug */
static void on_d2h_validate(struct classifier *c, const char *p, const char *end)
{
	struct d2h_failure d = { .seq = -1, .bytes = -1, .bytes_differ = -1 };
	const char *s = find(p, end, LIT("src "));

	if (s) {
		const char *h = hex_token(s + 4, end);

		if (h)
			d.src = dup_range(s + 4, h);
	}
	add_d2h_failure(c, &d);
}

/* The HIP code of a Fatal line: "(<api>) returned <code> (" on the call
 * that failed, or "GPU error after T.. Event N (<api>): <code> (" under
 * --sync-after-event. A device-side code there surfaced on that call, not
 * necessarily in the kernel it launched. */
static void fatal_hip_code(struct classifier *c, const char *p, const char *end)
{
	const char *r = find(p, end, LIT(") returned "));
	const char *open, *q;
	long long code;

	if (!r && (r = find(p, end, LIT(" after pass failed: "))) != NULL) {
		/* "Fatal: hipDeviceSynchronize after pass failed: N (...)": the
		 * end-of-pass sync; the code is a device-side one. */
		const char *api = skip_blanks(p, r);

		q = r + sizeof(" after pass failed: ") - 1;
		if (parse_num(&q, end, &code) && !(c->cut && q == end))
			classify_hip_code(c, code, false, api, r);
		return;
	}
	if (r) {
		q = r + sizeof(") returned ") - 1;
	} else {
		r = find(p, end, LIT("): "));
		if (!r || !find(p, r, LIT("GPU error after ")))
			return;
		q = r + 3;
	}
	if (!parse_num(&q, end, &code) || (c->cut && q == end))
		return;
	open = r;
	while (open > p && open[-1] != '(')
		open--;
	/* "GPU error after ... (<a launch>)": the sync after that launch. */
	classify_hip_code(c, code, !has_prefix(r, end, LIT(") returned ")) && open > p &&
			  find(open, r, LIT("Launch")), open > p ? open : NULL, r);
}

/* T<thread> Event <n> (<api>) inside a Fatal line. */
static void on_fatal(struct classifier *c, const char *p, const char *end)
{
	const char *q = p;

	c->fatal = true;
	saw_fault(c);
	fatal_hip_code(c, p, end);
	if (says_out_of_memory(p, end) || find(p, end, LIT("hipErrorOutOfMemory")))
		c->fatal_oom = true;
	if (c->have_fatal_call)
		return;
	while ((q = memchr(q, 'T', span(q, end))) != NULL) {
		const char *r = q + 1;
		long long thread, idx;

		q++;
		if (!parse_num(&r, end, &thread) || !has_prefix(r, end, LIT(" Event ")))
			continue;
		r += 7;
		if (!parse_num(&r, end, &idx) || !has_prefix(r, end, LIT(" (")))
			continue;
		r += 2;
		{
			const char *close = memchr(r, ')', span(r, end));

			if (!close || close == r)
				continue;
			c->have_fatal_call = true;
			c->fatal_thread = thread;
			c->fatal_index = idx;
			c->fatal_api = dup_range(r, close);
		}
		return;
	}
}

/* [HRR][WATCHDOG] GPU sync did not complete within N ms at: <what> */
static void on_watchdog(struct classifier *c, const char *p, const char *end)
{
	const char *at = find(p, end, LIT("GPU sync did not complete within "));
	const char *q, *what;

	if (!at)
		return;
	c->f.saw_watchdog = true;
	saw_fault(c);
	q = at + sizeof("GPU sync did not complete within ") - 1;
	parse_num(&q, end, &c->watchdog_ms);
	what = find(q, end, LIT(" at: "));
	if (!what)
		return;
	what += 5;
	end = trim_end(what, end);
	set_once(&c->watchdog_at, what, end);
	/* hrr-playback: kernel #N "<name>" (seq=S, grid=[...] block=[...]) */
	if (has_prefix(what, end, LIT("kernel #"))) {
		const char *a = memchr(what, '"', span(what, end));
		const char *b = a ? memchr(a + 1, '"', span(a + 1, end)) : NULL;
		long long seq;

		if (a && b && b > a + 1 && !is_compacted_name(a + 1, b))
			set_once(&c->watchdog_kernel, a + 1, b);
		if (b && num_after(b, end, LIT("seq="), &seq))
			c->watchdog_seq = seq;
		return;
	}
	/* Otherwise a bare symbol names the kernel; a sync point ("recorded
	 * hipDeviceSynchronize event", "sync-after-event", "end-of-pass device
	 * synchronize") names none. */
	if (c->cut || find(what, end, LIT("ynchroniz")) || has_prefix(what, end, LIT("sync-after-")) ||
	    is_compacted_name(what, end))
		return;
	if (!memchr(what, ' ', span(what, end)) || find(what, end, LIT("::")) ||
	    memchr(what, '(', span(what, end)))
		set_once(&c->watchdog_kernel, what, end);
}

/* D2H checks : P pass (E exact, T within tol), F fail, S skipped
 * D2H checks   : P pass, F fail, S skipped          (newer builds) */
static void on_d2h_summary(struct classifier *c, const char *q, const char *end)
{
	long long pass, fail, skipped;
	const char *r;

	q = skip_blanks(q, end);
	if (q >= end || *q != ':')
		return;
	q = skip_blanks(q + 1, end);
	if (!parse_num(&q, end, &pass) || !has_prefix(q, end, LIT(" pass")))
		return;
	r = q + 5;
	if (has_prefix(r, end, LIT(" ("))) {
		r = memchr(r, ')', span(r, end));
		if (!r)
			return;
		r++;
	}
	if (!has_prefix(r, end, LIT(", ")))
		return;
	r += 2;
	if (!parse_num(&r, end, &fail) || !has_prefix(r, end, LIT(" fail, ")))
		return;
	r += 7;
	if (!parse_num(&r, end, &skipped))
		return;
	c->have_sum_d2h = true;
	c->sum_pass = pass;
	c->sum_fail = fail;
	c->sum_attempted = sat_add(sat_add(pass, fail), skipped);
}

/* The units a GPU time may come in, to milliseconds. hrr-playback prints
 * "%.1f ms"; a time in another unit read as milliseconds would be a
 * thousand-fold change in the GPU-time comparison. */
static const struct {
	const char *unit;
	double to_ms;
} time_units[] = {
	{ "ms", 1 }, { "s", 1e3 }, { "sec", 1e3 }, { "us", 1e-3 }, { "\xc2\xb5s", 1e-3 },
	{ "\xce\xbcs", 1e-3 }, { "ns", 1e-6 },
};

/* The unit token at [u, end): what it multiplies by, 0 when unknown. */
static double time_unit(const char *u, const char *end)
{
	size_t n = span(u, end);

	for (size_t i = 0; i < sizeof(time_units) / sizeof(time_units[0]); i++)
		if (strlen(time_units[i].unit) == n && !memcmp(u, time_units[i].unit, n))
			return time_units[i].to_ms;
	return 0;
}

/* ": X UNIT" after a GPU-time label: X converted to milliseconds into
 * *dst. Not a finite time of at least 0, or a unit not in time_units
 * (none included): *dst is left unread and the unit kept for a note. */
static void on_time(struct classifier *c, double *dst, const char *q, const char *end)
{
	char tok[64], *stop;
	size_t n = 0;
	const char *u, *ue;
	double v, scale;

	q = skip_blanks(q, end);
	if (q >= end || *q != ':')
		return;
	q = skip_blanks(q + 1, end);
	while (q + n < end && n < sizeof(tok) - 1 && !isspace((unsigned char)q[n]))
		n++;
	memcpy(tok, q, n);
	tok[n] = '\0';
	v = strtod(tok, &stop);
	if (stop == tok || !isfinite(v) || v < 0)
		return;
	u = skip_blanks(q + (stop - tok), end);
	for (ue = u; ue < end && !isspace((unsigned char)*ue); ue++)
		;
	scale = time_unit(u, ue);
	if (scale > 0) {
		*dst = v * scale;
		return;
	}
	if (!c->time_unit_unread[0])
		snprintf(c->time_unit_unread, sizeof(c->time_unit_unread), "%.*s",
			 u < ue ? (int)text_utf8_cut(u, span(u, ue), sizeof(c->time_unit_unread) - 1) : 6,
			 u < ue ? u : "(none)");
}

/* [HRR] Version mismatch: file=F reader=R */
static void on_version_mismatch(struct classifier *c, const char *q, const char *end)
{
	struct finding *f = &c->f;
	long long file, reader;

	c->version_mismatch = true;
	if (num_after(q, end, LIT("file="), &file) && f->archive_format_version < 0)
		f->archive_format_version = (int)(file > INT_MAX ? INT_MAX : file);
	if (num_after(q, end, LIT("reader="), &reader) && f->reader_format_version < 0)
		f->reader_format_version = (int)(reader > INT_MAX ? INT_MAX : reader);
}

/* [HRR] Archive has no clean-shutdown trailer (capture likely crashed);
 * recovered N events[, trailing torn record discarded] (the reader, when it
 * loads a crashed capture for replay). */
static void on_no_trailer(struct classifier *c, const char *q, const char *end)
{
	long long n;

	c->f.archive_complete = 0;
	if (num_after(q, end, LIT("recovered "), &n))
		c->f.archive_recovered_events = n;
}

/* [HRR] Archive : N events, K kernels, ... (r is after "Archive") */
static void on_archive(struct classifier *c, const char *r, const char *end)
{
	long long events, kernels;

	r = skip_blanks(r, end);
	if (r >= end || *r != ':')
		return;
	c->replay_started |= !c->archive_tool;
	if (!c->archive_tool)
		classify_banner(c);
	r = skip_blanks(r + 1, end);
	if (!parse_num(&r, end, &events) || !has_prefix(r, end, LIT(" events, ")))
		return;
	c->f.archive_events = events;
	r += 9;
	if (parse_num(&r, end, &kernels) && has_prefix(r, end, LIT(" kernels")))
		c->f.archive_kernels = kernels;
}

/* Everything after "[HRR]" that is not a heartbeat, an event or an arg line. */
/* [HRR] GPU kernel/graph/total time, and GPU error after '<kernel>': ...
 * (--sync-after-launch). false: not one of them. */
static bool on_gpu_line(struct classifier *c, const char *q, const char *end)
{
	struct finding *f = &c->f;

	if (has_prefix(q, end, LIT("GPU kernel time")))
		on_time(c, &f->gpu_time_kernel_ms, q + 15, end);
	else if (has_prefix(q, end, LIT("GPU graph time")))
		on_time(c, &f->gpu_time_graph_ms, q + 14, end);
	else if (has_prefix(q, end, LIT("GPU total time")))
		on_time(c, &f->gpu_time_total_ms, q + 14, end);
	else if (has_prefix(q, end, LIT("GPU error after '"))) {
		const char *a = q + sizeof("GPU error after '") - 1;
		const char *b = memchr(a, '\'', span(a, end));

		saw_fault(c);
		if (b) {
			const char *n = b + 1;
			long long code;

			set_once(&c->gpu_error_kernel, a, b);
			if (has_prefix(n, end, LIT(": ")) && (n += 2, parse_num(&n, end, &code)) &&
			    !(c->cut && n == end))
				classify_hip_code(c, code, true, NULL, NULL);
		}
	} else
		return false;
	return true;
}

/* [HRR] replay DIVERGED at recorded event seq S: F/T D2H validations failed.
 * false: not that line. */
static bool on_diverged(struct classifier *c, const char *q, const char *end)
{
	const char *r;

	if (!has_prefix(q, end, LIT("replay DIVERGED")))
		return false;
	c->diverged = true;
	r = find(q, end, LIT("seq "));
	if (r) {
		r += 4;
		parse_num(&r, end, &c->diverged_seq);
		r = skip_blanks(r + (r < end && *r == ':'), end);
		if (parse_num(&r, end, &c->diverged_fail) && r < end && *r == '/') {
			r++;
			parse_num(&r, end, &c->diverged_total);
		}
	}
	return true;
}

/* "<key> : N<what>" of the summary (spacing before the colon varies):
 * N when the line has it followed by what, else -1. */
static long long summary_count(const char *q, const char *end, const char *what, size_t n)
{
	long long v;

	q = skip_blanks(q, end);
	if (q >= end || *q != ':')
		return -1;
	q = skip_blanks(q + 1, end);
	if (!parse_num(&q, end, &v) || !has_prefix(q, end, what, n))
		return -1;
	return v;
}

/* What a FAIL failed on when no D2H check did (hrr-playback's summary):
 *   [HRR]   Events failed  : N (continued past each)
 *   [HRR]   Code objects   : N unloadable (continued)
 *   [HRR]   Region check   : P pointer(s) checked, N intra-segment out-of-bounds/stale
 *   [HRR] ERROR: N D2H validation event(s) attempted but 0 pass/fail recorded (...)
 * true when q was one of them. */
static bool on_fail_cause(struct classifier *c, const char *q, const char *end)
{
	long long v;
	const char *r;

	if (has_prefix(q, end, LIT("Events failed"))) {
		if ((v = summary_count(q + 13, end, LIT(" (continued"))) >= 0)
			c->events_failed = v;
	} else if (has_prefix(q, end, LIT("Code objects"))) {
		if ((v = summary_count(q + 12, end, LIT(" unloadable"))) >= 0)
			c->co_unloadable = v;
	} else if (has_prefix(q, end, LIT("Region check"))) {
		r = find(q, end, LIT(" checked, "));
		if (r && (r += 10, parse_num(&r, end, &v)) && has_prefix(r, end, LIT(" intra-segment")))
			c->region_oob = v;
	} else if (has_prefix(q, end, LIT("ERROR: "))) {
		r = q + 7;
		if (parse_num(&r, end, &v) &&
		    find(r, end, LIT(" D2H validation event(s) attempted but 0 pass/fail recorded")))
			c->d2h_unchecked = v;
	} else {
		return false;
	}
	return true;
}

/* [HRR] Archive root R contains multiple process captures; point hrr-playback
 * at a specific pid directory:   (then "[HRR]   <pid dir>" per process) */
static bool on_archive_root(struct classifier *c, const char *q, const char *end)
{
	if (!has_prefix(q, end, LIT("Archive root ")) ||
	    !find(q, end, LIT(" contains multiple process captures")))
		return false;
	c->multi_refusal = true;
	c->listing_pids = true;
	c->f.multi_process = true;
	return true;
}

/* The replay's no-ops: the explicit-graph refusal (newer builds abort,
 * older ones skip the graph's launches) and a generated NOOP handler's
 * one-time warning. true when q was one of them. */
static bool on_noop(struct classifier *c, const char *q, const char *end)
{
	if (has_prefix(q, end, LIT("hipGraphInstantiate: graph ")) &&
	    (find(q, end, LIT(" not in graph_map")) || find(q, end, LIT(" not found in map")))) {
		c->graph_refused = true;
		c->f.saw_not_replayable = true;
		return true;
	}
	if (has_prefix(q, end, LIT("NOOP playback handler called for "))) {
		const char *a = q + sizeof("NOOP playback handler called for ") - 1;
		const char *b = a;

		while (b < end && is_word(*b))
			b++;
		c->f.saw_not_replayable = true;
		if (!(c->cut && b == end))
			set_once(&c->noop_api, a, b);
		return true;
	}
	return false;
}

/* HIP_CHECK: "[HRR] HIP error %d (%s) at file:line"; true when it is one. */
static bool on_hip_error(struct classifier *c, const char *q, const char *end)
{
	const char *n = q + 10;
	long long code;

	if (!has_prefix(q, end, LIT("HIP error ")))
		return false;
	if (parse_num(&n, end, &code) && !(c->cut && n == end))
		classify_hip_code(c, code, false, NULL, NULL);
	return true;
}

/* "Kernels launched: N", the end-of-run total. */
static void on_kernels_launched(struct classifier *c, const char *q, const char *end)
{
	const char *r;

	if (!has_prefix(q, end, LIT("Kernels launched")))
		return;
	r = skip_blanks(q + 16, end);
	if (r < end && *r == ':') {
		r = skip_blanks(r + 1, end);
		parse_num(&r, end, &c->sum_kernels);
	}
}

/* "D2H checks ..." and "D2H validate FAIL ..."; true when it is one. */
static bool on_d2h_line(struct classifier *c, const char *q, const char *end)
{
	if (has_prefix(q, end, LIT("D2H checks"))) {
		on_d2h_summary(c, q + 10, end);
		return true;
	}
	if (has_prefix(q, end, LIT("D2H validate FAIL"))) {
		on_d2h_validate(c, q, end);
		return true;
	}
	return false;
}

/* A verdict or an archive line, by its first letter; true when the line is
 * done with (nothing else in on_hrr_line can match it). */
static bool on_hrr_keyword(struct classifier *c, const char *q, const char *end)
{
	switch (*q) {
	case 'P':
		if (has_prefix(q, end, LIT("PASS")) && (q + 4 == end || !is_word(q[4]))) {
			c->pass = true;
			c->passes++;
		}
		return true;
	case 'F':
		if (has_prefix(q, end, LIT("FAIL")) && (q + 4 == end || !is_word(q[4]))) {
			c->fail = true;
			return true;
		}
		if (has_prefix(q, end, LIT("Fatal:")))
			on_fatal(c, q + 6, end);
		else
			classify_load_failure(c, q, end);
		return true;
	case 'V':
		if (has_prefix(q, end, LIT("Version mismatch:")))
			on_version_mismatch(c, q, end);
		return true;
	case 'A':
		if (on_archive_root(c, q, end))
			return true;
		if (has_prefix(q, end, LIT("Archive has no clean-shutdown trailer")))
			on_no_trailer(c, q, end);
		else if (has_prefix(q, end, LIT("Archive")))
			on_archive(c, q + 7, end);
		return true;
	case 'C':
		/* The reader's health line, as --info prints it. */
		if (has_prefix(q, end, LIT("Complete:")))
			classify_complete(c, q + 9, end);
		else
			on_fail_cause(c, q, end);
		return true;
	default:
		return false;
	}
}

/* The rest of the lines with a first letter of their own; true when the
 * line is done with. */
static bool on_hrr_report(struct classifier *c, const char *q, const char *end)
{
	switch (*q) {
	case 'E':
	case 'R':
		return on_fail_cause(c, q, end);
	case 'H':
		return on_hip_error(c, q, end);
	case 'h':
		return on_noop(c, q, end) || classify_sync_error(c, q, end);
	case 'N':
		return on_noop(c, q, end);
	case 'K':
		on_kernels_launched(c, q, end);
		return true;
	case 'D':
		return on_d2h_line(c, q, end) || classify_device_line(c, q, end);
	case 'G':
		return on_gpu_line(c, q, end);
	case '(':
		if (has_prefix(q, end, LIT("(no D2H validation blobs")))
			c->no_d2h_blobs = true;
		return true;
	case 'r':
		return on_diverged(c, q, end);
	default:
		return false;
	}
}

static void on_hrr_line(struct classifier *c, const char *q, const char *end)
{
	struct finding *f = &c->f;
	const char *d2h;

	if (on_hrr_keyword(c, q, end) || on_hrr_report(c, q, end))
		return;
	/* <tag> D2H FAIL seq=... : the tag is one token. */
	d2h = find(q, end, LIT(" D2H FAIL"));
	if (d2h && memchr(q, ' ', span(q, end)) == d2h) {
		on_d2h_fail(c, q, d2h, d2h + 9, end);
		return;
	}
	if (find(q, end, LIT(": NOT REPLAYABLE")))
		f->saw_not_replayable = true;
	if (find(q, end, LIT("(MISSING!)")))
		f->saw_missing_handle = true;
	/* --warn-untranslated-args: "'<kernel>' arg[N]: recorded 0x... is in
	 * no known allocation — passing null" */
	else if (*q == '\'' && find(q, end, LIT(" is in no known allocation")))
		f->saw_missing_handle = true;
}

/* "[HRR]   <pid dir>" after the multi-process refusal; true when s..end
 * was one (the listing ends at the first line that is not). */
static bool on_pid_listing(struct classifier *c, const char *s, const char *end)
{
	const char *p = s + 5;

	if (has_prefix(p, end, LIT("   ")) && p + 3 < end && p[3] != ' ' && !c->cut) {
		p += 3;
		end = trim_end(p, end);
		if (c->pid_dirs.n < 64)
			strvec_push_nodup(&c->pid_dirs, dup_range(p, end));
		return true;
	}
	c->listing_pids = false;
	return false;
}

/* Returns true when the line is fully handled (nothing else can match it). */
bool classify_hrr(struct classifier *c, const char *s, const char *end)
{
	const char *q;

	/* s starts with "[HRR" */
	if (s + 4 >= end)
		return true;
	if (s[4] == ' ') {
		if (has_prefix(s, end, LIT("[HRR progress]"))) {
			classify_progress(c, s + 14, end);
			return true;
		}
		return classify_trace(c, s, end);
	}
	if (s[4] != ']')
		return false;
	/* "[HRR]" alone ends the line: s[5] is past it. */
	if (s + 5 < end && s[5] == '[') {
		if (has_prefix(s, end, LIT("[HRR][WATCHDOG]")))
			on_watchdog(c, s + 15, end);
		return true;
	}
	if (c->listing_pids && on_pid_listing(c, s, end))
		return true;
	q = skip_blanks(s + 5, end);
	if (q >= end)
		return true;
	if (*q == 'E' && has_prefix(q, end, LIT("Event ")) && q + 6 < end && is_digit(q[6])) {
		classify_event(c, q + 6, end);
		return true;
	}
	if (*q == 'a' && has_prefix(q, end, LIT("arg["))) {
		classify_arg(c, q, end);
		return true;
	}
	if (classify_caveat(c, q, end))
		return true;
	on_hrr_line(c, q, end);
	return false;
}

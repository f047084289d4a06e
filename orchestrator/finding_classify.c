/* The streaming classifier: replay log bytes in, one finding out.
 *
 * One pass, line by line, with a fixed-size line buffer: a line longer than
 * FINDING_LINE_MAX is matched on its head and the rest is skipped, so memory
 * stays bounded whatever the log holds. Lines only record evidence; the
 * precedence of findings.md (outcome and fault class, each "first match
 * wins" over the whole input) is applied once, in classifier_finish().
 *
 * Hot path: most lines of a long log are heartbeats, verbose event lines or
 * pointer-argument lines, recognised by their prefix for a few comparisons.
 * Every other line gets one pass that finds all the anchors the remaining
 * rules need (scan_anchors), instead of one substring search per rule. */
#include "orchestrator/finding.h"

#include <ctype.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <threads.h>

#include "common/xalloc.h"

#define LIT(s) (s), (sizeof(s) - 1)

enum hsa_status { HSA_NONE = 0, HSA_MEMORY_FAULT, HSA_ABORTED, HSA_EXCEPTION };
enum info_section { INFO_NONE = 0, INFO_KERNEL_SUMMARY, INFO_CALL_COUNTS, INFO_ROOT };

struct classifier {
	char *source;
	char *line;           /* FINDING_LINE_MAX bytes: the current partial line */
	size_t line_len;
	bool skipping;        /* past FINDING_LINE_MAX: drop bytes until '\n' */

	struct finding f;     /* fields filled as lines arrive */

	/* Evidence; the precedence lists are applied at finish. */
	bool version_mismatch, timeout, pass, fail, oom_text, maf_line, mfe_line;
	bool fatal, fatal_oom, aborting_replay, replay_aborted, signal_marker;
	bool diverged, no_d2h_blobs, maf_read_only, fault_seen;
	bool hsa_memory_fault, hsa_aborted, hsa_exception;
	enum hsa_status hsa_first;

	char *maf_address;
	char *mfe_address;

	/* Last heartbeat. */
	bool have_progress;
	long long prog_seq, prog_kernels, prog_pass, prog_fail, prog_attempted;
	bool prog_has_last;
	struct strbuf prog_last;

	/* End-of-run summary. */
	long long sum_kernels;
	bool have_sum_d2h;
	long long sum_pass, sum_fail, sum_attempted;

	/* Last verbose event before the first fault line. */
	bool have_event;
	long long ev_index;
	struct strbuf ev_api;
	bool have_ev_kernel;
	struct strbuf ev_kernel;

	/* First Fatal line naming its call. */
	bool have_fatal_call;
	long long fatal_thread, fatal_index;
	char *fatal_api;

	/* Kernels named by the lines that report a stop. */
	char *mfe_kernel, *queue_kernel, *gpu_error_kernel, *agent_kernel, *watchdog_kernel;
	char *agent_reason;
	long long watchdog_ms, watchdog_seq;
	char *watchdog_at;
	long long diverged_seq, diverged_fail, diverged_total;

	enum info_section section; /* which --info table the next rows belong to */
};

/* ---- small scanners over [p, end) ---- */

/* Length of [a, b), never negative (keeps memchr bounds provably sane). */
static inline size_t span(const char *a, const char *b)
{
	return b > a ? (size_t)(b - a) : 0;
}

static inline bool has_prefix(const char *p, const char *end, const char *lit, size_t n)
{
	return span(p, end) >= n && memcmp(p, lit, n) == 0;
}

static inline const char *find(const char *p, const char *end, const char *lit, size_t n)
{
	if (p >= end)
		return NULL;
	return memmem(p, span(p, end), lit, n);
}

static inline const char *skip_blanks(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

static inline const char *trim_end(const char *p, const char *end)
{
	while (end > p && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
		end--;
	return end;
}

static inline bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static inline bool is_word(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* Counts saturate where finding.json can still print them exactly (cJSON
 * writes 15 significant digits), far above any real log's counts. */
#define NUM_MAX 999999999999999LL

/* Unsigned decimal, saturating at NUM_MAX; advances *pp. */
static bool parse_num(const char **pp, const char *end, long long *out)
{
	const char *p = *pp;
	long long v = 0;

	if (p >= end || !is_digit(*p))
		return false;
	for (; p < end && is_digit(*p); p++) {
		int d = *p - '0';

		v = v > (NUM_MAX - d) / 10 ? NUM_MAX : v * 10 + d;
	}
	*pp = p;
	*out = v;
	return true;
}

/* Counts come from untrusted text: sums saturate like the counts do. */
static long long sat_add(long long a, long long b)
{
	return a > NUM_MAX - b ? NUM_MAX : a + b;
}

/* A number following "key" somewhere after p (e.g. "seq="). */
static bool num_after(const char *p, const char *end, const char *key, size_t n, long long *out)
{
	const char *k = find(p, end, key, n);

	if (!k)
		return false;
	k += n;
	return parse_num(&k, end, out);
}

/* A floating-point token ("1.5e+03", "nan", "inf") at p, copied so strtod
 * never reads past the line. */
static bool parse_double(const char *p, const char *end, double *out)
{
	char tok[64];
	size_t n = 0;
	char *stop;

	while (p + n < end && n < sizeof(tok) - 1 && !isspace((unsigned char)p[n]) &&
	       p[n] != ',' && p[n] != ')' && p[n] != ';')
		n++;
	if (!n)
		return false;
	memcpy(tok, p, n);
	tok[n] = '\0';
	*out = strtod(tok, &stop);
	return stop != tok;
}

/* "0x" and hex digits at p; returns the end of the token or NULL. */
static const char *hex_token(const char *p, const char *end)
{
	const char *q;

	if (!has_prefix(p, end, LIT("0x")) && !has_prefix(p, end, LIT("0X")))
		return NULL;
	q = p + 2;
	while (q < end && isxdigit((unsigned char)*q))
		q++;
	return q > p + 2 ? q : NULL;
}

static char *dup_range(const char *a, const char *b)
{
	return xstrndup(a, span(a, b));
}

static void set_once(char **dst, const char *a, const char *b)
{
	if (!*dst && b > a)
		*dst = dup_range(a, b);
}

static void set_last(char **dst, const char *a, const char *b)
{
	if (b <= a)
		return;
	free(*dst);
	*dst = dup_range(a, b);
}

static void strbuf_set(struct strbuf *sb, const char *a, const char *b)
{
	strbuf_reset(sb);
	strbuf_add(sb, a, span(a, b));
}

/* Case-insensitive "out of memory" anywhere. Anchored on the 'y', which is
 * rare in logs, so the scan is a memchr rather than a per-byte compare. */
static bool says_out_of_memory(const char *p, const char *end)
{
	static const char want[] = "out of memory";
	const size_t n = sizeof(want) - 1;
	const char *q = p + n - 1;

	while (q < end) {
		const char *y = memchr(q, 'y', span(q, end));
		const char *Y = memchr(q, 'Y', span(q, end));

		if (!y || (Y && Y < y))
			y = Y;
		if (!y)
			return false;
		if (strncasecmp(y - (n - 1), want, n) == 0)
			return true;
		q = y + 1;
	}
	return false;
}

/* hrr-playback shortens names over 120 characters to 96 + "..." + 21: such
 * a name cannot be looked up, so it is never used as a kernel. */
static bool is_compacted_name(const char *a, const char *b)
{
	return b - a == 120 && memcmp(a + 96, "...", 3) == 0;
}

/* ---- line handlers ---- */

static void saw_fault(struct classifier *c)
{
	c->fault_seen = true;
	c->f.saw_fault = true;
}

/* [HRR progress] elapsed_s=1.0 seq=N kernels=N d2h_pass=N d2h_fail=N d2h_attempted=N last="name" */
static void on_progress(struct classifier *c, const char *p, const char *end)
{
	const char *q = p;
	long long v;

	c->have_progress = true;
	while (q < end) {
		const char *key, *eq;

		q = skip_blanks(q, end);
		key = q;
		eq = NULL;
		while (q < end && *q != ' ' && *q != '\t') {
			if (*q == '=' && !eq)
				eq = q;
			q++;
		}
		if (!eq)
			continue;
		if (eq - key == 4 && !memcmp(key, "last", 4) && eq + 1 < end && eq[1] == '"') {
			const char *a = eq + 2;
			const char *b = trim_end(a, end);

			if (b > a && b[-1] == '"')
				b--;
			strbuf_set(&c->prog_last, a, b);
			c->prog_has_last = true;
			return;
		}
		{
			const char *num = eq + 1;

			if (!parse_num(&num, q, &v))
				continue;
		}
		switch (eq - key) {
		case 3:
			if (!memcmp(key, "seq", 3))
				c->prog_seq = v;
			break;
		case 7:
			if (!memcmp(key, "kernels", 7))
				c->prog_kernels = v;
			break;
		case 8:
			if (!memcmp(key, "d2h_pass", 8))
				c->prog_pass = v;
			else if (!memcmp(key, "d2h_fail", 8))
				c->prog_fail = v;
			break;
		case 13:
			if (!memcmp(key, "d2h_attempted", 13))
				c->prog_attempted = v;
			break;
		default:
			break;
		}
	}
}

/* [HRR] Event N: api[ -> Kernel 'name'] — q points after "Event ". */
static void on_event(struct classifier *c, const char *q, const char *end)
{
	long long idx;
	const char *api, *api_end, *k;

	if (c->fault_seen || !parse_num(&q, end, &idx) || q >= end || *q != ':')
		return;
	api = skip_blanks(q + 1, end);
	api_end = api;
	while (api_end < end && is_word(*api_end))
		api_end++;
	if (api_end == api)
		return;
	c->have_event = true;
	c->ev_index = idx;
	strbuf_set(&c->ev_api, api, api_end);
	k = find(api_end, end, LIT("-> Kernel '"));
	if (k) {
		const char *a = k + sizeof("-> Kernel '") - 1;
		const char *b = memchr(a, '\'', span(a, end));

		if (!b)
			b = trim_end(a, end);
		if (b > a) {
			strbuf_set(&c->ev_kernel, a, b);
			c->have_ev_kernel = true;
		}
	}
}

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

/* T<thread> Event <n> (<api>) inside a Fatal line. */
static void on_fatal(struct classifier *c, const char *p, const char *end)
{
	const char *q = p;

	c->fatal = true;
	saw_fault(c);
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
	if (find(what, end, LIT("ynchroniz")) || has_prefix(what, end, LIT("sync-after-")) ||
	    is_compacted_name(what, end))
		return;
	if (!memchr(what, ' ', span(what, end)) || find(what, end, LIT("::")) ||
	    memchr(what, '(', span(what, end)))
		set_once(&c->watchdog_kernel, what, end);
}

/* D2H checks : P pass (E exact, T within tol), F fail, S skipped */
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
	r = find(q, end, LIT("), "));
	if (!r)
		return;
	r += 3;
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

static void on_time(double *dst, const char *q, const char *end)
{
	q = skip_blanks(q, end);
	if (q < end && *q == ':')
		parse_double(skip_blanks(q + 1, end), end, dst);
}

/* Everything after "[HRR]" that is not a heartbeat, an event or an arg line. */
static void on_hrr_line(struct classifier *c, const char *q, const char *end)
{
	struct finding *f = &c->f;
	const char *d2h;

	switch (*q) {
	case 'P':
		if (has_prefix(q, end, LIT("PASS")) && (q + 4 == end || !is_word(q[4])))
			c->pass = true;
		return;
	case 'F':
		if (has_prefix(q, end, LIT("FAIL")) && (q + 4 == end || !is_word(q[4]))) {
			c->fail = true;
			return;
		}
		if (has_prefix(q, end, LIT("Fatal:")))
			on_fatal(c, q + 6, end);
		return;
	case 'V':
		if (has_prefix(q, end, LIT("Version mismatch:"))) {
			long long file, reader;

			c->version_mismatch = true;
			if (num_after(q, end, LIT("file="), &file) && f->archive_format_version < 0)
				f->archive_format_version = (int)(file > INT_MAX ? INT_MAX : file);
			if (num_after(q, end, LIT("reader="), &reader) && f->reader_format_version < 0)
				f->reader_format_version = (int)(reader > INT_MAX ? INT_MAX : reader);
		}
		return;
	case 'A':
		/* [HRR] Archive : N events, K kernels, ... */
		if (has_prefix(q, end, LIT("Archive"))) {
			const char *r = skip_blanks(q + 7, end);
			long long events, kernels;

			if (r < end && *r == ':') {
				r = skip_blanks(r + 1, end);
				if (parse_num(&r, end, &events) && has_prefix(r, end, LIT(" events, "))) {
					f->archive_events = events;
					r += 9;
					if (parse_num(&r, end, &kernels) &&
					    has_prefix(r, end, LIT(" kernels")))
						f->archive_kernels = kernels;
				}
			}
		}
		return;
	case 'K':
		if (has_prefix(q, end, LIT("Kernels launched"))) {
			const char *r = skip_blanks(q + 16, end);

			if (r < end && *r == ':') {
				r = skip_blanks(r + 1, end);
				parse_num(&r, end, &c->sum_kernels);
			}
		}
		return;
	case 'D':
		if (has_prefix(q, end, LIT("D2H checks"))) {
			on_d2h_summary(c, q + 10, end);
			return;
		}
		if (has_prefix(q, end, LIT("D2H validate FAIL"))) {
			on_d2h_validate(c, q, end);
			return;
		}
		break;
	case 'G':
		if (has_prefix(q, end, LIT("GPU kernel time"))) {
			on_time(&f->gpu_time_kernel_ms, q + 15, end);
			return;
		}
		if (has_prefix(q, end, LIT("GPU graph time"))) {
			on_time(&f->gpu_time_graph_ms, q + 14, end);
			return;
		}
		if (has_prefix(q, end, LIT("GPU total time"))) {
			on_time(&f->gpu_time_total_ms, q + 14, end);
			return;
		}
		/* [HRR] GPU error after '<kernel>': ... (--sync-after-launch) */
		if (has_prefix(q, end, LIT("GPU error after '"))) {
			const char *a = q + sizeof("GPU error after '") - 1;
			const char *b = memchr(a, '\'', span(a, end));

			saw_fault(c);
			if (b)
				set_once(&c->gpu_error_kernel, a, b);
			return;
		}
		break;
	case '(':
		if (has_prefix(q, end, LIT("(no D2H validation blobs")))
			c->no_d2h_blobs = true;
		return;
	case 'r':
		/* [HRR] replay DIVERGED at recorded event seq S: F/T D2H validations failed */
		if (has_prefix(q, end, LIT("replay DIVERGED"))) {
			const char *r = find(q, end, LIT("seq "));

			c->diverged = true;
			if (r) {
				r += 4;
				parse_num(&r, end, &c->diverged_seq);
				r = skip_blanks(r + (r < end && *r == ':'), end);
				if (parse_num(&r, end, &c->diverged_fail) && r < end && *r == '/') {
					r++;
					parse_num(&r, end, &c->diverged_total);
				}
			}
			return;
		}
		break;
	default:
		break;
	}

	/* <tag> D2H FAIL seq=... : the tag is one token. */
	d2h = find(q, end, LIT(" D2H FAIL"));
	if (d2h && memchr(q, ' ', span(q, end)) == d2h) {
		on_d2h_fail(c, q, d2h, d2h + 9, end);
		return;
	}
	if (find(q, end, LIT(": NOT REPLAYABLE")))
		f->saw_not_replayable = true;
}

/* Returns true when the line is fully handled (nothing else can match it). */
static bool on_hrr(struct classifier *c, const char *s, const char *end)
{
	const char *q;

	/* s starts with "[HRR" */
	if (s + 4 >= end)
		return true;
	if (s[4] == ' ') {
		if (has_prefix(s, end, LIT("[HRR progress]"))) {
			on_progress(c, s + 14, end);
			return true;
		}
		return false;
	}
	if (s[4] != ']')
		return false;
	if (s[5] == '[') {
		if (has_prefix(s, end, LIT("[HRR][WATCHDOG]")))
			on_watchdog(c, s + 15, end);
		return true;
	}
	q = skip_blanks(s + 5, end);
	if (q >= end)
		return true;
	if (*q == 'E' && has_prefix(q, end, LIT("Event ")) && q + 6 < end && is_digit(q[6])) {
		on_event(c, q + 6, end);
		return true;
	}
	if (*q == 'a' && has_prefix(q, end, LIT("arg["))) {
		if (span(q, end) >= 10 && !memcmp(end - 10, "(MISSING!)", 10))
			c->f.saw_missing_handle = true;
		return true;
	}
	on_hrr_line(c, q, end);
	return false;
}

/* Memory access fault by GPU node-N (Agent handle: 0x1) on address 0x.... Reason: <reason>. */
static void on_maf(struct classifier *c, const char *p, const char *end)
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
	h = hex_token(a, end);
	if (!h)
		return;
	c->maf_address = dup_range(a, h);
	r = find(h, end, LIT("Reason:"));
	if (r) {
		const char *b;

		r = skip_blanks(r + 7, end);
		b = memchr(r, '.', span(r, end));
		if (!b)
			b = end;
		b = trim_end(r, b);
		set_once(&f->fault_reason, r, b);
		if (b > r) {
			char *lower = dup_range(r, b);

			for (char *x = lower; *x; x++)
				*x = (char)tolower((unsigned char)*x);
			c->maf_read_only = strstr(lower, "read-only") != NULL;
			free(lower);
		}
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
	if (b > k)
		b--;
	else
		b = end;
	b = trim_end(k, b);
	if (b > k && !(b - k == 6 && !memcmp(k, "(null)", 6)))
		set_once(dst, k, b);
}

/* Memory Fault Error [host: x, GPU index: 0, faulting addr: 0x..., kernel: <name>] */
static void on_mfe(struct classifier *c, const char *p, const char *end)
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

static void on_hsa_status(struct classifier *c, const char *p, const char *end)
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
static void on_replay_word(struct classifier *c, const char *p, const char *from,
			   const char *end)
{
	struct finding *f = &c->f;
	const char *q = from;

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
		if (has_prefix(r, end, LIT(" timed out after "))) {
			long long n;

			r += sizeof(" timed out after ") - 1;
			if (parse_num(&r, end, &n) && r < end && *r == 's') {
				c->timeout = true;
				f->timeout_s = n;
				if (has_prefix(r + 1, end, LIT(" without output")))
					f->timeout_without_output = true;
			}
		} else if (has_prefix(r, end, LIT(" killed by signal "))) {
			long long n;

			r += sizeof(" killed by signal ") - 1;
			if (parse_num(&r, end, &n)) {
				c->signal_marker = true;
				f->replay_signal = (int)(n > INT_MAX ? INT_MAX : n);
			}
		} else if (has_prefix(r, end, LIT(" killed by the engine: out of memory"))) {
			f->saw_oom_marker = true;
		} else if (has_prefix(r, end, LIT(" interrupted by the user"))) {
			const char *a = memchr(r, '(', span(r, end));
			const char *b = a ? memchr(a, ')', span(a, end)) : NULL;

			f->saw_user_interrupt = true;
			if (a && b)
				set_last(&f->interrupt_signal, a + 1, b);
		}
	}
}

/* wave_N: pc=0x... (kernel_code_entry=0x... <FQN>) (stopped, reason: REASON) */
static void on_agent_wave(struct classifier *c, const char *p, const char *end)
{
	const char *e = find(p, end, LIT("(kernel_code_entry="));
	const char *h, *stop, *a, *b;

	if (!e || c->agent_kernel)
		return;
	h = hex_token(e + 19, end);
	stop = h ? find(h, end, LIT(") (stopped, reason: ")) : NULL;
	if (!stop)
		return;
	a = skip_blanks(h, stop);
	b = stop;
	if (a < b && *a == '<' && b[-1] == '>') {
		a++;
		b--;
	}
	set_once(&c->agent_kernel, a, b);
	a = stop + sizeof(") (stopped, reason: ") - 1;
	b = memchr(a, ')', span(a, end));
	set_once(&c->agent_reason, a, b ? b : end);
}

/* kernarg_address=0x... / grid=[x,y,z], workgroup=[x,y,z]: the dispatch
 * printed last before the fault, else the first after it. */
static void on_assignments(struct classifier *c, const char *kernarg, const char *grid,
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

static bool add_kernel_name(struct finding *f, const char *a, const char *b)
{
	size_t n = span(a, b);

	/* Cut by --info's column width: useless as a symbol. */
	if (n >= 3 && !memcmp(b - 3, "...", 3))
		return false;
	for (size_t i = 0; i < f->archive_kernel_names.n; i++) {
		const char *s = f->archive_kernel_names.v[i];

		if (strlen(s) == n && !memcmp(s, a, n))
			return true;
	}
	if (f->archive_kernel_names.n < FINDING_MAX_KERNEL_NAMES)
		strvec_push_nodup(&f->archive_kernel_names, dup_range(a, b));
	return true;
}

/* "[a,b,c]" */
static const char *dims_token(const char *p, const char *end)
{
	if (p >= end || *p != '[')
		return NULL;
	for (p++; p < end && *p != ']'; p++)
		if (!is_digit(*p) && *p != ',' && *p != ' ')
			return NULL;
	return p < end ? p + 1 : NULL;
}

/* "  0    name    [g,g,g]   [b,b,b]   shmem" (Kernel Summary) */
static void on_summary_row(struct classifier *c, const char *p, const char *end)
{
	const char *q = skip_blanks(p, end);
	const char *name, *name_end;

	if (q < end && is_digit(*q)) {
		while (q < end && is_digit(*q))
			q++;
		if (q >= end || (*q != ' ' && *q != '\t'))
			return;
		q = skip_blanks(q, end);
	}
	if (q >= end || !(isalpha((unsigned char)*q) || *q == '_'))
		return;
	name = q;
	while (q < end && *q != ' ' && *q != '\t' && *q != '[')
		q++;
	name_end = q;
	q = dims_token(skip_blanks(q, end), end);
	if (!q)
		return;
	q = dims_token(skip_blanks(q, end), end);
	if (!q)
		return;
	add_kernel_name(&c->f, name, name_end);
}

/* "  name    calls" (Kernel Call Counts): one row per distinct kernel. */
static void on_call_count_row(struct classifier *c, const char *p, const char *end)
{
	const char *q = skip_blanks(p, end);
	const char *name = q, *name_end, *r;
	long long calls;

	end = trim_end(q, end);
	if (q >= end || *q == '-' || has_prefix(q, end, LIT("Kernel ")))
		return;
	r = end;
	while (r > q && is_digit(r[-1]))
		r--;
	if (r == end || r == q || (r[-1] != ' ' && r[-1] != '\t'))
		return;
	{
		const char *t = r;

		if (!parse_num(&t, end, &calls))
			return;
	}
	name_end = trim_end(name, r);
	c->f.archive_distinct_kernels = (c->f.archive_distinct_kernels < 0 ? 0 : c->f.archive_distinct_kernels) + 1;
	add_kernel_name(&c->f, name, name_end);
}

/* `hrr-playback --info` lines; they start at column 0. Returns true when handled. */
static bool on_info(struct classifier *c, const char *p, const char *end)
{
	struct finding *f = &c->f;
	const char *q;
	long long v;

	if (p == end) {
		c->section = INFO_NONE;
		return true;
	}
	switch (*p) {
	case 'C':
		if (has_prefix(p, end, LIT("Complete:"))) {
			q = skip_blanks(p + 9, end);
			if (has_prefix(q, end, LIT("yes")))
				f->archive_complete = 1;
			else if (has_prefix(q, end, LIT("NO")) || has_prefix(q, end, LIT("no")))
				f->archive_complete = 0;
			return true;
		}
		break;
	case 'R':
		if (has_prefix(p, end, LIT("Recovered:"))) {
			q = skip_blanks(p + 10, end);
			if (parse_num(&q, end, &v))
				f->archive_recovered_events = v;
			return true;
		}
		break;
	case 'E':
		if (has_prefix(p, end, LIT("Events:"))) {
			q = skip_blanks(p + 7, end);
			if (parse_num(&q, end, &v))
				f->archive_events = v;
			return true;
		}
		break;
	case 'K':
		if (has_prefix(p, end, LIT("Kernels:"))) {
			q = skip_blanks(p + 8, end);
			if (parse_num(&q, end, &v))
				f->archive_kernels = v;
			return true;
		}
		if (has_prefix(p, end, LIT("Kernel Summary"))) {
			c->section = INFO_KERNEL_SUMMARY;
			return true;
		}
		if (has_prefix(p, end, LIT("Kernel Call Counts"))) {
			c->section = INFO_CALL_COUNTS;
			f->archive_distinct_kernels = 0;
			return true;
		}
		break;
	case 'H':
		if (has_prefix(p, end, LIT("HRR Archive Root:"))) {
			c->section = INFO_ROOT;
			return true;
		}
		break;
	case 'P':
		if (c->section == INFO_ROOT && has_prefix(p, end, LIT("Processes:"))) {
			q = skip_blanks(p + 10, end);
			if (parse_num(&q, end, &v) && v > 1)
				f->multi_process = true;
			return true;
		}
		break;
	case ' ':
	case '\t':
		if (c->section == INFO_KERNEL_SUMMARY) {
			on_summary_row(c, p, end);
			return true;
		}
		if (c->section == INFO_CALL_COUNTS) {
			on_call_count_row(c, p, end);
			return true;
		}
		break;
	default:
		break;
	}
	return false;
}

/* Where the anchors of the non-prefix rules first occur in a line. */
struct anchors {
	const char *maf, *mfe, *queue, *hsa, *replay, *hrr, *kernarg, *grid, *hip_so;
	bool oom;
};

/* One pass finds every anchor: a bitmap of the two-byte sequences an
 * anchor can be recognised by (its first two bytes, or a rare pair inside
 * it), so most bytes cost one table test instead of a memmem per rule. */
static uint8_t bigram_bits[65536 / 8];
static uint8_t bigram_first[256]; /* a cheap first filter: the bitmap test alone is 5x slower */
static once_flag bigram_once = ONCE_FLAG_INIT;

static void bigram_init(void)
{
	static const char *const pairs[] = {
		"Me", /* Memory access fault..., Memory Fault Error [ */
		"ab", /* aborting with error */
		"HS", /* HSA_STATUS_ERROR_ */
		"hi", /* hipErrorOutOfMemory */
		"ep", /* [rR]eplay */
		"ry", "rY", "Ry", "RY", /* out of memo(ry), any case */
		"s=", /* kernarg_addres(s=) */
		"d=", /* gri(d=)[ */
		"O=", /* HIP_S(O=) */
		"[H", /* [HRR inside a prefixed line */
	};

	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		unsigned b = (unsigned char)pairs[i][0] << 8 | (unsigned char)pairs[i][1];

		bigram_bits[b >> 3] |= (uint8_t)(1u << (b & 7));
		bigram_first[(unsigned char)pairs[i][0]] = 1;
	}
}

static void anchor_at(const char *s, const char *p, const char *end, struct anchors *a)
{
	switch (*p) {
	case 'M':
		if (!a->maf && has_prefix(p, end, LIT("Memory access fault by GPU node-")))
			a->maf = p;
		else if (!a->mfe && has_prefix(p, end, LIT("Memory Fault Error [")))
			a->mfe = p;
		break;
	case 'a':
		if (!a->queue && has_prefix(p, end, LIT("aborting with error")))
			a->queue = p;
		break;
	case 'H':
		if (!a->hsa && has_prefix(p, end, LIT("HSA_STATUS_ERROR_")))
			a->hsa = p;
		break;
	case 'h':
		if (has_prefix(p, end, LIT("hipErrorOutOfMemory")))
			a->oom = true;
		break;
	case 'e':
		if (!a->replay && p > s && (p[-1] == 'r' || p[-1] == 'R') &&
		    has_prefix(p, end, LIT("eplay")))
			a->replay = p - 1;
		break;
	case 'r':
	case 'R':
		/* p is the "ry" of "out of memory" */
		if (p - s >= 11 && !strncasecmp(p - 11, "out of memory", 13))
			a->oom = true;
		break;
	case 's':
		if (!a->kernarg && p - s >= 14 && !memcmp(p - 14, "kernarg_address=", 16))
			a->kernarg = p - 14;
		break;
	case 'd':
		if (!a->grid && p - s >= 3 && end - p >= 3 && !memcmp(p - 3, "grid=[", 6))
			a->grid = p - 3;
		break;
	case 'O':
		if (!a->hip_so && p - s >= 5 && !memcmp(p - 5, "HIP_SO=", 7))
			a->hip_so = p - 5;
		break;
	case '[':
		if (!a->hrr && has_prefix(p, end, LIT("[HRR")))
			a->hrr = p;
		break;
	default:
		break;
	}
}

static void scan_anchors(const char *s, const char *end, struct anchors *a)
{
	const unsigned char *p = (const unsigned char *)s;
	const unsigned char *last = (const unsigned char *)end - 1;

	memset(a, 0, sizeof(*a));
	for (; p < last; p++) {
		unsigned b;

		if (!bigram_first[*p])
			continue;
		b = (unsigned)p[0] << 8 | p[1];
		if (bigram_bits[b >> 3] >> (b & 7) & 1)
			anchor_at(s, (const char *)p, end, a);
	}
}

static void on_generic(struct classifier *c, const char *s, const char *end,
		       const struct anchors *a)
{
	if (a->maf)
		on_maf(c, a->maf, end);
	if (a->mfe)
		on_mfe(c, a->mfe, end);
	if (a->queue) {
		saw_fault(c);
		bracket_kernel(&c->queue_kernel, a->queue, end);
	}
	if (a->hsa)
		on_hsa_status(c, a->hsa, end);
	if (a->oom)
		c->oom_text = true;
	if (a->replay)
		on_replay_word(c, s, a->replay, end);
	if (a->kernarg || a->grid)
		on_assignments(c, a->kernarg, a->grid, end);
	if (a->hip_so && a->hip_so - s >= 10 && !memcmp(a->hip_so - 10, "[capture] ", 10)) {
		const char *v = a->hip_so + 7;
		const char *b = v;

		while (b < end && *b != ' ' && *b != '\t')
			b++;
		set_last(&c->f.capture_hip_so, v, b);
	}
	if (has_prefix(s, end, LIT("wave_")))
		on_agent_wave(c, s, end);
}

static void classify_line(struct classifier *c, const char *p, size_t len)
{
	const char *end = p + len;
	const char *s;
	struct anchors a;

	if (len && end[-1] == '\r')
		end--;
	s = skip_blanks(p, end);
	if (end - s >= 4 && s[0] == '[' && s[1] == 'H' && s[2] == 'R' && s[3] == 'R') {
		if (on_hrr(c, s, end))
			return;
		scan_anchors(s, end, &a);
	} else {
		if (on_info(c, p, end))
			return;
		scan_anchors(s, end, &a);
		/* A prefixed line ("<timestamp> [HRR] PASS", "[triage] ..."). */
		if (a.hrr && on_hrr(c, a.hrr, end))
			return;
	}
	on_generic(c, s, end, &a);
}

/* ---- public ---- */

struct classifier *classifier_new(const char *source_name)
{
	struct classifier *c = xcalloc(1, sizeof(*c));

	call_once(&bigram_once, bigram_init);
	c->source = source_name ? xstrdup(source_name) : NULL;
	c->line = xmalloc(FINDING_LINE_MAX);
	finding_init(&c->f);
	strbuf_init(&c->prog_last, 0);
	strbuf_init(&c->ev_api, 0);
	strbuf_init(&c->ev_kernel, 0);
	c->prog_seq = c->prog_kernels = c->prog_pass = c->prog_fail = c->prog_attempted = -1;
	c->sum_kernels = -1;
	c->watchdog_ms = c->watchdog_seq = -1;
	c->diverged_seq = c->diverged_fail = c->diverged_total = -1;
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
	free(c);
}

void classifier_feed(struct classifier *c, const char *data, size_t len)
{
	while (len) {
		const char *nl = memchr(data, '\n', len);
		size_t take = nl ? span(data, nl) : len;

		if (c->skipping) {
			/* the rest of an overlong line */
		} else if (!c->line_len && nl) {
			classify_line(c, data, take < FINDING_LINE_MAX ? take : FINDING_LINE_MAX);
		} else {
			size_t room = FINDING_LINE_MAX - c->line_len;
			size_t n = take < room ? take : room;

			memcpy(c->line + c->line_len, data, n);
			c->line_len += n;
			if (take > n)
				c->skipping = true;
			if (nl)
				classify_line(c, c->line, c->line_len);
		}
		if (nl) {
			if (c->skipping && c->line_len)
				classify_line(c, c->line, c->line_len);
			c->line_len = 0;
			c->skipping = false;
			take++;
		}
		data += take;
		len -= take;
	}
}

static const char *hsa_name(enum hsa_status s)
{
	switch (s) {
	case HSA_MEMORY_FAULT:
		return "HSA_STATUS_ERROR_MEMORY_FAULT";
	case HSA_ABORTED:
		return "HSA_STATUS_ERROR_ABORTED";
	case HSA_EXCEPTION:
		return "HSA_STATUS_ERROR_EXCEPTION";
	default:
		return "";
	}
}

static enum finding_outcome decide_outcome(const struct classifier *c)
{
	if (c->timeout || c->f.saw_watchdog)
		return OUTCOME_HANG;
	if (c->pass)
		return OUTCOME_PASS;
	if (c->maf_line || c->mfe_line)
		return OUTCOME_MAF;
	/* Beyond the anchor: a divergence abort is a validation failure that
	 * stopped the replay early (exit 2). */
	if (c->fail || c->diverged)
		return OUTCOME_FAIL;
	if (c->hsa_memory_fault)
		return OUTCOME_MAF;
	if (c->hsa_aborted || c->hsa_exception)
		return OUTCOME_ABORT;
	if (c->aborting_replay || c->replay_aborted || c->fatal || c->version_mismatch ||
	    c->signal_marker || c->f.saw_oom_marker || c->f.saw_user_interrupt)
		return OUTCOME_ABORT;
	return OUTCOME_UNKNOWN;
}

static const char *decide_class(const struct classifier *c, bool d2h_failed)
{
	if (c->version_mismatch)
		return "version_mismatch";
	if (c->timeout || c->f.saw_watchdog)
		return "hang";
	if (c->pass)
		return d2h_failed ? "nan_inf_divergence" : "replay_pass";
	if (c->oom_text)
		return "replay_oom";
	if (c->maf_line || c->mfe_line)
		return c->maf_read_only ? "read_only_page_fault" : "illegal_memory_access";
	if (c->fatal)
		return c->fatal_oom ? "replay_oom" : "replay_fatal_api";
	if (c->hsa_memory_fault)
		return "illegal_memory_access";
	if (c->hsa_aborted || c->hsa_exception)
		return "replay_aborted";
	if (c->fail || d2h_failed || c->diverged)
		return "nan_inf_divergence";
	if (c->replay_aborted || c->aborting_replay || c->f.saw_user_interrupt)
		return "replay_aborted";
	if (c->signal_marker)
		return "replay_crashed";
	return "unknown";
}

static char *take(char **p)
{
	char *s = *p;

	*p = NULL;
	return s;
}

void classifier_finish(struct classifier *c, struct finding *out)
{
	struct finding *f;
	enum finding_outcome outcome;
	const char *fault_class;
	bool d2h_failed; /* any evidence: a heartbeat's failures count even when the summary is missing */
	bool hang;

	if (c->line_len)
		classify_line(c, c->line, c->line_len);
	c->line_len = 0;
	c->skipping = false;

	/* Precedence reads the evidence flags, some of which live in c->f. */
	d2h_failed = c->f.d2h_failure_lines > 0 || c->prog_fail > 0 || c->sum_fail > 0 ||
		     c->diverged;
	outcome = decide_outcome(c);
	fault_class = decide_class(c, d2h_failed);

	*out = c->f;
	finding_init(&c->f);
	f = out;

	if (c->source)
		strvec_push(&f->sources, c->source);

	/* The end-of-run summary outranks the last heartbeat. */
	if (c->sum_kernels >= 0) {
		f->kernels_launched = c->sum_kernels;
		f->kernels_from_summary = true;
	} else if (c->prog_kernels >= 0) {
		f->kernels_launched = c->prog_kernels;
	}
	if (c->have_sum_d2h) {
		f->d2h_pass = c->sum_pass;
		f->d2h_fail = c->sum_fail;
		f->d2h_attempted = c->sum_attempted;
		f->d2h_from_summary = true;
	} else if (c->have_progress) {
		f->d2h_pass = c->prog_pass;
		f->d2h_fail = c->prog_fail;
		f->d2h_attempted = c->prog_attempted;
	}
	if (c->prog_seq >= 0)
		f->failing_event_seq = c->prog_seq;
	else if (c->watchdog_seq >= 0)
		f->failing_event_seq = c->watchdog_seq;
	else if (c->diverged_seq >= 0)
		f->failing_event_seq = c->diverged_seq;
	if (c->prog_has_last && c->prog_last.len)
		f->last_progress_kernel = xstrdup(c->prog_last.buf);

	if (c->have_fatal_call) {
		f->failing_thread = c->fatal_thread;
		f->failing_call_index = c->fatal_index;
		f->failing_api = take(&c->fatal_api);
	} else if (c->have_event) {
		f->failing_call_index = c->ev_index;
		f->failing_api = xstrdup(c->ev_api.buf);
	}
	if (c->have_ev_kernel)
		f->last_event_kernel = xstrdup(c->ev_kernel.buf);

	/* The MAF line's address wins over the Memory Fault Error's. */
	if (c->maf_address)
		f->fault_address = take(&c->maf_address);
	else if (c->mfe_address)
		f->fault_address = take(&c->mfe_address);

	f->outcome = outcome;
	free(f->fault_class);
	f->fault_class = xstrdup(fault_class);
	hang = !strcmp(f->fault_class, "hang");

	/* The kernel a stop line names; inference is finalize's job. */
	{
		char **named[] = { hang ? &c->watchdog_kernel : NULL, &c->mfe_kernel,
				   &c->queue_kernel, &c->gpu_error_kernel, &c->agent_kernel };

		for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++) {
			if (!named[i] || !*named[i])
				continue;
			if (named[i] == &c->agent_kernel)
				finding_add_note(f, "kernel named by rocm-debug-agent (wave stopped: %s); "
						 "the agent reports the wave it saw, which is a suspect, "
						 "not proof of the root cause",
						 c->agent_reason ? c->agent_reason : "unknown reason");
			f->kernel_name = take(named[i]);
			f->saw_kernel_from_fault_line = true;
			break;
		}
	}

	if (c->version_mismatch && f->archive_format_version >= 0 && f->reader_format_version >= 0)
		finding_add_note(f, "archive format version %d does not match the hrr-playback "
				 "reader's %d: use an hrr-playback that reads this archive",
				 f->archive_format_version, f->reader_format_version);
	if (c->timeout) {
		if (f->timeout_without_output)
			finding_add_note(f, "the runner stopped the replay after %llds without output "
					 "(--progress-timeout): no progress against the clock",
					 f->timeout_s);
		else
			finding_add_note(f, "the runner stopped the replay at its %llds time limit "
					 "(--timeout) before it reached a verdict", f->timeout_s);
	}
	if (f->saw_watchdog)
		finding_add_note(f, "hrr-playback's sync watchdog fired after %lld ms at: %s",
				 c->watchdog_ms, c->watchdog_at ? c->watchdog_at : "unknown");
	if (c->hsa_first != HSA_NONE && !c->pass)
		finding_add_note(f, "the queue aborted with %s", hsa_name(c->hsa_first));
	if (f->saw_oom_marker)
		finding_add_note(f, "the engine killed the replay container: out of memory "
				 "(host memory limit, not GPU memory)");
	if (c->diverged) {
		if (c->diverged_fail >= 0 && c->diverged_total >= 0)
			finding_add_note(f, "hrr-playback stopped the replay early: %lld/%lld D2H "
					 "validations failed (divergence abort)",
					 c->diverged_fail, c->diverged_total);
		else
			finding_add_note(f, "hrr-playback stopped the replay early: too many D2H "
					 "validations failed (divergence abort)");
	}
	if (f->d2h_failure_lines > f->n_d2h_failures)
		finding_add_note(f, "%zu more D2H FAIL lines are not listed",
				 f->d2h_failure_lines - f->n_d2h_failures);
	if (c->no_d2h_blobs)
		finding_add_note(f, "the archive holds no D2H validation blobs, so outputs were "
				 "not checked; re-capture to enable validation");
}

/* The classifier's inside, shared by the files that read one kind of line
 * each: hrr-playback's own lines (classify_hrr.c), the GPU runtime's fault
 * and abort lines and the stop markers (classify_runtime.c), `--info`
 * tables (classify_info.c), launch/dispatch lines (classify_launch.c), and
 * the decision (classify_decide.c). classify.c splits the stream into lines
 * and routes each one. Not part of the module's interface. */
#ifndef HRR_FINDING_CLASSIFY_H
#define HRR_FINDING_CLASSIFY_H

#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/xalloc.h"
#include "finding/finding.h"

#define LIT(s) (s), (sizeof(s) - 1)

/* A line longer than FINDING_LINE_MAX is read in windows of that size, each
 * overlapping the one before by this much: an anchor that starts in the
 * overlap is read in the next window, with at least this much of its line
 * after it, so nothing is read cut at a window edge. */
#define FINDING_LINE_OVERLAP (16 * 1024)
/* How many lines after a fault line without "Reason:" may still carry it
 * (two writes interleaved with another thread's output). */
#define FINDING_REASON_LINES 4

enum hsa_status { HSA_NONE = 0, HSA_MEMORY_FAULT, HSA_ABORTED, HSA_EXCEPTION };
enum info_section { INFO_NONE = 0, INFO_KERNEL_SUMMARY, INFO_CALL_COUNTS, INFO_ROOT };

struct classifier {
	char *source;
	char *line;           /* FINDING_LINE_MAX bytes: the current partial line */
	size_t line_len;
	bool continued;       /* the buffer holds a window of an overlong line */
	bool cut;             /* the line being read is cut: no names, no numbers */
	bool archive_tool;    /* the input is `hrr-playback --info` output (its header says) */
	bool replay_started;  /* "[HRR] Archive : ...", a replay's first line, came first */

	struct finding f;     /* fields filled as lines arrive */

	/* Evidence; the precedence lists are applied at finish. */
	bool version_mismatch, timeout, pass, fail, oom_text, maf_line, mfe_line;
	bool fatal, fatal_oom, aborting_replay, replay_aborted, signal_marker;
	bool diverged, no_d2h_blobs, maf_read_only, fault_seen;
	bool hsa_memory_fault, hsa_aborted, hsa_exception;
	enum hsa_status hsa_first;

	char *maf_address;
	int reason_lines;     /* > 0: the MAF line had no Reason:, look this many lines on */
	bool maf_imprecise;   /* ROCr's "(may not be exact address)" */
	bool maf_nil;         /* ... on address (nil) */
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
static inline bool parse_num(const char **pp, const char *end, long long *out)
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
static inline long long sat_add(long long a, long long b)
{
	return a > NUM_MAX - b ? NUM_MAX : a + b;
}

/* A number following "key" somewhere after p (e.g. "seq="). */
static inline bool num_after(const char *p, const char *end, const char *key, size_t n, long long *out)
{
	const char *k = find(p, end, key, n);

	if (!k)
		return false;
	k += n;
	return parse_num(&k, end, out);
}

/* A floating-point token ("1.5e+03", "nan", "inf") at p, copied so strtod
 * never reads past the line. */
static inline bool parse_double(const char *p, const char *end, double *out)
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
static inline const char *hex_token(const char *p, const char *end)
{
	const char *q;

	if (!has_prefix(p, end, LIT("0x")) && !has_prefix(p, end, LIT("0X")))
		return NULL;
	q = p + 2;
	while (q < end && isxdigit((unsigned char)*q))
		q++;
	return q > p + 2 ? q : NULL;
}

static inline char *dup_range(const char *a, const char *b)
{
	return xstrndup(a, span(a, b));
}

static inline void set_once(char **dst, const char *a, const char *b)
{
	if (!*dst && b > a)
		*dst = dup_range(a, b);
}

static inline void set_last(char **dst, const char *a, const char *b)
{
	if (b <= a)
		return;
	free(*dst);
	*dst = dup_range(a, b);
}

static inline void strbuf_set(struct strbuf *sb, const char *a, const char *b)
{
	strbuf_reset(sb);
	strbuf_add(sb, a, span(a, b));
}

/* Case-insensitive "out of memory" anywhere. Anchored on the 'y', which is
 * rare in logs, so the scan is a memchr rather than a per-byte compare. */
static inline bool says_out_of_memory(const char *p, const char *end)
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
static inline bool is_compacted_name(const char *a, const char *b)
{
	return b - a == 120 && memcmp(a + 96, "...", 3) == 0;
}

/* ---- line handlers ---- */

static inline void saw_fault(struct classifier *c)
{
	c->fault_seen = true;
	c->f.saw_fault = true;
}


/* Classify what is left of the last line (one without a newline) as a
 * cut line. */
void classify_flush(struct classifier *c);
/* The runtime's anchors in [s, end), those before limit only; no line-start
 * rules (for text after an [HRR] line's own fields, and overlong lines). */
void classify_anchored(struct classifier *c, const char *s, const char *end, const char *limit);

/* ---- the line readers, one per kind of line ---- */

/* [HRR ...] lines; true when the line is fully handled. */
bool classify_hrr(struct classifier *c, const char *s, const char *end);
/* `hrr-playback --info` lines (column 0); true when handled. */
bool classify_info(struct classifier *c, const char *p, const char *end);
/* p is after "Complete:" (--info's line, or the same with [HRR] in a replay log). */
void classify_complete(struct classifier *c, const char *p, const char *end);

/* Launch and dispatch lines. */
void classify_progress(struct classifier *c, const char *p, const char *end);
void classify_event(struct classifier *c, const char *q, const char *end);
void classify_arg(struct classifier *c, const char *q, const char *end);
void classify_assignments(struct classifier *c, const char *kernarg, const char *grid,
			  const char *end);

/* The GPU runtime's lines, and the words around "replay" (stop markers,
 * hrr-playback's abort words). */
void classify_maf(struct classifier *c, const char *p, const char *end);
/* r is after "Reason: " (on the MAF line or a later one). */
void classify_reason(struct classifier *c, const char *r, const char *end);
void classify_mfe(struct classifier *c, const char *p, const char *end);
void classify_queue_abort(struct classifier *c, const char *p, const char *end);
void classify_hsa_status(struct classifier *c, const char *p, const char *end);
void classify_replay_word(struct classifier *c, const char *p, const char *from,
			  const char *end);
void classify_agent_wave(struct classifier *c, const char *p, const char *end);

#endif

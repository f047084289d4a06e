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
 * rules need (scan_anchors), instead of one substring search per rule. */
#include "finding/classify.h"

#include <stdint.h>
#include <threads.h>

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
		classify_maf(c, a->maf, end);
	if (a->mfe)
		classify_mfe(c, a->mfe, end);
	if (a->queue)
		classify_queue_abort(c, a->queue, end);
	if (a->hsa)
		classify_hsa_status(c, a->hsa, end);
	if (a->oom)
		c->oom_text = true;
	if (a->replay)
		classify_replay_word(c, s, a->replay, end);
	if (a->kernarg || a->grid)
		classify_assignments(c, a->kernarg, a->grid, end);
	if (a->hip_so && !c->cut && a->hip_so - s >= 10 && !memcmp(a->hip_so - 10, "[capture] ", 10)) {
		const char *v = a->hip_so + 7;
		const char *b = v;

		while (b < end && *b != ' ' && *b != '\t')
			b++;
		set_last(&c->f.capture_hip_so, v, b);
	}
	if (has_prefix(s, end, LIT("wave_")))
		classify_agent_wave(c, s, end);
}

/* Anchors at or past limit belong to the next window (or to nothing). */
static void anchors_before(struct anchors *a, const char *limit)
{
	const char **all[] = { &a->maf, &a->mfe, &a->queue, &a->hsa, &a->replay,
			       &a->hrr, &a->kernarg, &a->grid, &a->hip_so };

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (*all[i] && *all[i] >= limit)
			*all[i] = NULL;
}

void classify_anchored(struct classifier *c, const char *s, const char *end, const char *limit)
{
	struct anchors a;

	scan_anchors(s, end, &a);
	anchors_before(&a, limit);
	a.hrr = NULL;
	on_generic(c, s, end, &a);
}

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
		scan_anchors(s, end, &a);
	} else {
		if (classify_info(c, p, end))
			return;
		scan_anchors(s, end, &a);
		/* A prefixed line ("<timestamp> [HRR] PASS", "[triage] ...", a
		 * colour code), or another write spliced in front of an [HRR]
		 * line: the text before it is read for the runtime's anchors. */
		if (a.hrr && classify_hrr(c, a.hrr, end)) {
			const char *hrr = a.hrr;

			anchors_before(&a, hrr < lim ? hrr : lim);
			on_generic(c, s, hrr, &a);
			return;
		}
	}
	anchors_before(&a, lim);
	on_generic(c, s, end, &a);
}

/* A window of an overlong line after its first: only the runtime's
 * anchors can start there. */
static void classify_piece(struct classifier *c, const char *p, size_t len, size_t limit)
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

/* The buffer is full and the line goes on: read this window, keep its
 * last FINDING_LINE_OVERLAP bytes as the start of the next. */
static void window_out(struct classifier *c)
{
	size_t keep = FINDING_LINE_OVERLAP;

	classify_piece(c, c->line, c->line_len, c->line_len - keep);
	memmove(c->line, c->line + c->line_len - keep, keep);
	c->line_len = keep;
	c->continued = true;
}

static void line_end(struct classifier *c)
{
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
			classify_line(c, data, take, take);
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


/* The streaming classifier: replay log bytes in, one finding out.
 *
 * One pass, line by line, with a fixed-size line buffer: a line longer than
 * FINDING_LINE_MAX is matched on its head and the rest is skipped, so memory
 * stays bounded whatever the log holds. Lines only record evidence; the
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
	if (a->hip_so && a->hip_so - s >= 10 && !memcmp(a->hip_so - 10, "[capture] ", 10)) {
		const char *v = a->hip_so + 7;
		const char *b = v;

		while (b < end && *b != ' ' && *b != '\t')
			b++;
		set_last(&c->f.capture_hip_so, v, b);
	}
	if (has_prefix(s, end, LIT("wave_")))
		classify_agent_wave(c, s, end);
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
		if (classify_hrr(c, s, end))
			return;
		scan_anchors(s, end, &a);
	} else {
		if (classify_info(c, p, end))
			return;
		scan_anchors(s, end, &a);
		/* A prefixed line ("<timestamp> [HRR] PASS", "[triage] ..."). */
		if (a.hrr && classify_hrr(c, a.hrr, end))
			return;
	}
	on_generic(c, s, end, &a);
}

void classify_flush(struct classifier *c)
{
	if (c->line_len)
		classify_line(c, c->line, c->line_len);
	c->line_len = 0;
	c->skipping = false;
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


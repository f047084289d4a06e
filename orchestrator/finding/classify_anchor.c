/* The runtime's anchors: text that can start anywhere in a line (a fault,
 * an abort, "replay", a dispatch's assignments), found in one pass over the
 * line and handed to the readers of classify_runtime.c. classify.c uses it
 * for every line no prefix rule took; classify_launch.c for what follows an
 * [HRR] line's own fields.
 *
 * Hot path: most lines of a long log are heartbeats, verbose event lines or
 * pointer-argument lines, recognised by their prefix in classify.c. Every
 * other line gets one pass here that finds all the anchors the remaining
 * rules need, instead of one substring search per rule. */
#include "orchestrator/finding/classify_state.h"

#include <stdint.h>
#include <threads.h>

/* One pass finds every anchor: a bitmap of the two-byte sequences an
 * anchor can be recognised by (its first two bytes, or a rare pair inside
 * it), so most bytes cost one table test instead of a memmem per rule. */
static uint8_t bigram_bits[65536 / 8];
static uint8_t bigram_first[256]; /* a cheap first filter: the bitmap test alone is 5x slower */
static once_flag bigram_once = ONCE_FLAG_INIT;

static void bigram_init(void)
{
	static const char *const pairs[] = {
		"Me", /* Memory access fault..., Memory Fault Error [, Memory critical error */
		"Mi", /* Missing CO for these ISAs */
		"ab", "Ab", /* [aA]borting with error, aborting with status */
		"HS", /* HSA_STATUS_ERROR_ */
		"hi", /* hipErrorOutOfMemory, hipError<Name> */
		"ep", /* [rR]eplay */
		"ry", "rY", "Ry", "RY", /* out of memo(ry), any case */
		"s=", /* kernarg_addres(s=) */
		"d=", /* gri(d=)[ */
		"O=", /* HIP_S(O=) */
		"[H", /* [HRR inside a prefixed line */
		"HW", /* HW Exception by GPU node- */
		"De", /* Device-side assertion */
		"CA", "PB", "TE", /* CANCELLED AT, PBS: job killed: walltime, TERM_RUNLIMIT */
		/* classify_unread.c's: am(dg)pu, Assertion, Segmentation fault,
		 * core (du)mped (a runtime log's ":1:<file>.cpp" is read at the
		 * line's start, in classify_generic) */
		"dg", "As", "Se", "du",
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
		else if (!a->critical && has_prefix(p, end, LIT("Memory critical error by agent node-")))
			a->critical = p;
		else if (!a->missing_co && has_prefix(p, end, LIT("Missing CO for these ISAs")))
			a->missing_co = p;
		break;
	case 'D':
		if (!a->dev_assert && has_prefix(p, end, LIT("Device-side assertion")))
			a->dev_assert = p;
		break;
	case 'C':
	case 'P':
	case 'T':
		if (a->sched)
			break;
		/* Slurm cancels for other reasons too (a user, a preemption):
		 * only its time limit is a clock. */
		if (has_prefix(p, end, LIT("CANCELLED AT "))) {
			if (find(p, end, LIT(" DUE TO TIME LIMIT")))
				a->sched = p;
			else if (!a->unread) {
				a->unread = p;
				a->unread_kind = UNREAD_SCHEDULER;
			}
		} else if (has_prefix(p, end, LIT("PBS: job killed: walltime ")) ||
			   has_prefix(p, end, LIT("TERM_RUNLIMIT"))) {
			a->sched = p;
		}
		break;
	case 'a':
		if (!a->queue && (has_prefix(p, end, LIT("aborting with error")) ||
				  has_prefix(p, end, LIT("aborting with status:"))))
			a->queue = p;
		break;
	case 'A':
		/* rocdevice.cpp's out-of-resources form is capitalised */
		if (!a->queue && has_prefix(p, end, LIT("Aborting with error")))
			a->queue = p;
		else
			classify_unread_anchor(s, p, end, a);
		break;
	case 'H':
		if (!a->hsa && has_prefix(p, end, LIT("HSA_STATUS_ERROR")))
			a->hsa = p;
		else if (!a->hw && has_prefix(p, end, LIT("HW Exception by GPU node-")))
			a->hw = p;
		break;
	case 'h':
		if (has_prefix(p, end, LIT("hipErrorOutOfMemory")))
			a->oom = true;
		else if (!a->hip_error && has_prefix(p, end, LIT("hipError")))
			a->hip_error = p;
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
	case 'S':
		classify_unread_anchor(s, p, end, a);
		break;
	case 's':
		if (!a->kernarg && p - s >= 14 && !memcmp(p - 14, "kernarg_address=", 16))
			a->kernarg = p - 14;
		break;
	case 'd':
		if (!a->grid && p - s >= 3 && end - p >= 3 && !memcmp(p - 3, "grid=[", 6))
			a->grid = p - 3;
		else if (p[1] == 'u' || p[1] == 'g')
			classify_unread_anchor(s, p, end, a);
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

void classify_scan_anchors(const char *s, const char *end, struct anchors *a)
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

/* Whether a rule reads the line (then nothing in it is unread evidence). */
static bool line_read(const struct anchors *a, bool hip_read)
{
	return hip_read || a->maf || a->mfe || a->queue || a->hsa || a->hw || a->dev_assert ||
	       a->critical || a->missing_co || a->sched;
}

void classify_generic(struct classifier *c, const char *s, const char *end,
		       struct anchors *a)
{
	bool hip_read = false;

	if (a->maf)
		classify_maf(c, a->maf, end);
	if (a->mfe)
		classify_mfe(c, a->mfe, end);
	if (a->queue)
		classify_queue_abort(c, a->queue, end);
	if (a->hsa)
		classify_hsa_status(c, a->hsa, end);
	if (a->hw)
		classify_hw_exception(c, a->hw, end);
	if (a->hip_error) {
		hip_read = classify_hip_name(c, a->hip_error, end);
		if (!hip_read && !a->unread) {
			a->unread = a->hip_error;
			a->unread_kind = UNREAD_HIP_ERROR;
		}
	}
	if (a->dev_assert)
		classify_device_assert(c);
	if (a->critical)
		classify_critical(c, a->critical, end);
	if (a->missing_co)
		classify_missing_co(c);
	if (a->sched)
		classify_sched(c, s, a->sched, end);
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
	else if (s < end && (*s == 'S' || *s == 'F'))
		classify_agent_event(c, s, end);
	if (!a->unread && s < end && *s == ':')
		classify_unread_log(s, end, a);
	if (a->unread && !line_read(a, hip_read))
		classify_unread(c, s, end, a->unread, a->unread_kind);
}

/* Anchors at or past limit belong to the next window (or to nothing). */
void classify_anchors_before(struct anchors *a, const char *limit)
{
	const char **all[] = { &a->maf, &a->mfe, &a->queue, &a->hsa, &a->replay,
			       &a->hrr, &a->kernarg, &a->grid, &a->hip_so, &a->hw,
			       &a->hip_error, &a->dev_assert, &a->critical, &a->missing_co,
			       &a->sched, &a->unread };

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (*all[i] && *all[i] >= limit)
			*all[i] = NULL;
}

void classify_anchored(struct classifier *c, const char *s, const char *end, const char *limit)
{
	struct anchors a;

	classify_scan_anchors(s, end, &a);
	classify_anchors_before(&a, limit);
	a.hrr = NULL;
	classify_generic(c, s, end, &a);
}

void classify_anchors_init(void)
{
	call_once(&bigram_once, bigram_init);
}

/* Where the text the classifier reads in a line starts: its first anchor
 * (a fault, an abort, an [HRR] line, a stop marker), so a timestamp, a CI
 * system's prefix or another writer's text in front of it is left out.
 * NULL when it holds none. */
const char *finding_line_anchor(const char *p, const char *end)
{
	struct anchors a;
	const char *first = find(p, end, LIT(MARKER_PREFIX));

	classify_anchors_init();
	classify_scan_anchors(p, end, &a);
	{
		const char *const at[] = { a.maf, a.mfe, a.queue, a.hsa, a.hw, a.hrr };

		for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++)
			if (at[i] && (!first || at[i] < first))
				first = at[i];
	}
	return first;
}

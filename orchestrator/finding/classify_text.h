/* Text scanners over [p, end) ranges of untrusted log text: bounded by
 * end, never by a NUL. The classifier's line readers (classify_*.c) and the
 * stop-marker grammar (marker.c) lex with these; this unit knows nothing of
 * either, so every arrow points here. Header-only: they sit on the
 * classifier's hot path, where a call per byte test would show. */
#ifndef HRR_FINDING_CLASSIFY_TEXT_H
#define HRR_FINDING_CLASSIFY_TEXT_H

#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/strbuf.h"
#include "common/xalloc.h"

/* A string literal as the (pointer, length) pair the scanners take. */
#define LIT(s) (s), (sizeof(s) - 1)

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

#endif

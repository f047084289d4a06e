#include "common/text.h"
#include "common/xalloc.h"

#include <string.h>

static const char replacement[] = "\xef\xbf\xbd"; /* U+FFFD */

/* Length of the valid UTF-8 sequence at s (1..4), or 0 when the bytes at s
 * do not start one; *bad is then the length of the maximal bad subpart. */
static size_t utf8_seq(const unsigned char *s, size_t avail, size_t *bad)
{
	unsigned char c = s[0];
	size_t need;
	unsigned char lo = 0x80, hi = 0xbf;

	*bad = 1;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		need = 2;
	else if (c >= 0xe0 && c <= 0xef) {
		need = 3;
		if (c == 0xe0)
			lo = 0xa0;          /* overlong */
		else if (c == 0xed)
			hi = 0x9f;          /* surrogates */
	} else if (c >= 0xf0 && c <= 0xf4) {
		need = 4;
		if (c == 0xf0)
			lo = 0x90;          /* overlong */
		else if (c == 0xf4)
			hi = 0x8f;          /* above U+10FFFF */
	} else
		return 0;
	for (size_t i = 1; i < need; i++) {
		unsigned char min = i == 1 ? lo : 0x80, max = i == 1 ? hi : 0xbf;

		if (i >= avail || s[i] < min || s[i] > max) {
			*bad = i;
			return 0;
		}
	}
	return need;
}

/* Length of a CSI sequence at s ("ESC [" parameters, intermediates, one
 * final byte), or 0 when s does not hold a whole one. */
static size_t csi_len(const unsigned char *s, size_t avail)
{
	size_t i = 2;

	if (avail < 3 || s[0] != 0x1b || s[1] != '[')
		return 0;
	while (i < avail && s[i] >= 0x30 && s[i] <= 0x3f)
		i++;
	while (i < avail && s[i] >= 0x20 && s[i] <= 0x2f)
		i++;
	if (i < avail && s[i] >= 0x40 && s[i] <= 0x7e)
		return i + 1;
	return 0;
}

/* The code point of the valid n-byte sequence at s. */
static unsigned long code_point(const unsigned char *s, size_t n)
{
	static const unsigned char lead_mask[] = { 0, 0x7f, 0x1f, 0x0f, 0x07 };
	unsigned long cp = s[0] & lead_mask[n];

	for (size_t i = 1; i < n; i++)
		cp = cp << 6 | (s[i] & 0x3f);
	return cp;
}

static bool is_noncharacter(const unsigned char *s, size_t n)
{
	unsigned long cp;

	if (n < 3)
		return false;
	cp = code_point(s, n);
	return (cp >= 0xfdd0 && cp <= 0xfdef) || (cp & 0xfffe) == 0xfffe;
}

static bool is_control(unsigned char c, unsigned flags)
{
	if (c == '\n')
		return !(flags & TEXT_KEEP_NEWLINES);
	if (c == '\t')
		return !(flags & TEXT_KEEP_TABS);
	return c < 0x20 || c == 0x7f;
}

void text_sanitize(struct strbuf *out, const char *s, size_t len, unsigned flags)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, run = 0;

	strbuf_grow(out, len);
	while (i < len) {
		size_t bad, n;

		if ((flags & TEXT_STRIP_ANSI) && p[i] == 0x1b && (n = csi_len(p + i, len - i))) {
			strbuf_add(out, s + run, i - run);
			i += n;
			run = i;
			continue;
		}
		n = utf8_seq(p + i, len - i, &bad);
		/* C1 controls are the two-byte sequences C2 80 .. C2 9F. */
		if (n == 1   ? !is_control(p[i], flags)
		    : n == 2 ? !(p[i] == 0xc2 && p[i + 1] < 0xa0)
			     : n > 0 && !((flags & TEXT_NO_NONCHARACTERS) && is_noncharacter(p + i, n))) {
			i += n;
			continue;
		}
		strbuf_add(out, s + run, i - run);
		strbuf_add(out, replacement, sizeof(replacement) - 1);
		i += n ? n : bad;
		run = i;
	}
	strbuf_add(out, s + run, i - run);
}

char *text_sanitized(const char *s, unsigned flags)
{
	struct strbuf sb = STRBUF_INIT;

	if (!s)
		return NULL;
	text_sanitize(&sb, s, strlen(s), flags);
	return strbuf_detach(&sb, NULL);
}

/* Each byte in a markdown cell: 0 printable ASCII that stays as it is,
 * 1 one a backslash escapes (\\ ` * _ [ ] ( ) ! | < > & ~ #), 2 anything
 * else (a control, DEL or a byte of UTF-8), which only sanitized text may
 * hold, 3 the end (NUL). */
static const unsigned char cell_byte[256] = {
	3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
	2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
	0, 1, 0, 1, 0, 0, 1, 0, 1, 1, 1, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 0, 1,
	1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 2,
	2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
	2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
	2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
	2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
	2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
	2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
	2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
	2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
};

/* p escaped into out (a backslash before each special, the runs between
 * them copied whole) up to its end or, with stop_at_other, up to its
 * first byte of class 2: where it stopped. */
static size_t markdown_escape(struct strbuf *out, const unsigned char *p, bool stop_at_other)
{
	size_t run = 0, i = 0;

	for (;;) {
		while (!cell_byte[p[i]])
			i++;
		if (cell_byte[p[i]] == 1) {
			strbuf_add(out, p + run, i - run);
			strbuf_addch(out, '\\');
			run = i++;
		} else if (cell_byte[p[i]] == 2 && !stop_at_other) {
			i++;
		} else {
			break;
		}
	}
	strbuf_add(out, p + run, i - run);
	return i;
}

/* Reports write a cell per field of every row (100,000 in a label's
 * history): printable ASCII, the usual cell, is its own sanitized text,
 * so it is escaped in the pass that checks it, a table lookup a byte; a
 * cell with anything else is taken back and sanitized first. */
void text_markdown_cell(struct strbuf *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t start = out->len;
	struct strbuf clean = STRBUF_INIT;

	if (!s || !p[markdown_escape(out, p, true)])
		return;
	strbuf_setlen(out, start);
	text_sanitize(&clean, s, strlen(s), TEXT_STRIP_ANSI | TEXT_NO_NONCHARACTERS);
	markdown_escape(out, (const unsigned char *)clean.buf, false);
	strbuf_release(&clean);
}

size_t text_utf8_cut(const char *s, size_t len, size_t max)
{
	size_t n = max;

	if (len <= max)
		return len;
	/* s[n] is the first byte left out: a continuation byte there means
	 * the character it belongs to started before n. At most 3 back. */
	while (n > 0 && max - n < 3 && ((unsigned char)s[n] & 0xc0) == 0x80)
		n--;
	return ((unsigned char)s[n] & 0xc0) == 0x80 ? max : n;
}

bool text_is_utf8(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;

	while (i < len) {
		size_t bad, n = utf8_seq(p + i, len - i, &bad);

		if (!n)
			return false;
		i += n;
	}
	return true;
}

unsigned long long text_fnv1a64(unsigned long long h, const void *data, size_t len)
{
	const unsigned char *p = data;

	for (size_t i = 0; i < len; i++)
		h = (h ^ p[i]) * 1099511628211ull;
	return h;
}

const char *text_long(char buf[TEXT_LONG_MAX], long v)
{
	char *d = buf + TEXT_LONG_MAX - 1;
	/* Negated as unsigned: LONG_MIN has no positive long. */
	unsigned long u = v < 0 ? 0ul - (unsigned long)v : (unsigned long)v;

	*d = '\0';
	do
		*--d = (char)('0' + u % 10);
	while (u /= 10);
	if (v < 0)
		*--d = '-';
	return d;
}

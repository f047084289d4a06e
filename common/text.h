/* Text from untrusted sources (archives, replay logs, tool output) made
 * safe to print and to store: valid UTF-8, no terminal control sequences.
 * Every string that reaches finding.json, run.json, a report or the
 * terminal from such a source passes through here. */
#ifndef HRR_COMMON_TEXT_H
#define HRR_COMMON_TEXT_H

#include <stdbool.h>
#include <stddef.h>

#include "common/strbuf.h"

enum text_flags {
	TEXT_KEEP_NEWLINES = 1 << 0, /* keep '\n' (else it becomes U+FFFD) */
	TEXT_KEEP_TABS = 1 << 1,     /* keep '\t' (else it becomes U+FFFD) */
	TEXT_STRIP_ANSI = 1 << 2,    /* drop ESC [ ... final-byte sequences whole */
	/* Unicode's 66 noncharacters (U+FDD0..U+FDEF, U+xFFFE, U+xFFFF)
	 * become U+FFFD: XML 1.0 forbids U+FFFE and U+FFFF outright and
	 * discourages the rest, and one such kernel name would make a
	 * junit.xml that readers reject. */
	TEXT_NO_NONCHARACTERS = 1 << 3,
};

/* Append s[0..len) to out as valid UTF-8: an invalid, overlong, surrogate
 * or truncated sequence becomes U+FFFD (one per maximal bad subpart, as
 * Unicode recommends), and so does every C0 control, DEL and C1 control
 * not kept by flags. With TEXT_STRIP_ANSI a CSI sequence (colour, erase
 * line) is removed rather than replaced; a lone ESC is still replaced. */
void text_sanitize(struct strbuf *out, const char *s, size_t len, unsigned flags);
/* The same into a new string; NULL for NULL. */
char *text_sanitized(const char *s, unsigned flags);
/* Untrusted text as one markdown table cell, the same everywhere (sweep
 * summaries, `history`): sanitised (controls, escapes, noncharacters
 * replaced, one line), then every character markdown or its HTML could act
 * on backslash-escaped, so "[x](javascript:...)", "![](http://...)",
 * "<script>" and "<img onerror=...>" stay text. NULL appends nothing. */
void text_markdown_cell(struct strbuf *out, const char *s);
/* True when s[0..len) is valid UTF-8 (controls allowed). */
bool text_is_utf8(const char *s, size_t len);
/* How many bytes of s[0..len) to keep for at most max: len when it fits,
 * else max backed off to the start of the UTF-8 sequence max falls in, so
 * a cut never leaves half a character (valid text stays valid). */
size_t text_utf8_cut(const char *s, size_t len, size_t max);

/* FNV-1a 64: the cheap content fingerprints of archives, results and run
 * options. Start from TEXT_FNV1A64_INIT, feed in pieces. */
#define TEXT_FNV1A64_INIT 1469598103934665603ull
/* v in decimal, as "%ld" prints it, written into buf (returned): without
 * printf's cost, for the hundreds of thousands of chart coordinates a
 * history site writes. */
#define TEXT_LONG_MAX 21
const char *text_long(char buf[TEXT_LONG_MAX], long v);
unsigned long long text_fnv1a64(unsigned long long h, const void *data, size_t len);

#endif

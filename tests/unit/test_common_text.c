/* common/text: untrusted text made valid UTF-8 without control sequences. */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/strbuf.h"
#include "common/text.h"

static char *clean(const char *s, size_t len, unsigned flags)
{
	struct strbuf sb = STRBUF_INIT;

	text_sanitize(&sb, s, len, flags);
	cr_assert(text_is_utf8(sb.buf, sb.len));
	return strbuf_detach(&sb, NULL);
}

#define FFFD "\xef\xbf\xbd"

Test(text, valid_utf8_passes_unchanged)
{
	const char *s = "void at::native::k<c10::BFloat16> \xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80";
	char *r = clean(s, strlen(s), 0);

	cr_assert_str_eq(r, s);
	free(r);
}

Test(text, a_multibyte_character_cut_at_the_end_becomes_one_replacement)
{
	/* hrr-playback cuts names at 96 bytes, possibly inside a character. */
	char *r = clean("k\xe2\x82", 3, 0);

	cr_assert_str_eq(r, "k" FFFD);
	free(r);
}

Test(text, overlong_surrogate_and_stray_bytes_are_replaced)
{
	char *r = clean("a\xc0\xaf" "b\xed\xa0\x80" "c\xff" "d\x80", 11, 0);

	cr_assert_str_eq(r, "a" FFFD FFFD "b" FFFD FFFD FFFD "c" FFFD "d" FFFD);
	free(r);
}

Test(text, controls_are_replaced_unless_kept)
{
	const char *s = "k\n[HRR] PASS\t\x07\x7f\xc2\x85";
	char *r = clean(s, strlen(s), 0);
	char *kept = clean("a\nb\tc", 5, TEXT_KEEP_NEWLINES | TEXT_KEEP_TABS);

	cr_assert_str_eq(r, "k" FFFD "[HRR] PASS" FFFD FFFD FFFD FFFD);
	cr_assert_str_eq(kept, "a\nb\tc");
	free(r);
	free(kept);
}

Test(text, ansi_colour_is_stripped_whole_and_a_lone_escape_replaced)
{
	const char *s = "\x1b[36m[HRR progress] last=\"k\"\x1b[0m\x1b[K \x1b]";
	char *r = clean(s, strlen(s), TEXT_STRIP_ANSI);
	char *kept = clean("\x1b[0m", 4, 0);

	cr_assert_str_eq(r, "[HRR progress] last=\"k\" " FFFD "]");
	cr_assert_str_eq(kept, FFFD "[0m");
	free(r);
	free(kept);
}

Test(text, embedded_nul_and_empty_input)
{
	char *r = clean("a\0b", 3, 0);
	char *e = clean("", 0, 0);

	cr_assert_str_eq(r, "a" FFFD "b");
	cr_assert_str_eq(e, "");
	cr_assert_null(text_sanitized(NULL, 0));
	free(r);
	free(e);
}

Test(text, validity_check)
{
	cr_assert(text_is_utf8("abc\xc3\xa9", 5));
	cr_assert_not(text_is_utf8("abc\xc3", 4));
	cr_assert_not(text_is_utf8("\xf5\x80\x80\x80", 4));
}

/* Every markdown special gets a backslash, in plain ASCII and after the
 * cell is sanitized (a colour sequence dropped, a control replaced). */
Test(text, a_markdown_cell_escapes_specials_plain_or_sanitized)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addstr(&sb, "| ");
	text_markdown_cell(&sb, "a\\`*_[]()!|<>&~#z-./");
	cr_assert_str_eq(sb.buf, "| a\\\\\\`\\*\\_\\[\\]\\(\\)\\!\\|\\<\\>\\&\\~\\#z-./");
	strbuf_reset(&sb);
	text_markdown_cell(&sb, "\x1b[31mk<\xc3\xa9>\x01|");
	cr_assert_str_eq(sb.buf, "k\\<\xc3\xa9\\>" FFFD "\\|");
	strbuf_reset(&sb);
	/* Escaped as plain ASCII up to the control, then taken back (what
	 * was before the cell stays) and escaped once more, sanitized. */
	strbuf_addstr(&sb, "| ");
	text_markdown_cell(&sb, "a|b\x01");
	cr_assert_str_eq(sb.buf, "| a\\|b" FFFD);
	strbuf_reset(&sb);
	text_markdown_cell(&sb, "");
	text_markdown_cell(&sb, NULL);
	cr_assert_eq(sb.len, 0);
	strbuf_release(&sb);
}

Test(text, text_long_prints_what_printf_prints)
{
	const long v[] = { 0, 7, -7, 10, -10, 99, 100, 123456789, -1, LONG_MAX, LONG_MIN };

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		char buf[TEXT_LONG_MAX], want[32];

		snprintf(want, sizeof(want), "%ld", v[i]);
		cr_assert_str_eq(text_long(buf, v[i]), want);
	}
}

/* A cut to a byte budget never leaves half a character: the classifier
 * fuzzer found a kernel family cut inside a U+FFFD, and finding.json was
 * then not valid UTF-8. */
Test(text, a_cut_to_a_budget_backs_off_to_a_character_start)
{
	const char *s = "ab\xef\xbf\xbd" "cd"; /* a, b, U+FFFD (3 bytes), c, d */

	cr_assert_eq(text_utf8_cut(s, 7, 10), 7, "it fits");
	cr_assert_eq(text_utf8_cut(s, 7, 5), 5, "after the whole character");
	cr_assert_eq(text_utf8_cut(s, 7, 4), 2, "not inside it");
	cr_assert_eq(text_utf8_cut(s, 7, 3), 2);
	cr_assert_eq(text_utf8_cut(s, 7, 2), 2);
	cr_assert_eq(text_utf8_cut("\x80\x80\x80\x80\x80", 5, 4), 4, "not text: the budget");
}

/* The classifier streams: any chunking gives the same finding, and an
 * overlong line costs a bounded buffer, never the whole line. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "orchestrator/finding/finding.h"
#include "tests/support/finding_samples.h"

static char *classify_json(const struct strbuf *text, size_t chunk)
{
	struct finding f;
	char *s;

	fs_classify_text(text->buf, text->len, chunk, "same", &f);
	finding_finalize(&f, NULL);
	s = fs_json(&f, NULL);
	finding_release(&f);
	return s;
}

/* Every sample of the corpus. */
static void for_each_sample(void (*fn)(const char *name))
{
	cleanup_free char *dir_path = fs_sample_path("");
	DIR *dir = opendir(dir_path);
	struct dirent *de;
	int seen = 0;

	cr_assert(dir, "%s", dir_path);
	while ((de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		fn(de->d_name);
		seen++;
	}
	closedir(dir);
	cr_assert_geq(seen, 30, "the corpus has its samples");
}

static void same_in_chunks(const char *name)
{
	struct strbuf text = STRBUF_INIT;
	cleanup_free char *whole = NULL, *bytes = NULL, *odd = NULL;

	fs_sample_read(name, &text);
	whole = classify_json(&text, 0);
	bytes = classify_json(&text, 1);
	odd = classify_json(&text, 7);
	cr_assert_str_eq(bytes, whole, "%s: 1-byte chunks differ", name);
	cr_assert_str_eq(odd, whole, "%s: 7-byte chunks differ", name);
	strbuf_release(&text);
}

Test(finding_stream, one_byte_chunks_give_the_same_finding)
{
	for_each_sample(same_in_chunks);
}

/* A last line without its newline is read, but as a cut line: a number
 * at its end may be cut ("seq=20" of "seq=2047", "signal 1" of "signal
 * 11"), so it is not read; everything else reads alike. */
static void without_final_newline(const char *name)
{
	struct strbuf text = STRBUF_INIT;
	cleanup_free char *a = NULL, *b = NULL;
	struct finding fa, fb;
	bool ends_in_digit;

	fs_sample_read(name, &text);
	a = classify_json(&text, 0);
	fs_classify_text(text.buf, text.len, 0, "same", &fa);
	strbuf_trim_trailing_newline(&text);
	ends_in_digit = text.len && text.buf[text.len - 1] >= '0' && text.buf[text.len - 1] <= '9';
	b = classify_json(&text, 3);
	fs_classify_text(text.buf, text.len, 3, "same", &fb);
	if (!ends_in_digit) {
		cr_assert_eq(fb.outcome, fa.outcome, "%s: the cut last line is still read", name);
		cr_assert_str_eq(b, a, "%s: the last line without its newline is still read", name);
	} else {
		cr_assert(fb.replay_signal < 0 || fb.replay_signal == fa.replay_signal,
			  "%s: a cut number is never read as another number", name);
	}
	finding_release(&fa);
	finding_release(&fb);
	strbuf_release(&text);
}

Test(finding_stream, last_line_without_newline_counts)
{
	for_each_sample(without_final_newline);
}

static long rss_kib(void)
{
	cleanup_fclose FILE *fp = fopen("/proc/self/status", "r");
	char line[256];
	long kib = -1;

	cr_assert(fp);
	while (fgets(line, sizeof(line), fp))
		if (sscanf(line, "VmRSS: %ld kB", &kib) == 1)
			break;
	return kib;
}

/* A 10 MiB line streamed in 64 KiB pieces: the classifier reads it in
 * windows of a bounded buffer, so memory does not follow the line and
 * evidence past the first window is not lost. */
Test(finding_stream, ten_mib_line_is_bounded)
{
	static const char head[] = "Memory access fault by GPU node-3 (Agent handle: 0x1) on address "
				   "0xdead000. Reason: Unknown.";
	static const char tail[] = " replay killed by signal 9";
	static const char next[] = "\n[HRR] Fatal: T1 Event 5 (hipMemcpy) returned 700 "
				   "(hipErrorIllegalAddress) \xe2\x80\x94 aborting replay\n";
	char *piece = xmalloc(64 * 1024);
	struct classifier *c = classifier_new("big");
	struct finding f;
	long before, after;

	memset(piece, 'x', 64 * 1024);
	before = rss_kib();
	classifier_feed(c, head, sizeof(head) - 1);
	for (int i = 0; i < 160; i++)
		classifier_feed(c, piece, 64 * 1024);
	classifier_feed(c, tail, sizeof(tail) - 1);
	classifier_feed(c, next, sizeof(next) - 1);
	after = rss_kib();
	classifier_finish(c, &f);
	classifier_free(c);
	free(piece);

	cr_assert_lt(after - before, 4096, "RSS grew by %ld KiB for a 10 MiB line", after - before);
	cr_assert_eq(f.outcome, OUTCOME_MAF, "the head of the long line was matched");
	cr_assert_str_eq(f.fault_address, "0xdead000");
	cr_assert_str_eq(f.gpu_node, "3");
	cr_assert_eq(f.replay_signal, 9, "the tail past the first window is read");
	cr_assert_eq(f.failing_call_index, 5, "the line after it is read normally");
	finding_release(&f);
}

/* The same 10 MiB line handed over in one piece (the zero-copy path). */
Test(finding_stream, ten_mib_line_in_one_chunk)
{
	size_t len = 10u << 20;
	char *big = xmalloc(len + 64);
	struct classifier *c = classifier_new("big");
	struct finding f;
	size_t n;

	static const char prefix[] = "[HRR progress] elapsed_s=1.0 seq=9 kernels=2 d2h_pass=0 "
				     "d2h_fail=0 d2h_attempted=0 last=\"";

	memset(big, 'y', len);
	memcpy(big, prefix, sizeof(prefix) - 1);
	n = len;
	memcpy(big + n, "\"\n[HRR] PASS\n", 13);
	n += 13;
	classifier_feed(c, big, n);
	classifier_finish(c, &f);
	classifier_free(c);
	free(big);
	cr_assert_eq(f.outcome, OUTCOME_PASS);
	cr_assert_eq(f.kernels_launched, 2);
	cr_assert_null(f.last_progress_kernel, "a name whose closing quote is past the window is "
		       "cut, and a cut name is never used");
	finding_release(&f);
}

Test(finding_stream, binary_garbage_is_harmless)
{
	unsigned char junk[4096];
	struct classifier *c = classifier_new(NULL);
	struct finding f;
	unsigned x = 12345;

	for (size_t i = 0; i < sizeof(junk); i++) {
		x = x * 1103515245u + 12345u;
		junk[i] = (unsigned char)(x >> 16);
	}
	for (int i = 0; i < 64; i++)
		classifier_feed(c, (const char *)junk, sizeof(junk));
	classifier_finish(c, &f);
	classifier_free(c);
	finding_finalize(&f, NULL);
	cr_assert_eq(f.sources.n, 0, "no source name, no source");
	finding_release(&f);
}

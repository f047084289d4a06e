/* replay.log keeps whole lines when stdout and stderr chunks interleave. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/strbuf.h"
#include "orchestrator/replay/run_log.h"

static char path[64];

static void open_log(struct run_log *rl)
{
	struct error err;
	int fd;

	snprintf(path, sizeof(path), "/tmp/hrr-runlog-XXXXXX");
	fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	close(fd);
	cr_assert_eq(run_log_open(rl, path, NULL, NULL, &err), 0, "%s", err.msg);
}

static void read_log(struct strbuf *sb)
{
	FILE *f = fopen(path, "r");
	char buf[4096];
	size_t n;

	cr_assert_not_null(f);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		strbuf_add(sb, buf, n);
	fclose(f);
	unlink(path);
}

Test(run_log, interleaved_chunks_never_splice_lines)
{
	struct run_log rl;
	struct strbuf sb = STRBUF_INIT;

	open_log(&rl);
	run_log_write(&rl, 1, "[HRR] Event 1: hipLaunch", 24);
	run_log_write(&rl, 2, "[HRR progress] elapsed_s=1.0\nMemory access ", 43);
	run_log_write(&rl, 1, "Kernel -> Kernel 'k'\n[HRR] Ev", 29);
	run_log_write(&rl, 2, "fault by GPU node-2\n", 20);
	run_log_write(&rl, 1, "ent 2\n", 6);
	cr_assert_eq(run_log_close(&rl, NULL), 0);
	read_log(&sb);
	cr_assert_str_eq(sb.buf,
			 "[HRR progress] elapsed_s=1.0\n"
			 "[HRR] Event 1: hipLaunchKernel -> Kernel 'k'\n"
			 "Memory access fault by GPU node-2\n"
			 "[HRR] Event 2\n");
	strbuf_release(&sb);
}

Test(run_log, marker_ends_unfinished_lines_and_is_last)
{
	struct run_log rl;
	struct strbuf sb = STRBUF_INIT;

	open_log(&rl);
	run_log_write(&rl, 1, "no newline yet", 14);
	run_log_marker(&rl, "replay timed out after %ds", 5);
	cr_assert_eq(run_log_close(&rl, NULL), 0);
	read_log(&sb);
	cr_assert_str_eq(sb.buf, "no newline yet\n[hrr-docker-replay] replay timed out after 5s\n");
	strbuf_release(&sb);
}

Test(run_log, close_keeps_the_bytes_as_printed)
{
	struct run_log rl;
	struct strbuf sb = STRBUF_INIT;

	open_log(&rl);
	run_log_write(&rl, 2, "tail without newline", 20);
	cr_assert_eq(run_log_close(&rl, NULL), 0);
	read_log(&sb);
	cr_assert_str_eq(sb.buf, "tail without newline");
	strbuf_release(&sb);
}

Test(run_log, an_endless_line_is_written_in_bounded_pieces)
{
	struct run_log rl;
	struct strbuf sb = STRBUF_INIT;
	char chunk[4096];

	memset(chunk, 'x', sizeof(chunk));
	open_log(&rl);
	for (int i = 0; i < 100; i++) {
		run_log_write(&rl, 1, chunk, sizeof(chunk));
		cr_assert_leq(rl.partial[1].len, RUN_LOG_PARTIAL_MAX, "partial line grows unbounded");
	}
	cr_assert_eq(rl.bytes + rl.partial[1].len, 100 * sizeof(chunk));
	cr_assert_eq(run_log_close(&rl, NULL), 0);
	read_log(&sb);
	cr_assert_eq(sb.len, 100 * sizeof(chunk), "no byte lost");
	strbuf_release(&sb);
}

/* --log-limit: a replay printing far more than the limit leaves a file of
 * about the limit, its first and last lines intact, one marker between
 * them saying how much was dropped, and the classifier fed every byte. */
Test(run_log, limit_keeps_head_and_tail_and_says_what_was_dropped)
{
	const long long limit = 8 << 20;
	struct run_log rl;
	struct strbuf sb = STRBUF_INIT;
	char line[128];
	const char *mark;
	unsigned long long total = 0, dropped = 0, lim = 0;

	open_log(&rl);
	run_log_set_limit(&rl, limit);
	for (int i = 0; i < 400000; i++) {
		int n = snprintf(line, sizeof(line), "[HRR] Event %d: hipLaunchKernel -> 'k'\n", i);

		run_log_write(&rl, 1, line, (size_t)n);
		run_log_flush(&rl);
		total += (unsigned long long)n;
	}
	run_log_marker(&rl, "replay timed out after 5s");
	cr_assert_eq(run_log_close(&rl, NULL), 0);
	cr_assert_gt(total, 2 * (unsigned long long)limit, "the test writes past the limit");
	cr_assert_eq(rl.bytes, total + strlen("[hrr-docker-replay] replay timed out after 5s\n"),
		     "every byte went through (and to the classifier)");
	read_log(&sb);
	cr_assert_leq(sb.len, (size_t)limit + 200, "%zu bytes kept", sb.len);
	cr_assert(!strncmp(sb.buf, "[HRR] Event 0: ", 15), "the head is kept");
	mark = strstr(sb.buf, "\n[hrr-docker-replay] log limit ");
	cr_assert_not_null(mark, "a marker where the middle was");
	cr_assert_eq(sscanf(mark, "\n[hrr-docker-replay] log limit %llu bytes reached: %llu bytes dropped",
			    &lim, &dropped), 2);
	cr_assert_eq(lim, (unsigned long long)limit);
	cr_assert_eq(dropped, rl.dropped);
	cr_assert(strstr(strchr(mark + 1, '\n') + 1, "[HRR] Event ") == strchr(mark + 1, '\n') + 1,
		  "the tail starts on a whole line");
	cr_assert(strstr(sb.buf, "[HRR] Event 399999: hipLaunchKernel -> 'k'\n"
				 "[hrr-docker-replay] replay timed out after 5s\n"),
		  "the tail and the stop marker are kept");
	strbuf_release(&sb);
}

Test(run_log, no_limit_keeps_everything)
{
	struct run_log rl;
	struct strbuf sb = STRBUF_INIT;

	open_log(&rl);
	run_log_set_limit(&rl, 0);
	for (int i = 0; i < 1000; i++)
		run_log_write(&rl, 1, "0123456789\n", 11);
	cr_assert_eq(run_log_close(&rl, NULL), 0);
	read_log(&sb);
	cr_assert_eq(sb.len, 11000);
	cr_assert_eq(rl.dropped, 0);
	strbuf_release(&sb);
}

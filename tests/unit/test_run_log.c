/* replay.log keeps whole lines when stdout and stderr chunks interleave. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/strbuf.h"
#include "replay/run_log.h"

static char path[64];

static void open_log(struct run_log *rl)
{
	struct error err;
	int fd;

	snprintf(path, sizeof(path), "/tmp/hrr-runlog-XXXXXX");
	fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	close(fd);
	cr_assert_eq(run_log_open(rl, path, -1, NULL, &err), 0, "%s", err.msg);
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

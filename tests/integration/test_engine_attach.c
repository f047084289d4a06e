/* Why the replay attaches before start instead of following /logs: the
 * engine's json-file copy rotates, and a follower loses what rotated away. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "docker/engine.h"
#include "tests/support/engine_test.h"

TestSuite(engine_attach, .init = et_suite_init, .fini = et_suite_fini, .timeout = 120);

struct counts {
	size_t out, err;
};

static int count(enum engine_stream_id stream, const char *data, size_t len, void *ud)
{
	struct counts *c = ud;

	(void)data;
	if (stream == ENGINE_STDERR)
		c->err += len;
	else
		c->out += len;
	return 0;
}

/* 4 MiB of short lines on stdout and 1 line on stderr, with the engine's log capped at
 * 256 KiB x 2 files. */
#define SCRIPT "busybox yes '[HRR] Event 1: hipModuleLaunchKernel -> Kernel k' | busybox head -c 4194304; echo done >&2"
#define WANT_OUT (4194304)

static char *create_small_log(struct engine *e)
{
	struct container_spec s;
	struct error err;
	char *id = NULL;

	et_spec(&s, SCRIPT);
	s.log_max_bytes = 256LL << 10;
	s.log_max_file = xstrdup("2");
	cr_assert_eq(engine_container_create(e, NULL, &s, &id, &err), 0, "%s", err.msg);
	container_spec_release(&s);
	return id;
}

static void run_streamed(struct engine *e, const char *id, bool attach, struct counts *c)
{
	struct engine_loop *loop;
	struct engine_stream *wait = NULL, *out = NULL;
	struct error err;
	long status = -1;
	long long deadline = et_now_ms() + 60000;

	cr_assert_eq(engine_loop_new(&loop, &err), 0);
	cr_assert_eq(engine_wait_stream(e, id, "next-exit", &wait, &err), 0);
	cr_assert_eq(engine_loop_add(loop, wait, &err), 0, "%s", err.msg);
	if (attach) {
		cr_assert_eq(engine_attach_stream(e, id, false, count, c, &out, &err), 0);
		cr_assert_eq(engine_loop_add(loop, out, &err), 0, "%s", err.msg);
		cr_assert(engine_stream_responded(out), "attach acknowledged before start");
	}
	cr_assert_eq(engine_container_start(e, id, &err), 0, "%s", err.msg);
	if (!attach) {
		cr_assert_eq(engine_logs_stream(e, id, true, false, count, c, &out, &err), 0);
		cr_assert_eq(engine_loop_add(loop, out, &err), 0, "%s", err.msg);
	}
	while (!(engine_stream_done(wait) && engine_stream_done(out)) && et_now_ms() < deadline)
		cr_assert_eq(engine_loop_poll(loop, 100, -1, &err), 0, "%s", err.msg);
	cr_assert(engine_stream_done(wait) && engine_stream_done(out), "streams did not end");
	cr_assert_eq(engine_wait_status(wait, &status, &err), 0, "%s", err.msg);
	cr_assert_eq(status, 0);
	engine_stream_free(out);
	engine_stream_free(wait);
	engine_loop_free(loop);
}

Test(engine_attach, attach_before_start_gets_every_byte_past_log_rotation)
{
	struct engine *e = et_engine();
	char *id = create_small_log(e);
	struct counts c = { 0, 0 };

	run_streamed(e, id, true, &c);
	cr_assert_eq(c.out, WANT_OUT, "stdout bytes: %zu of %d", c.out, WANT_OUT);
	cr_assert_eq(c.err, 5, "stderr demuxed apart");
	free(id);
	engine_close(e);
}

Test(engine_attach, following_logs_loses_what_rotated_away)
{
	struct engine *e = et_engine();
	char *id = create_small_log(e);
	struct counts c = { 0, 0 };

	run_streamed(e, id, false, &c);
	/* The engine keeps at most 2 x 256 KiB of JSON-wrapped lines. */
	cr_assert_lt(c.out, WANT_OUT, "the engine's log no longer rotates away output?");
	free(id);
	engine_close(e);
}

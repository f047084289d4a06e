/* Running containers through the engine client: wait/logs streams in one
 * loop, stop/kill, exec, events and the archive endpoint. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/strbuf.h"
#include "common/strvec.h"
#include "docker/engine.h"
#include "tests/support/engine_test.h"

TestSuite(engine_run, .init = et_suite_init, .fini = et_suite_fini);

struct output {
	struct strbuf s[3];
};

static int on_output(enum engine_stream_id stream, const char *data, size_t len, void *ud)
{
	struct output *o = ud;

	strbuf_add(&o->s[stream], data, len);
	return 0;
}

static void output_release(struct output *o)
{
	for (int i = 0; i < 3; i++)
		strbuf_release(&o->s[i]);
}

/* Poll until every given stream is done or the deadline passes. */
static void run_until_done(struct engine_loop *l, struct engine_stream **s, size_t n,
			   int deadline_ms)
{
	long long end = et_now_ms() + deadline_ms;
	struct error err;

	for (;;) {
		bool all = true;

		for (size_t i = 0; i < n; i++)
			all &= engine_stream_done(s[i]);
		if (all)
			return;
		cr_assert_lt(et_now_ms(), end, "streams not done within %d ms", deadline_ms);
		cr_assert_eq(engine_loop_poll(l, 200, -1, &err), 0, "%s", err.msg);
	}
}

static void inspect_state(struct engine *e, const char *id, struct container_state *st)
{
	struct engine_container_info c;
	struct error err;

	cr_assert_eq(engine_container_inspect(e, id, &c, &err), 0, "%s", err.msg);
	cr_assert(c.has_state, "the inspect answer has a State.Status");
	*st = c.state;
	engine_container_info_release(&c);
}

Test(engine_run, create_start_logs_wait_remove_round_trip)
{
	struct engine *e = et_engine();
	char *id = et_create(e, "echo out1; echo err1 >&2; echo out2; echo err2 >&2; exit 7");
	struct output o = { { STRBUF_INIT, STRBUF_INIT, STRBUF_INIT } };
	struct engine_loop *l = NULL;
	struct engine_stream *s[2] = { NULL, NULL };
	struct container_state st;
	struct error err;
	long code = -1;

	cr_assert_eq(engine_loop_new(&l, &err), 0);
	cr_assert_eq(engine_wait_stream(e, id, "next-exit", &s[0], &err), 0);
	cr_assert_eq(engine_loop_add(l, s[0], &err), 0, "%s", err.msg);
	cr_assert(engine_stream_responded(s[0]), "the wait is registered once added");
	cr_assert_not(engine_stream_done(s[0]));
	cr_assert_eq(engine_container_start(e, id, &err), 0, "%s", err.msg);
	cr_assert_eq(engine_logs_stream(e, id, true, false, on_output, &o, &s[1], &err), 0);
	cr_assert_eq(engine_loop_add(l, s[1], &err), 0, "%s", err.msg);
	run_until_done(l, s, 2, 30000);
	cr_assert_eq(engine_wait_status(s[0], &code, &err), 0, "%s", err.msg);
	cr_assert_eq(code, 7);
	cr_assert_eq(engine_stream_result(s[1], &err), 0, "%s", err.msg);
	cr_assert_str_eq(o.s[ENGINE_STDOUT].buf, "out1\nout2\n");
	cr_assert_str_eq(o.s[ENGINE_STDERR].buf, "err1\nerr2\n");
	cr_assert_eq(o.s[ENGINE_STDIN].len, 0);
	engine_stream_free(s[0]);
	engine_stream_free(s[1]);
	engine_loop_free(l);

	inspect_state(e, id, &st);
	cr_assert_str_eq(st.status, "exited");
	cr_assert_eq(st.exit_code, 7);
	cr_assert_not(st.running);
	cr_assert_not(st.oom_killed);
	cr_assert_neq(st.started_at[0], '\0');
	cr_assert_neq(st.finished_at[0], '\0');

	/* The blocking conveniences see the same. */
	output_release(&o);
	cr_assert_eq(engine_container_logs(e, id, false, on_output, &o, &err), 0, "%s", err.msg);
	cr_assert_str_eq(o.s[ENGINE_STDOUT].buf, "out1\nout2\n");
	cr_assert_str_eq(o.s[ENGINE_STDERR].buf, "err1\nerr2\n");
	cr_assert_eq(engine_container_wait(e, id, "not-running", &code, &err), 0, "%s", err.msg);
	cr_assert_eq(code, 7);

	cr_assert_eq(engine_container_remove(e, id, false, &err), 0, "%s", err.msg);
	cr_assert_eq(engine_container_remove(e, id, true, &err), -1);
	cr_assert_eq(err.kind, ERR_NOT_FOUND);
	output_release(&o);
	free(id);
	engine_close(e);
}

Test(engine_run, wait_registered_before_start_catches_a_fast_exit)
{
	struct engine *e = et_engine();

	for (int round = 0; round < 3; round++) {
		char *id = et_create(e, "exit 3");
		struct engine_loop *l = NULL;
		struct engine_stream *w = NULL;
		struct error err;
		long code = -1;

		cr_assert_eq(engine_loop_new(&l, &err), 0);
		cr_assert_eq(engine_wait_stream(e, id, "next-exit", &w, &err), 0);
		cr_assert_eq(engine_loop_add(l, w, &err), 0, "%s", err.msg);
		cr_assert_eq(engine_container_start(e, id, &err), 0, "%s", err.msg);
		run_until_done(l, &w, 1, 20000);
		cr_assert_eq(engine_wait_status(w, &code, &err), 0, "round %d: %s", round, err.msg);
		cr_assert_eq(code, 3, "round %d", round);
		engine_stream_free(w);
		engine_loop_free(l);
		cr_assert_eq(engine_container_remove(e, id, true, &err), 0, "%s", err.msg);
		free(id);
	}
	engine_close(e);
}


Test(engine_run, stop_and_kill)
{
	struct engine *e = et_engine();
	/* PID 1 without an init ignores SIGTERM: stop has to escalate. */
	char *a = et_create(e, "exec /bin/busybox sleep 60");
	char *b = et_create(e, "exec /bin/busybox sleep 60");
	struct container_state st;
	struct error err;
	long long t0;

	cr_assert_eq(engine_container_start(e, a, &err), 0, "%s", err.msg);
	cr_assert_eq(engine_container_start(e, a, &err), 0, "304 is success: %s", err.msg);
	inspect_state(e, a, &st);
	cr_assert(st.running);
	cr_assert_gt(st.pid, 0);
	t0 = et_now_ms();
	cr_assert_eq(engine_container_stop(e, a, 1, &err), 0, "%s", err.msg);
	cr_assert_lt(et_now_ms() - t0, 20000);
	inspect_state(e, a, &st);
	cr_assert_not(st.running);
	cr_assert_str_eq(st.status, "exited");
	cr_assert_eq(st.exit_code, 137);
	cr_assert_eq(engine_container_stop(e, a, 1, &err), 0, "stopping a stopped one: %s",
		     err.msg);

	cr_assert_eq(engine_container_start(e, b, &err), 0, "%s", err.msg);
	cr_assert_eq(engine_container_kill(e, b, "SIGKILL", &err), 0, "%s", err.msg);
	{
		long code = -1;

		cr_assert_eq(engine_container_wait(e, b, "not-running", &code, &err), 0, "%s",
			     err.msg);
		cr_assert_eq(code, 137);
	}
	cr_assert_eq(engine_container_kill(e, b, "SIGKILL", &err), -1);
	cr_assert_eq(err.kind, ERR_HTTP);
	cr_assert_eq(err.status, 409);
	cr_assert(strstr(err.msg, "not running"), "%s", err.msg);
	free(a);
	free(b);
	engine_close(e);
}

Test(engine_run, exec_gives_output_and_exit_code)
{
	struct engine *e = et_engine();
	char *id = et_create(e, "exec /bin/busybox sleep 60");
	struct output o = { { STRBUF_INIT, STRBUF_INIT, STRBUF_INIT } };
	struct strvec cmd = STRVEC_INIT;
	struct error err;
	long code = -1;

	cr_assert_eq(engine_container_start(e, id, &err), 0, "%s", err.msg);
	strvec_push(&cmd, "/bin/sh");
	strvec_push(&cmd, "-c");
	strvec_push(&cmd, "echo x; echo y >&2; exit 5");
	cr_assert_eq(engine_exec(e, id, &cmd, NULL, false, on_output, &o, &code, &err), 0, "%s",
		     err.msg);
	cr_assert_eq(code, 5);
	cr_assert_str_eq(o.s[ENGINE_STDOUT].buf, "x\n");
	cr_assert_str_eq(o.s[ENGINE_STDERR].buf, "y\n");
	output_release(&o);

	strvec_clear(&cmd);
	strvec_push(&cmd, "/bin/busybox");
	strvec_push(&cmd, "id");
	strvec_push(&cmd, "-u");
	cr_assert_eq(engine_exec(e, id, &cmd, "1234", false, on_output, &o, &code, &err), 0,
		     "%s", err.msg);
	cr_assert_eq(code, 0);
	cr_assert_str_eq(o.s[ENGINE_STDOUT].buf, "1234\n");
	output_release(&o);

	cr_assert_eq(engine_container_kill(e, id, "SIGKILL", &err), 0, "%s", err.msg);
	strvec_clear(&cmd);
	free(id);
	engine_close(e);
}

struct events_seen {
	const char *id;
	struct strbuf actions;
};

static int on_event(const struct engine_event *ev, void *ud)
{
	struct events_seen *s = ud;

	if (!ev->id || strcmp(ev->id, s->id) || !ev->action)
		return 0;
	strbuf_addf(&s->actions, "%s,", ev->action);
	return !strcmp(ev->action, "die");
}

Test(engine_run, events_stream_sees_create_start_die)
{
	struct engine *e = et_engine();
	char filters[256];
	struct events_seen seen = { NULL, STRBUF_INIT };
	struct engine_loop *l = NULL;
	struct engine_stream *s = NULL;
	struct error err;
	long long since = (long long)time(NULL) - 1;
	char *id;

	snprintf(filters, sizeof(filters), "{\"type\":[\"container\"],\"label\":[\"%s\"]}",
		 et_label());
	cr_assert_eq(engine_loop_new(&l, &err), 0);
	id = et_create(e, "echo hi");
	seen.id = id;
	/* since= replays what happened before the subscription took hold. */
	cr_assert_eq(engine_events_stream(e, filters, since, 0, on_event, &seen, &s, &err), 0);
	cr_assert_eq(engine_loop_add(l, s, &err), 0, "%s", err.msg);
	cr_assert_eq(engine_container_start(e, id, &err), 0, "%s", err.msg);
	run_until_done(l, &s, 1, 20000);
	/* The callback stopped it once "die" came. */
	cr_assert_eq(engine_stream_result(s, &err), -1);
	cr_assert_eq(err.kind, ERR_CANCELLED);
	cr_assert_str_eq(seen.actions.buf, "create,start,die,");
	engine_stream_free(s);
	engine_loop_free(l);
	strbuf_release(&seen.actions);
	free(id);
	engine_close(e);
}

Test(engine_run, archive_stat_follows_a_symlink_and_reads_files)
{
	struct engine *e = et_engine();
	char *id = et_create(e, "true");
	struct engine_path_stat st, st2;
	struct strbuf f = STRBUF_INIT;
	struct error err;
	const char *target;

	/* Never started: the archive endpoint reads the image's files. */
	cr_assert_eq(engine_container_path_stat(e, id, "/bin/sh", &st, &err), 0, "%s", err.msg);
	target = st.link_target;
	cr_assert(target, "/bin/sh is a symlink");
	cr_assert(strstr(target, "busybox"), "%s", target);
	cr_assert_eq(engine_container_path_stat(e, id, target, &st2, &err), 0, "%s", err.msg);
	cr_assert_gt(st2.size, 100000);
	cr_assert(st2.has_mode);
	cr_assert_eq(engine_container_read_file(e, id, target, 16u << 20, &f, &err), 0, "%s",
		     err.msg);
	cr_assert_eq((long long)f.len, st2.size);
	cr_assert(f.len > 4 && !memcmp(f.buf, "\x7f" "ELF", 4));
	strbuf_release(&f);

	cr_assert_eq(engine_container_read_file(e, id, target, 1000, &f, &err), -1);
	cr_assert_eq(err.kind, ERR_LIMIT);
	cr_assert_eq(f.len, 0);
	cr_assert_eq(engine_container_read_file(e, id, "/bin/sh", 16u << 20, &f, &err), -1);
	cr_assert_eq(err.kind, ERR_DATA);
	cr_assert(strstr(err.msg, "symbolic link"), "%s", err.msg);
	cr_assert_eq(engine_container_read_file(e, id, "/bin", 16u << 20, &f, &err), -1);
	cr_assert(strstr(err.msg, "directory"), "%s", err.msg);
	engine_path_stat_release(&st2);
	cr_assert_eq(engine_container_path_stat(e, id, "/no/such/file", &st2, &err), -1);
	cr_assert_null(st2.name);
	cr_assert_eq(err.kind, ERR_NOT_FOUND);
	cr_assert_eq(engine_container_read_file(e, id, "/no/such/file", 100, &f, &err), -1);
	cr_assert_eq(err.kind, ERR_NOT_FOUND);
	engine_path_stat_release(&st);
	free(id);
	engine_close(e);
}

struct tar_count {
	size_t bytes;
};

static int on_tar(const char *data, size_t len, void *ud)
{
	struct tar_count *c = ud;

	(void)data;
	c->bytes += len;
	return 0;
}

Test(engine_run, read_a_file_a_container_wrote)
{
	struct engine *e = et_engine();
	char *id = et_create(e, "echo hello-archive > /hello.txt");
	struct strbuf f = STRBUF_INIT;
	struct tar_count c = { 0 };
	struct error err;
	long code = -1;

	cr_assert_eq(engine_container_start(e, id, &err), 0, "%s", err.msg);
	cr_assert_eq(engine_container_wait(e, id, "not-running", &code, &err), 0, "%s", err.msg);
	cr_assert_eq(code, 0);
	cr_assert_eq(engine_container_read_file(e, id, "/hello.txt", 4096, &f, &err), 0, "%s",
		     err.msg);
	cr_assert_str_eq(f.buf, "hello-archive\n");
	cr_assert_eq(engine_container_get_archive(e, id, "/hello.txt", on_tar, &c, &err), 0, "%s",
		     err.msg);
	cr_assert_geq(c.bytes, 1024u, "a tar of one small file is at least two blocks");
	cr_assert_eq(c.bytes % 512, 0);
	strbuf_release(&f);
	free(id);
	engine_close(e);
}

/* dockerd takes the profile inline and enforces it; a running container's
 * wait with a deadline ends at the deadline and leaves the engine usable. */
Test(engine_run, an_inline_seccomp_profile_is_enforced_and_a_wait_has_a_deadline)
{
	struct engine *e = et_engine();
	struct container_spec s;
	struct engine_call_opts opts = { .deadline = 0, .interrupt_fd = -1 };
	struct timespec now;
	struct error err;
	char *id = NULL;
	long code = -1;

	et_spec(&s, "/bin/busybox mkdir /made && echo made");
	s.seccomp_profile = strdup("{\"defaultAction\":\"SCMP_ACT_ALLOW\",\"syscalls\":"
				   "[{\"names\":[\"mkdir\",\"mkdirat\"],\"action\":\"SCMP_ACT_ERRNO\"}]}");
	cr_assert_eq(engine_container_create(e, NULL, &s, &id, &err), 0, "%s", err.msg);
	cr_assert_eq(engine_container_start(e, id, &err), 0, "%s", err.msg);
	cr_assert_eq(engine_container_wait(e, id, "not-running", &code, &err), 0, "%s", err.msg);
	cr_assert_neq(code, 0, "mkdir is denied by the profile");
	cr_assert_eq(engine_container_remove(e, id, true, &err), 0, "%s", err.msg);
	free(id);
	container_spec_release(&s);

	id = et_create(e, "/bin/busybox mkdir /made && exec /bin/busybox sleep 60");
	cr_assert_eq(engine_container_start(e, id, &err), 0, "%s", err.msg);
	clock_gettime(CLOCK_MONOTONIC, &now);
	opts.deadline = (double)now.tv_sec + (double)now.tv_nsec / 1e9 + 0.5;
	cr_assert_eq(engine_container_wait_opts(e, id, "not-running", &opts, &code, &err), -1);
	cr_assert_eq(err.kind, ERR_TIMEOUT, "%s", err.msg);
	cr_assert_eq(engine_container_kill(e, id, "SIGKILL", &err), 0, "%s", err.msg);
	cr_assert_eq(engine_container_wait(e, id, "not-running", &code, &err), 0, "%s", err.msg);
	cr_assert_eq(code, 137);
	cr_assert_eq(engine_container_remove(e, id, true, &err), 0, "%s", err.msg);
	free(id);
	engine_close(e);
}

/* The callers' event loop: a runner (docker/xfer.h) whose streams (wait,
 * attach, logs, events) run side by side, so one thread can follow output,
 * wait for an exit and watch a signal self-pipe at once. */
#include "docker/xfer.h"
#include "common/clock.h"

#include <stdlib.h>

#include "common/xalloc.h"

struct engine_loop {
	struct engine_runner runner;
};

int engine_loop_new(struct engine_loop **out, struct error *err)
{
	struct engine_loop *l = xcalloc(1, sizeof(*l));

	if (engine_runner_init(&l->runner, err) < 0) {
		free(l);
		return -1;
	}
	*out = l;
	return 0;
}

void engine_loop_free(struct engine_loop *l)
{
	if (!l)
		return;
	engine_runner_release(&l->runner);
	free(l);
}

int engine_loop_poll(struct engine_loop *l, int timeout_ms, int extra_fd,
		     struct error *err)
{
	return engine_runner_step(&l->runner, timeout_ms, extra_fd, err);
}

/* The engine answers a wait's (or attach's) headers only once the waiter
 * is registered: after this, a start cannot outrun it. */
static int loop_await_headers(struct engine_loop *l, struct engine_stream *s,
			      const struct engine_call_opts *opts, struct error *err)
{
	double deadline = monotonic_now() + (double)ENGINE_CONNECT_TIMEOUT_S;
	int fd = opts ? opts->interrupt_fd : -1;

	if (opts && opts->deadline > 0 && opts->deadline < deadline)
		deadline = opts->deadline;
	while (!s->headers_done && !s->done) {
		double left = deadline - monotonic_now();

		if (engine_fd_readable(fd))
			return error_set(err, ERR_INTERRUPTED, 0, "%s: interrupted", s->what);
		if (left <= 0)
			return error_set(err, ERR_TIMEOUT, 0,
					 "the Docker engine at %s did not answer %s in time",
					 s->host, s->what);
		if (engine_loop_poll(l, left < 0.1 ? (int)(left * 1000) + 1 : 100, fd, err) < 0)
			return -1;
	}
	if (s->done && s->rc < 0) {
		*err = s->err;
		return -1;
	}
	return 0;
}

int engine_loop_add_opts(struct engine_loop *l, struct engine_stream *s,
			 const struct engine_call_opts *opts, struct error *err)
{
	if (engine_runner_attach(&l->runner, s, err) < 0)
		return -1;
	return s->await_headers ? loop_await_headers(l, s, opts, err) : 0;
}

int engine_loop_add(struct engine_loop *l, struct engine_stream *s, struct error *err)
{
	return engine_loop_add_opts(l, s, NULL, err);
}

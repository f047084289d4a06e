/* The callers' event loop: a runner (docker/xfer.h) whose streams (wait,
 * attach, logs, events) run side by side, so one thread can follow output,
 * wait for an exit and watch a signal self-pipe at once. */
#include "docker/xfer.h"

#include <stdlib.h>
#include <time.h>

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

static long long loop_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int engine_loop_add(struct engine_loop *l, struct engine_stream *s, struct error *err)
{
	long long deadline;

	if (engine_runner_attach(&l->runner, s, err) < 0)
		return -1;
	if (!s->await_headers)
		return 0;
	/* The engine answers a wait's headers only once the waiter is
	 * registered: after this, a start cannot outrun it. */
	deadline = loop_now_ms() + ENGINE_CONNECT_TIMEOUT_S * 1000;
	while (!s->headers_done && !s->done) {
		long long left = deadline - loop_now_ms();

		if (left <= 0)
			return error_set(err, ERR_TIMEOUT, 0,
					 "the Docker engine at %s did not answer %s within %ld s",
					 s->host, s->what, ENGINE_CONNECT_TIMEOUT_S);
		if (engine_loop_poll(l, left < 100 ? (int)left : 100, -1, err) < 0)
			return -1;
	}
	if (s->done && s->rc < 0) {
		*err = s->err;
		return -1;
	}
	return 0;
}

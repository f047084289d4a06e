#include "orchestrator/sweep/sweep_ahead_pull.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/fsutil.h"
#include "common/signals.h"
#include "common/xalloc.h"
#include "orchestrator/sweep/sweep_pin.h"

/* The child's one answer, written whole in one write (below PIPE_BUF):
 * the same program on both ends of the pipe, so no text to parse. */
struct ahead_answer {
	int ok;                /* the pin is on the engine */
	int pulled;            /* this pull brought it */
	char id[160];
	char msg[ERROR_MSG_MAX];
};

void sweep_puller_init(struct sweep_puller *p, const struct sweep_puller_ctx *ctx)
{
	memset(p, 0, sizeof(*p));
	p->ctx = *ctx;
	p->fd = -1;
	sweep_ahead_init(&p->plan, ctx->meta->n_images);
	p->set_up = xcalloc(ctx->meta->n_images + 1, sizeof(bool));
	strbuf_init(&p->answer, 0);
}

/* In the child: its own engine connection, no events (the parent says
 * "pulling … ahead"; a second progress bar would fight the status line). */
static int child_main(const struct sweep_puller_ctx *c, size_t i, int out)
{
	struct image_setup quiet = *c->setup;
	struct ahead_answer a;
	struct engine *e = NULL;
	struct error err = { 0 };
	cleanup_free char *id = NULL;
	bool pulled = false;

	memset(&a, 0, sizeof(a));
	quiet.events = NULL;
	quiet.verbosity = -1;
	if (engine_open(&e, NULL, &err) == 0 &&
	    sweep_image_pull(e, &quiet, &c->meta->images[i], &id, &pulled, &err) == 0) {
		a.ok = 1;
		a.pulled = pulled;
		snprintf(a.id, sizeof(a.id), "%s", id ? id : "");
	} else {
		snprintf(a.msg, sizeof(a.msg), "%s", err.msg);
	}
	if (e)
		engine_close(e);
	return fs_write_all(out, (const char *)&a, sizeof(a)) < 0 ? 1 : 0;
}

static void start(struct sweep_puller *p, size_t i)
{
	int fds[2];
	pid_t pid;

	/* Whatever stops the pull ahead leaves it to the image's set-up. */
	sweep_ahead_started(&p->plan, i);
	if (pipe2(fds, O_CLOEXEC) < 0) {
		sweep_ahead_ended(&p->plan, i);
		return;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		sweep_ahead_ended(&p->plan, i);
		return;
	}
	if (pid == 0) {
		/* As a worker (sweep_worker.c): nothing of the parent's but the
		 * pipe, its own process group (the terminal's Ctrl-C is the
		 * parent's to pass on), dead with the parent; a signal ends it. */
		signals_forget();
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		if (fds[1] != 3 && dup2(fds[1], 3) < 0)
			_exit(1);
		close_range(4, ~0U, 0);
		setpgid(0, 0);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() == 1)
			_exit(0);
		_exit(child_main(&p->ctx, i, 3));
	}
	close(fds[1]);
	p->pid = pid;
	p->fd = fds[0];
	p->image = i;
	strbuf_reset(&p->answer);
	events_info(p->ctx.ev, 0, "pulling %s ahead", p->ctx.meta->images[i].ref);
}

/* A pull killed may have finished first: an image that was not on the
 * engine when it started (sweep_budget_ahead) and is now is the tool's,
 * so the budget may remove it later. */
static void after_cancel(struct sweep_puller *p, size_t i)
{
	const char *name = sweep_pin_name(&p->ctx.meta->images[i]);
	struct engine_image_info info = { 0 };

	if (name && p->ctx.engine &&
	    engine_image_inspect(p->ctx.engine, name, &info, ERROR_DISCARD) == 0 && info.id)
		sweep_budget_after_pull(p->ctx.budget, i, info.id, true);
	engine_image_info_release(&info);
}

/* The child's end: reaped (killed first when cancel), and what it
 * answered told. */
static void finish(struct sweep_puller *p, bool cancel)
{
	size_t i = p->image;
	struct ahead_answer a;
	bool whole = !cancel && p->answer.len == sizeof(a);
	int status;

	if (cancel)
		kill(p->pid, SIGKILL);
	close(p->fd);
	while (waitpid(p->pid, &status, 0) < 0 && errno == EINTR)
		;
	p->pid = 0;
	p->fd = -1;
	sweep_ahead_ended(&p->plan, i);
	if (cancel) {
		after_cancel(p, i);
		return;
	}
	if (whole)
		memcpy(&a, p->answer.buf, sizeof(a));
	if (!whole || !a.ok || !a.id[0]) {
		events_info(p->ctx.ev, 0, "pulling %s ahead: %s; pulled again as its first case comes",
			    p->ctx.meta->images[i].ref,
			    whole && a.msg[0] ? a.msg : "the pull ended without an answer");
		return;
	}
	p->ctx.imgs[i].pulled_ahead = true;
	/* Whether it pulled travels with it: the set-up finds the image
	 * here and says it did not pull it (sweep_budget.h). */
	sweep_budget_after_pull(p->ctx.budget, i, a.id, a.pulled);
}

static enum ahead_room ask_budget(void *ctx, size_t i)
{
	const struct sweep_puller *p = ctx;

	/* A pin by ID has no digest to pull: it is here, or its set-up says
	 * it is gone. */
	if (!p->ctx.meta->images[i].digest)
		return AHEAD_ROOM_HERE;
	return sweep_budget_ahead(p->ctx.budget, i);
}

void sweep_puller_tick(struct sweep_puller *p, bool stopping)
{
	struct sweep_ahead_view v = { .left = p->ctx.budget->left, .set_up = p->set_up,
				      .stopping = stopping, .room = ask_budget,
				      .room_ctx = p };
	size_t i = 0;

	/* --pull never: every image is on the engine already. */
	if (!p->ctx.setup || p->ctx.setup->pull == PULL_NEVER)
		return;
	for (size_t k = 0; k < p->ctx.meta->n_images; k++)
		p->set_up[k] = p->ctx.imgs[k].prepared;
	switch (sweep_ahead_next(&p->plan, &v, &i)) {
	case AHEAD_PULL:
		start(p, i);
		break;
	case AHEAD_CANCEL:
		finish(p, true);
		break;
	case AHEAD_IDLE:
		break;
	}
}

int sweep_puller_fd(const struct sweep_puller *p)
{
	return p->fd;
}

void sweep_puller_readable(struct sweep_puller *p)
{
	char buf[2048];
	ssize_t got;

	if (p->fd < 0)
		return;
	got = read(p->fd, buf, sizeof(buf));
	if (got > 0 && p->answer.len < sizeof(struct ahead_answer) + 1)
		strbuf_add(&p->answer, buf, (size_t)got);
	else if (got == 0 || (got < 0 && errno != EINTR && errno != EAGAIN))
		finish(p, false);
}

bool sweep_puller_pulling(const struct sweep_puller *p, size_t i)
{
	return p->pid && sweep_ahead_is_pulling(&p->plan, i);
}

void sweep_puller_release(struct sweep_puller *p)
{
	if (p->pid)
		finish(p, true);
	sweep_ahead_release(&p->plan);
	free(p->set_up);
	strbuf_release(&p->answer);
	memset(p, 0, sizeof(*p));
	p->fd = -1;
}

/* The pull ahead of a sweep's next image (sweep_ahead.h decides which and
 * when), in a child process, as the sweep's workers are: the parent polls
 * its pipe beside theirs. The child pulls the pin as the image's set-up
 * would (sweep_image_pull, on an engine connection of its own) and says
 * how it went; the parent tells the budget (sweep_budget_after_pull,
 * with whether the pull brought the image, so it counts as this tool's)
 * and marks the image pulled ahead. A pull ahead that fails changes
 * nothing else: what it left is removed, and the image is pulled again as
 * its first case comes, whose failure is then its cases' `error`. A pull
 * whose image has no case left, or of a sweep that stops, is killed and
 * reaped, never waited for. */
#ifndef HRR_SWEEP_SWEEP_AHEAD_PULL_H
#define HRR_SWEEP_SWEEP_AHEAD_PULL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "common/events.h"
#include "common/strbuf.h"
#include "docker/engine.h"
#include "orchestrator/replay/image_setup.h"
#include "orchestrator/sweep/sweep_ahead.h"
#include "orchestrator/sweep/sweep_budget.h"
#include "orchestrator/sweep/sweep_folder.h"
#include "orchestrator/sweep/sweep_image.h"

/* What the pulls need, the sweep's own (outlive the puller). */
struct sweep_puller_ctx {
	const struct sweep_meta *meta;
	struct sweep_image_env *imgs;      /* per image of meta */
	struct sweep_budget *budget;       /* its left[], its verdict, its record */
	const struct image_setup *setup;   /* --pull */
	struct engine *engine;             /* the parent's */
	const struct job_events *ev;
};

struct sweep_puller {
	struct sweep_puller_ctx ctx;
	struct sweep_ahead plan;
	bool *set_up;   /* per image, for plan's view */
	pid_t pid;      /* the child; 0 none */
	int fd;         /* its answer's pipe; -1 none */
	size_t image;   /* the image it pulls */
	struct strbuf answer;
};

void sweep_puller_init(struct sweep_puller *p, const struct sweep_puller_ctx *ctx);
/* Kill and reap a pull still running, then free. */
void sweep_puller_release(struct sweep_puller *p);
/* Start or stop a pull as the plan says now (once per turn of the loop). */
void sweep_puller_tick(struct sweep_puller *p, bool stopping);
/* The pipe to poll (-1 none) and its reader when it is readable. */
int sweep_puller_fd(const struct sweep_puller *p);
void sweep_puller_readable(struct sweep_puller *p);
/* Whether image i is being pulled ahead: its first case waits for it. */
bool sweep_puller_pulling(const struct sweep_puller *p, size_t i);

#endif

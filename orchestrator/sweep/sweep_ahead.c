#include "orchestrator/sweep/sweep_ahead.h"

#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"

void sweep_ahead_init(struct sweep_ahead *a, size_t n_images)
{
	memset(a, 0, sizeof(*a));
	a->n = n_images;
	a->done = xcalloc(n_images + 1, 1);
	a->pulling = a->refused = n_images;
}

void sweep_ahead_release(struct sweep_ahead *a)
{
	free(a->done);
	memset(a, 0, sizeof(*a));
}

static size_t cases_left(const struct sweep_ahead *a, const struct sweep_ahead_view *v)
{
	size_t sum = 0;

	for (size_t i = 0; i < a->n; i++)
		sum += v->left[i];
	return sum;
}

/* The image after the one running, when that one is set up; n: none. */
static size_t candidate(const struct sweep_ahead *a, const struct sweep_ahead_view *v)
{
	size_t running = 0, next;

	while (running < a->n && !v->left[running])
		running++;
	if (running == a->n || !v->set_up[running])
		return a->n;
	for (next = running + 1; next < a->n && !v->left[next]; next++)
		;
	if (next == a->n || v->set_up[next] || a->done[next])
		return a->n;
	return next;
}

enum ahead_move sweep_ahead_next(struct sweep_ahead *a, const struct sweep_ahead_view *v,
				 size_t *image)
{
	size_t i;

	if (a->pulling < a->n) {
		*image = a->pulling;
		return v->stopping || !v->left[a->pulling] ? AHEAD_CANCEL : AHEAD_IDLE;
	}
	if (v->stopping || (i = candidate(a, v)) == a->n)
		return AHEAD_IDLE;
	/* No room a moment ago: only a case's end can have made some. */
	if (a->refused == i && a->refused_left == cases_left(a, v))
		return AHEAD_IDLE;
	switch (v->room(v->room_ctx, i)) {
	case AHEAD_ROOM_HERE:
		a->done[i] = 1;
		return AHEAD_IDLE;
	case AHEAD_ROOM_NONE:
		a->refused = i;
		a->refused_left = cases_left(a, v);
		return AHEAD_IDLE;
	case AHEAD_ROOM_FITS:
		break;
	}
	*image = i;
	return AHEAD_PULL;
}

void sweep_ahead_started(struct sweep_ahead *a, size_t i)
{
	if (i < a->n) {
		a->pulling = i;
		a->done[i] = 1;
	}
}

void sweep_ahead_ended(struct sweep_ahead *a, size_t i)
{
	if (i < a->n)
		a->done[i] = 1;
	if (a->pulling == i)
		a->pulling = a->n;
}

bool sweep_ahead_is_pulling(const struct sweep_ahead *a, size_t i)
{
	return i < a->n && a->pulling == i;
}

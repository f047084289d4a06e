/* Which image a sweep pulls ahead (docs/sweep.md "Images: pinned, pulled
 * when their cases come"): while one image's cases run, the next one is
 * pulled in the background, so its cases need not wait the whole pull
 * with their GPUs idle. Pure: the caller asks what to do next, does it
 * (the pull in a child: sweep_ahead_pull.h) and says how it went.
 *
 * The image running is the first of the plan's order with cases left. As
 * soon as it is set up (its first case is about to start), the next image
 * with cases left is pulled ahead, not only once the running image's last
 * case has started: a ROCm image's pull takes minutes, often longer than
 * the running image's last cases, and the GPUs those free would sit idle
 * for what is left of it. Never more than one image ahead, so a sweep
 * needs at most two images at a time; and only when the budget's verdict
 * says it fits now (asked again whenever a case has ended since it said
 * no). An image already on the engine, or already tried ahead, is left to
 * the set-up as its first case comes. */
#ifndef HRR_SWEEP_SWEEP_AHEAD_H
#define HRR_SWEEP_SWEEP_AHEAD_H

#include <stdbool.h>
#include <stddef.h>

/* The budget's verdict on pulling an image ahead (sweep_budget_ahead). */
enum ahead_room {
	AHEAD_ROOM_HERE,  /* on the engine already: nothing to pull */
	AHEAD_ROOM_FITS,  /* it fits now, nothing the sweep still needs removed */
	AHEAD_ROOM_NONE,  /* it does not fit yet */
};

enum ahead_move {
	AHEAD_IDLE,   /* nothing to do now */
	AHEAD_PULL,   /* start pulling *image; then sweep_ahead_started */
	AHEAD_CANCEL, /* stop the pull of *image (no case of it is left, or the
		       * sweep stops); then sweep_ahead_ended */
};

struct sweep_ahead {
	size_t n;             /* images, in the plan's order */
	unsigned char *done;  /* per image: tried ahead, or found here */
	size_t pulling;       /* the image being pulled ahead; n: none */
	size_t refused;       /* the image the budget had no room for; n: none */
	size_t refused_left;  /* the cases left then, every image's */
};

/* What the sweep knows now; room asks the budget about image i (I/O on
 * the caller's side; a unit test's fake). */
struct sweep_ahead_view {
	const size_t *left;   /* per image: its cases not ended */
	const bool *set_up;   /* per image: set up (or failed) already */
	bool stopping;        /* the sweep starts nothing more */
	enum ahead_room (*room)(void *ctx, size_t i);
	void *room_ctx;
};

void sweep_ahead_init(struct sweep_ahead *a, size_t n_images);
void sweep_ahead_release(struct sweep_ahead *a);
/* The next move; *image is the image it is about. */
enum ahead_move sweep_ahead_next(struct sweep_ahead *a, const struct sweep_ahead_view *v,
				 size_t *image);
/* The pull of image i started; it ended (pulled, failed or cancelled):
 * image i is never pulled ahead again. */
void sweep_ahead_started(struct sweep_ahead *a, size_t i);
void sweep_ahead_ended(struct sweep_ahead *a, size_t i);
/* Whether image i's pull ahead is running: its set-up waits for it. */
bool sweep_ahead_is_pulling(const struct sweep_ahead *a, size_t i);

#endif

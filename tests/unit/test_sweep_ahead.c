#include <criterion/criterion.h>
#include <string.h>

#include "orchestrator/sweep/sweep_ahead.h"

/* A fake budget: its verdict per image, and the images it was asked about. */
struct fake_budget {
	enum ahead_room verdict[8];
	size_t asked[16];
	size_t n_asked;
};

static enum ahead_room fake_room(void *ctx, size_t i)
{
	struct fake_budget *b = ctx;

	b->asked[b->n_asked++] = i;
	return b->verdict[i];
}

struct world {
	struct sweep_ahead a;
	struct fake_budget budget;
	size_t left[8];
	bool set_up[8];
	struct sweep_ahead_view v;
};

static void world_init(struct world *w, size_t n, size_t cases_each)
{
	memset(w, 0, sizeof(*w));
	sweep_ahead_init(&w->a, n);
	for (size_t i = 0; i < n; i++) {
		w->left[i] = cases_each;
		w->budget.verdict[i] = AHEAD_ROOM_FITS;
	}
	w->v = (struct sweep_ahead_view){ .left = w->left, .set_up = w->set_up,
					  .room = fake_room, .room_ctx = &w->budget };
}

static enum ahead_move next(struct world *w, size_t *image)
{
	*image = 99;
	return sweep_ahead_next(&w->a, &w->v, image);
}

Test(sweep_ahead, nothing_before_the_running_image_is_set_up)
{
	struct world w;
	size_t i;

	world_init(&w, 3, 2);
	cr_expect_eq(next(&w, &i), AHEAD_IDLE, "the first image's own pull is its set-up's");
	cr_expect_eq(w.budget.n_asked, 0);
	sweep_ahead_release(&w.a);
}

Test(sweep_ahead, the_next_image_in_plan_order_once_the_running_one_is_set_up)
{
	struct world w;
	size_t i;

	world_init(&w, 3, 2);
	w.set_up[0] = true;
	cr_assert_eq(next(&w, &i), AHEAD_PULL);
	cr_expect_eq(i, 1);
	sweep_ahead_started(&w.a, 1);
	cr_expect(sweep_ahead_is_pulling(&w.a, 1));
	cr_expect_eq(next(&w, &i), AHEAD_IDLE, "one pull ahead at a time");
	sweep_ahead_ended(&w.a, 1);
	cr_expect_not(sweep_ahead_is_pulling(&w.a, 1));
	cr_expect_eq(next(&w, &i), AHEAD_IDLE, "never two images ahead of the running one");
	/* Image 0's cases end: image 1 runs, set up; image 2 comes next. */
	w.left[0] = 0;
	w.set_up[1] = true;
	cr_assert_eq(next(&w, &i), AHEAD_PULL);
	cr_expect_eq(i, 2);
	sweep_ahead_release(&w.a);
}

Test(sweep_ahead, images_without_cases_left_are_skipped)
{
	struct world w;
	size_t i;

	world_init(&w, 4, 1);
	w.set_up[0] = true;
	w.left[1] = 0; /* done already (an earlier run of a resumed sweep) */
	w.left[2] = 0;
	cr_assert_eq(next(&w, &i), AHEAD_PULL);
	cr_expect_eq(i, 3);
	sweep_ahead_release(&w.a);
}

Test(sweep_ahead, an_image_already_here_or_set_up_is_not_pulled)
{
	struct world w;
	size_t i;

	world_init(&w, 3, 1);
	w.set_up[0] = true;
	w.budget.verdict[1] = AHEAD_ROOM_HERE;
	cr_expect_eq(next(&w, &i), AHEAD_IDLE);
	cr_expect_eq(next(&w, &i), AHEAD_IDLE);
	cr_expect_eq(w.budget.n_asked, 1, "asked once: it is here");
	sweep_ahead_release(&w.a);

	world_init(&w, 3, 1);
	w.set_up[0] = w.set_up[1] = true; /* its first case came first */
	cr_expect_eq(next(&w, &i), AHEAD_IDLE);
	cr_expect_eq(w.budget.n_asked, 0);
	sweep_ahead_release(&w.a);
}

Test(sweep_ahead, no_room_is_asked_again_only_after_a_case_ended)
{
	struct world w;
	size_t i;

	world_init(&w, 2, 3);
	w.set_up[0] = true;
	w.budget.verdict[1] = AHEAD_ROOM_NONE;
	cr_expect_eq(next(&w, &i), AHEAD_IDLE);
	cr_expect_eq(next(&w, &i), AHEAD_IDLE);
	cr_expect_eq(w.budget.n_asked, 1, "not asked each turn of the loop");
	w.left[0] = 2; /* a case of the running image ended */
	w.budget.verdict[1] = AHEAD_ROOM_FITS;
	cr_assert_eq(next(&w, &i), AHEAD_PULL);
	cr_expect_eq(i, 1);
	cr_expect_eq(w.budget.n_asked, 2);
	sweep_ahead_release(&w.a);
}

Test(sweep_ahead, a_pull_whose_image_has_no_case_left_or_whose_sweep_stops_is_cancelled)
{
	struct world w;
	size_t i;

	world_init(&w, 3, 1);
	w.set_up[0] = true;
	cr_assert_eq(next(&w, &i), AHEAD_PULL);
	sweep_ahead_started(&w.a, 1);
	w.left[1] = 0; /* its cases ended without it (blocked, say) */
	cr_assert_eq(next(&w, &i), AHEAD_CANCEL);
	cr_expect_eq(i, 1);
	sweep_ahead_ended(&w.a, 1);
	sweep_ahead_release(&w.a);

	world_init(&w, 3, 1);
	w.set_up[0] = true;
	cr_assert_eq(next(&w, &i), AHEAD_PULL);
	sweep_ahead_started(&w.a, 1);
	w.v.stopping = true;
	cr_assert_eq(next(&w, &i), AHEAD_CANCEL);
	sweep_ahead_ended(&w.a, 1);
	cr_expect_eq(next(&w, &i), AHEAD_IDLE, "a stopping sweep starts no pull");
	cr_expect_eq(w.budget.n_asked, 1);
	sweep_ahead_release(&w.a);
}

Test(sweep_ahead, an_image_tried_ahead_is_left_to_its_set_up)
{
	struct world w;
	size_t i;

	world_init(&w, 2, 1);
	w.set_up[0] = true;
	cr_assert_eq(next(&w, &i), AHEAD_PULL);
	sweep_ahead_started(&w.a, 1);
	sweep_ahead_ended(&w.a, 1); /* it failed */
	cr_expect_eq(next(&w, &i), AHEAD_IDLE, "not tried again ahead");
	sweep_ahead_release(&w.a);
}

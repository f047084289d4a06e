#include <criterion/criterion.h>
#include <string.h>

#include "orchestrator/sweep/sweep_sched.h"
#include "orchestrator/sweep/sweep_status.h"

#define MAXG 16

struct running {
	size_t id;
	int gpus[MAXG];
	int n;
};

/* Drive the scheduler like the command layer: start all it allows, finish
 * the oldest running case, repeat; check no GPU is ever held twice. */
static void simulate(struct sweep_sched *s, const int *need, size_t n_cases, size_t *order,
		     size_t *n_order, size_t *blocked, size_t *n_blocked, size_t *max_running)
{
	struct running run[64];
	size_t n_run = 0;
	int held[64] = { 0 };

	*n_order = *n_blocked = *max_running = 0;
	for (;;) {
		size_t id;
		int g[MAXG];
		enum sweep_sched_verdict v = sweep_sched_next(s, &id, g);

		if (v == SCHED_BLOCKED) {
			blocked[(*n_blocked)++] = id;
			continue;
		}
		if (v == SCHED_START) {
			cr_assert_lt(id, n_cases);
			run[n_run].id = id;
			run[n_run].n = need[id];
			for (int k = 0; k < need[id]; k++) {
				cr_assert_eq(held[g[k]], 0, "GPU %d double booked", g[k]);
				held[g[k]] = 1;
				run[n_run].gpus[k] = g[k];
			}
			n_run++;
			order[(*n_order)++] = id;
			if (n_run > *max_running)
				*max_running = n_run;
			continue;
		}
		if (v == SCHED_IDLE && !n_run)
			break;
		cr_assert_gt(n_run, 0, "WAIT with nothing running would deadlock");
		for (int k = 0; k < run[0].n; k++)
			held[run[0].gpus[k]] = 0;
		sweep_sched_finish(s, run[0].gpus, (size_t)run[0].n, false);
		memmove(&run[0], &run[1], (n_run - 1) * sizeof(run[0]));
		n_run--;
	}
}

Test(sweep_sched, fills_every_gpu_lowest_first_and_never_double_books)
{
	struct sweep_sched s;
	int pool[] = { 3, 1, 0, 2, 1 };
	int need[8] = { 1, 1, 1, 1, 1, 1, 1, 1 };
	size_t order[8], blocked[8], n, nb, maxr, id;
	int g[4];

	sweep_sched_init(&s, pool, 5, 0, 0);
	cr_assert_eq(s.n_gpus, 4, "duplicates ignored");
	sweep_sched_add(&s, 0, 1);
	cr_assert_eq(sweep_sched_next(&s, &id, g), SCHED_START);
	cr_assert_eq(g[0], 0);
	sweep_sched_finish(&s, g, 1, false);
	for (size_t i = 1; i < 8; i++)
		sweep_sched_add(&s, i, 1);
	simulate(&s, need, 8, order, &n, blocked, &nb, &maxr);
	cr_assert_eq(n, 7);
	cr_assert_eq(nb, 0);
	cr_assert_eq(maxr, 4);
	sweep_sched_release(&s);
}

Test(sweep_sched, jobs_limit_caps_running_cases)
{
	struct sweep_sched s;
	int pool[] = { 0, 1, 2, 3 };
	int need[6] = { 1, 1, 1, 1, 1, 1 };
	size_t order[6], blocked[6], n, nb, maxr;

	sweep_sched_init(&s, pool, 4, 2, 0);
	for (size_t i = 0; i < 6; i++)
		sweep_sched_add(&s, i, 1);
	simulate(&s, need, 6, order, &n, blocked, &nb, &maxr);
	cr_assert_eq(n, 6);
	cr_assert_eq(maxr, 2);
	sweep_sched_release(&s);
}

/* Two GPUs, case 0 needing one and case 1 needing `second`, more after. */
static void two_gpus_two_cases(struct sweep_sched *s, int second)
{
	int pool[] = { 0, 1 };

	sweep_sched_init(s, pool, 2, 0, 0);
	sweep_sched_add(s, 0, 1);
	sweep_sched_add(s, 1, second);
}

Test(sweep_sched, too_big_for_the_pool_is_blocked_at_once)
{
	struct sweep_sched s;
	size_t id;
	int g[4];

	two_gpus_two_cases(&s, 4);
	cr_assert_eq(sweep_sched_next(&s, &id, g), SCHED_BLOCKED);
	cr_assert_eq(id, 1);
	cr_assert_eq(sweep_sched_next(&s, &id, g), SCHED_START);
	cr_assert_eq(id, 0);
	cr_assert_eq(sweep_sched_next(&s, &id, g), SCHED_IDLE);
	sweep_sched_release(&s);
}

Test(sweep_sched, multi_gpu_case_is_not_starved_by_single_gpu_ones)
{
	struct sweep_sched s;
	int pool[] = { 0, 1, 2, 3 };
	int need[40];
	size_t order[40], blocked[40], n, nb, maxr, pos = 0;

	sweep_sched_init(&s, pool, 4, 0, 2);
	for (size_t i = 0; i < 40; i++) {
		need[i] = i == 3 ? 4 : 1;
		sweep_sched_add(&s, i, need[i]);
	}
	simulate(&s, need, 40, order, &n, blocked, &nb, &maxr);
	cr_assert_eq(n, 40);
	while (order[pos] != 3)
		pos++;
	/* Overtaken at most `patience` (2) times, then it reserves. */
	cr_assert_leq(pos, 3 + 2, "the 4-GPU case started at position %zu", pos);
	sweep_sched_release(&s);
}

Test(sweep_sched, quarantine_shrinks_the_pool_and_can_block)
{
	struct sweep_sched s;
	size_t id;
	int g[4];

	two_gpus_two_cases(&s, 2);
	sweep_sched_add(&s, 2, 1);
	cr_assert_eq(sweep_sched_next(&s, &id, g), SCHED_START);
	cr_assert_eq(id, 0);
	sweep_sched_finish(&s, g, 1, true);
	cr_assert(sweep_sched_is_quarantined(&s, 0));
	cr_assert_eq(sweep_sched_usable(&s), 1);
	cr_assert_eq(sweep_sched_next(&s, &id, g), SCHED_BLOCKED);
	cr_assert_eq(id, 1);
	cr_assert_eq(sweep_sched_next(&s, &id, g), SCHED_START);
	cr_assert_eq(id, 2);
	cr_assert_eq(g[0], 1, "never the quarantined GPU");
	sweep_sched_release(&s);
}

Test(sweep_status, names_masks_and_exit_codes)
{
	size_t counts[ST__COUNT] = { 0 };
	sweep_status_mask m;
	const char *bad;
	size_t bad_len;

	cr_assert_str_eq(sweep_status_name(ST_STILL_FAILING), "still-failing");
	cr_assert_eq(sweep_status_parse("needs-confirm"), ST_NEEDS_CONFIRM);
	cr_assert_eq(sweep_status_parse("nope"), -1);
	cr_assert_eq(sweep_status_mask_parse("new,flaky", &m, &bad, &bad_len), 0);
	cr_assert_eq(m, SWEEP_STATUS_BIT(ST_NEW) | SWEEP_STATUS_BIT(ST_FLAKY));
	cr_assert_eq(sweep_status_mask_parse("new,flakey", &m, &bad, &bad_len), -1);
	cr_assert_eq(bad_len, 6);
	{
		sweep_status_mask u;

		cr_assert_eq(sweep_status_mask_parse("untriaged,new", &u, &bad, &bad_len), 0);
		cr_assert_eq(u, SWEEP_FAIL_UNTRIAGED | SWEEP_STATUS_BIT(ST_NEW));
		cr_assert_eq(sweep_status_mask_parse("untriage", &u, &bad, &bad_len), -1);
	}
	counts[ST_STILL_FAILING] = counts[ST_NEW] = counts[ST_FLAKY] = 1;
	cr_assert_eq(sweep_exit_code(counts, 0, 0, false, SWEEP_FAIL_DEFAULT), 0);
	cr_assert_eq(sweep_exit_code(counts, 0, 0, false, SWEEP_FAIL_DEFAULT | m), 1);
	cr_assert_eq(sweep_exit_code(counts, 0, 0, true, SWEEP_FAIL_DEFAULT), 5);
	/* Untriaged failures count only when asked, whatever their status. */
	cr_assert_eq(sweep_exit_code(counts, 2, 0, false, SWEEP_FAIL_DEFAULT), 0);
	cr_assert_eq(sweep_exit_code(counts, 2, 0, false, SWEEP_FAIL_DEFAULT | SWEEP_FAIL_UNTRIAGED), 1);
	cr_assert_eq(sweep_exit_code(counts, 0, 0, false, SWEEP_FAIL_DEFAULT | SWEEP_FAIL_UNTRIAGED), 0);
	counts[ST_ERROR] = 1;
	cr_assert_eq(sweep_exit_code(counts, 0, 0, false, SWEEP_FAIL_DEFAULT), 5);
	cr_assert_eq(sweep_exit_code(counts, 1, 0, false, SWEEP_FAIL_DEFAULT | SWEEP_FAIL_UNTRIAGED), 1,
		     "an untriaged failure is exit 1 before errors' 5");
	counts[ST_MISSING] = 1;
	cr_assert_eq(sweep_exit_code(counts, 0, 0, false, SWEEP_FAIL_DEFAULT), 1);
}

Test(sweep_sched, a_gpu_held_by_another_sweep_is_skipped_until_rechecked)
{
	struct sweep_sched s;
	size_t id;
	int g[4];

	two_gpus_two_cases(&s, 1);
	cr_assert_eq(sweep_sched_next(&s, &id, g), SCHED_START);
	cr_assert_eq(g[0], 0);
	sweep_sched_requeue(&s, id, 1, g, 1, 0); /* GPU 0's lease is someone else's */
	cr_assert(sweep_sched_has_external(&s));
	cr_assert_eq(sweep_sched_next(&s, &id, g), SCHED_START);
	cr_assert_eq(id, 0, "the bounced case stays first");
	cr_assert_eq(g[0], 1);
	cr_assert_eq(sweep_sched_next(&s, &id, g), SCHED_WAIT);
	sweep_sched_recheck(&s);
	cr_assert_eq(sweep_sched_next(&s, &id, g), SCHED_START);
	cr_assert_eq(id, 1);
	cr_assert_eq(g[0], 0);
	sweep_sched_release(&s);
}

/* The time the last of n cases ends when each runs dur[id] seconds on
 * need[id] GPUs, starting whatever the scheduler allows whenever one ends. */
static double makespan(struct sweep_sched *s, const double *dur, const int *need, size_t n,
		       size_t *first)
{
	double end[64], now = 0;
	int gpus[64][MAXG];
	size_t ids[64], n_run = 0, started = 0;

	for (;;) {
		size_t id;
		int g[MAXG];
		enum sweep_sched_verdict v = sweep_sched_next(s, &id, g);

		if (v == SCHED_START) {
			if (!started++)
				*first = id;
			cr_assert_lt(id, n);
			ids[n_run] = id;
			end[n_run] = now + dur[id];
			memcpy(gpus[n_run], g, sizeof(g));
			n_run++;
			continue;
		}
		cr_assert_neq(v, SCHED_BLOCKED);
		if (!n_run)
			break;
		size_t k = 0;

		for (size_t j = 1; j < n_run; j++)
			if (end[j] < end[k])
				k = j;
		now = end[k];
		sweep_sched_finish(s, gpus[k], (size_t)need[ids[k]], false);
		ids[k] = ids[n_run - 1];
		end[k] = end[n_run - 1];
		memcpy(gpus[k], gpus[n_run - 1], sizeof(gpus[k]));
		n_run--;
	}
	cr_assert_eq(started, n);
	return now;
}

Test(sweep_sched, the_longest_case_starts_first_and_the_night_ends_at_its_bound)
{
	struct sweep_sched s;
	int pool[] = { 0, 1, 2, 3 };
	double dur[14];
	int need[14];
	size_t first;

	/* 12 one-second cases, a two-GPU one of 2 s, then a 6 s one planned
	 * last: 22 GPU-seconds on 4 GPUs, bound max(5.5, 6) = 6. */
	for (size_t i = 0; i < 14; i++) {
		dur[i] = i == 13 ? 6 : i == 12 ? 2 : 1;
		need[i] = i == 12 ? 2 : 1;
	}
	sweep_sched_init(&s, pool, 4, 0, 0);
	for (size_t i = 0; i < 14; i++)
		sweep_sched_add(&s, i, need[i]); /* nothing known: plan order */
	double plan = makespan(&s, dur, need, 14, &first);

	cr_assert_eq(first, 0);
	cr_assert_geq(plan, 9, "plan order waits on the long one: %.1f", plan);
	sweep_sched_release(&s);
	sweep_sched_init(&s, pool, 4, 0, 0);
	for (size_t i = 0; i < 14; i++)
		sweep_sched_add_expected(&s, i, need[i], 0, dur[i]);
	double longest = makespan(&s, dur, need, 14, &first);

	cr_assert_eq(first, 13, "the 6 s case first, not %zu", first);
	cr_assert_leq(longest, 6.0 * 1.10, "longest first: %.1f", longest);
	sweep_sched_release(&s);
}

Test(sweep_sched, unknown_durations_go_first_in_the_order_added)
{
	struct sweep_sched s;
	int pool[] = { 0 };
	size_t id;
	int g[MAXG];
	/* Added in any order: unknown ones first (as added), then longest. */
	double e[6] = { 3, -1, 10, 3, -1, 0.5 };
	size_t want[6] = { 1, 4, 2, 0, 3, 5 };

	sweep_sched_init(&s, pool, 1, 0, 0);
	for (size_t i = 0; i < 6; i++)
		sweep_sched_add_expected(&s, i, 1, 0, e[i]);
	for (size_t k = 0; k < 6; k++) {
		cr_assert_eq(sweep_sched_next(&s, &id, g), SCHED_START);
		cr_assert_eq(id, want[k], "start %zu: case %zu", k, id);
		if (k == 2) {
			/* A GPU held by another run: back to the front. */
			sweep_sched_requeue(&s, id, 1, g, 1, -1);
			cr_assert_eq(sweep_sched_next(&s, &id, g), SCHED_START);
			cr_assert_eq(id, want[k]);
		}
		sweep_sched_finish(&s, g, 1, false);
	}
	cr_assert_eq(sweep_sched_next(&s, &id, g), SCHED_IDLE);
	sweep_sched_release(&s);
}

/* Image after image: every case of group 0 before group 1's, longest first
 * within a group, whatever the order added. */
Test(sweep_sched, cases_run_image_after_image_longest_first_inside_one)
{
	int pool[1] = { 0 };
	struct sweep_sched s;
	size_t id, want[] = { 1, 0, 3, 2 };
	int g[1];

	sweep_sched_init(&s, pool, 1, 0, 0);
	sweep_sched_add_grouped(&s, 2, 1, 0, 5.0, 1);
	sweep_sched_add_grouped(&s, 0, 1, 0, 2.0, 0);
	sweep_sched_add_grouped(&s, 3, 1, 0, 9.0, 1);
	sweep_sched_add_grouped(&s, 1, 1, 0, 30.0, 0);
	for (size_t k = 0; k < 4; k++) {
		cr_assert_eq(sweep_sched_next(&s, &id, g), SCHED_START);
		cr_assert_eq(id, want[k], "start %zu: case %zu, want %zu", k, id, want[k]);
		sweep_sched_finish(&s, g, 1, false);
	}
	cr_assert_eq(sweep_sched_next(&s, &id, g), SCHED_IDLE);
	sweep_sched_release(&s);
}

/* Backfill takes the next image's case when the current one's does not
 * fit, never a third image's; a bounced case goes back to the front of
 * its own image. */
Test(sweep_sched, backfill_keeps_at_most_two_images_in_use)
{
	int pool[3] = { 0, 1, 2 };
	struct sweep_sched s;
	size_t id;
	int g[3], g0, g3;

	sweep_sched_init(&s, pool, 3, 0, 100);
	s.max_groups = 2;
	sweep_sched_add_grouped(&s, 0, 1, 0, -1, 0);
	sweep_sched_add_grouped(&s, 1, 3, 0, -1, 0);
	sweep_sched_add_grouped(&s, 2, 1, 0, -1, 2);
	sweep_sched_add_grouped(&s, 3, 1, 0, -1, 1);
	cr_assert_eq(sweep_sched_next(&s, &id, g), SCHED_START);
	cr_assert_eq(id, 0);
	g0 = g[0];
	/* Case 1 needs every GPU: case 3 (image 1) may go first. */
	cr_assert_eq(sweep_sched_next(&s, &id, g), SCHED_START);
	cr_assert_eq(id, 3, "the next image's case backfills");
	sweep_sched_requeue(&s, id, 1, g, 1, -1);
	cr_assert_eq(s.pending[0].id, 1, "image 0's case stays in front");
	cr_assert_eq(s.pending[1].id, 3, "the bounced case leads image 1");
	cr_assert_eq(sweep_sched_next(&s, &id, g), SCHED_START);
	cr_assert_eq(id, 3);
	g3 = g[0];
	cr_assert_eq(sweep_sched_next(&s, &id, g), SCHED_WAIT,
		     "a GPU is free, but case 2's image would be a third in use");
	sweep_sched_finish(&s, &g3, 1, false);
	cr_assert_eq(sweep_sched_next(&s, &id, g), SCHED_START, "image 1 done: image 2 is next");
	cr_assert_eq(id, 2);
	g3 = g[0];
	sweep_sched_finish(&s, &g0, 1, false);
	sweep_sched_finish(&s, &g3, 1, false);
	cr_assert_eq(sweep_sched_next(&s, &id, g), SCHED_START);
	cr_assert_eq(id, 1);
	sweep_sched_release(&s);
}

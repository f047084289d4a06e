/* preflight/gpu_choice.c: a replay's GPUs, named or the lowest, checked
 * against the host once, with docs/preflight.md's exact messages. */
#include <criterion/criterion.h>
#include <string.h>

#include "preflight/gpu_choice.h"

static struct gpu_node nodes[4] = {
	{ .node = 1, .gpu_id = 111, .arch = "gfx942", .drm_render_minor = 128 },
	{ .node = 2, .gpu_id = 222, .arch = "gfx942", .drm_render_minor = 136 },
	{ .node = 3, .gpu_id = 333, .arch = "gfx942", .drm_render_minor = 144 },
	{ .node = 4, .gpu_id = 444, .arch = "gfx942", .drm_render_minor = 152 },
};

Test(gpu_choice, named_ordinals_are_kept_in_order)
{
	struct gpu_topology host = { .gpus = nodes, .n_gpus = 4 };
	struct gpu_choice c;

	cr_assert_eq(gpu_choice_named(&c, &host, (const int[]){ 3, 1 }, 2, NULL), 0);
	cr_assert_eq(c.n, 2);
	cr_assert_eq(c.gpus[0], 3, "device 0 inside is host GPU 3");
	cr_assert_eq(c.gpus[1], 1);
	cr_assert_str_empty(c.error);
}

Test(gpu_choice, a_named_ordinal_the_host_lacks_blocks_with_the_exact_message)
{
	struct gpu_topology host = { .gpus = nodes, .n_gpus = 2 };
	struct gpu_choice c;

	cr_assert_eq(gpu_choice_named(&c, &host, (const int[]){ 0, 5 }, 2, NULL), -1);
	cr_assert_str_eq(c.error, "requested replay GPU 5 but replay environment only has 2 GPU(s) (0..1)");
	cr_assert_eq(c.n, 0, "a blocked choice gives no GPU");
	cr_assert_eq(gpu_choice_named(&c, &host, (const int[]){ -1 }, 1, NULL), -1);
	cr_assert_str_eq(c.error, "requested replay GPU -1 but replay environment only has 2 GPU(s) (0..1)");
}

Test(gpu_choice, a_host_without_gpus_says_zero)
{
	struct gpu_topology host = { .gpus = nodes, .n_gpus = 0 };
	struct gpu_choice c;

	cr_assert_eq(gpu_choice_named(&c, &host, (const int[]){ 0 }, 1, NULL), -1);
	cr_assert_str_eq(c.error, "requested replay GPU 0 but replay environment only has 0 GPU(s)");
}

Test(gpu_choice, the_environment_is_named_when_it_gave_the_list)
{
	struct gpu_topology host = { .gpus = nodes, .n_gpus = 2 };
	struct gpu_choice c;

	cr_assert_eq(gpu_choice_named(&c, &host, (const int[]){ 0, 9 }, 2, "GPU"), -1);
	cr_assert_str_eq(c.error, "requested replay GPU 9 but replay environment only has 2 GPU(s) "
				  "(0..1) (GPU=0,9 from the environment)");
}

Test(gpu_choice, an_unknown_host_gets_nothing_and_no_verdict)
{
	struct gpu_choice c;

	cr_assert_eq(gpu_choice_named(&c, NULL, (const int[]){ 7 }, 1, NULL), 0);
	cr_assert_eq(c.n, 0);
	cr_assert_str_empty(c.error, "no guessing: the ordinal is not judged");
}

Test(gpu_choice, need_is_the_capture_count_within_the_host)
{
	struct gpu_topology host = { .gpus = nodes, .n_gpus = 2 };

	cr_assert_eq(gpu_choice_need(-1, &host), 1, "no metadata: one GPU");
	cr_assert_eq(gpu_choice_need(0, &host), 1);
	cr_assert_eq(gpu_choice_need(2, &host), 2);
	cr_assert_eq(gpu_choice_need(4, &host), 2, "never more than the host has (preflight blocks)");
	host.n_gpus = 0;
	cr_assert_eq(gpu_choice_need(1, &host), 0);
}

Test(gpu_choice, lowest_takes_ordinals_from_zero)
{
	struct gpu_choice c;

	strcpy(c.error, "stale");
	gpu_choice_lowest(&c, 3);
	cr_assert_eq(c.n, 3);
	cr_assert_eq(c.gpus[0], 0);
	cr_assert_eq(c.gpus[2], 2);
	cr_assert_str_empty(c.error, "a fresh choice carries no old error");
}

Test(gpu_choice, given_gpus_are_taken_as_they_are)
{
	struct gpu_choice c;

	strcpy(c.error, "stale");
	gpu_choice_given(&c, (const int[]){ 2, 0 }, 2);
	cr_assert_eq(c.n, 2);
	cr_assert_eq(c.gpus[0], 2);
	cr_assert_eq(c.gpus[1], 0);
	cr_assert_str_empty(c.error);
}

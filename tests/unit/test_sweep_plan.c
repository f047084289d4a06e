#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "orchestrator/sweep/sweep_plan.h"
#include "orchestrator/sweep/sweep_plan_json.h"
#include "tests/support/preflight_fixtures.h"
#include "tests/support/scratch.h"

static char *root;

static void setup(void)
{
	root = scratch_dir("sweep-plan");
}

static void teardown(void)
{
	scratch_remove(root);
	free(root);
}

static void pid(const char *rel)
{
	cleanup_free char *p = xasprintf("%s/%s", root, rel);

	pft_make_pid_dir(p);
}

TestSuite(sweep_plan, .init = setup, .fini = teardown);

Test(sweep_plan, case_name_is_relative_to_the_argument_with_its_last_component)
{
	cleanup_free char *a = sweep_case_name("/data/library", "/data/library/vllm/c.hrr/pid-138");
	cleanup_free char *b = sweep_case_name("/data/library/", "/data/library/x/pid-1");
	cleanup_free char *c = sweep_case_name("/data/c.hrr/pid-9", "/data/c.hrr/pid-9");

	cr_assert_str_eq(a, "library/vllm/c.hrr/pid-138");
	cr_assert_str_eq(b, "library/x/pid-1");
	cr_assert_str_eq(c, "pid-9");
}

Test(sweep_plan, matrix_expands_depth_three_sorted_every_image)
{
	struct sweep_plan p = { 0 };
	struct error err;
	cleanup_free char *lib = xasprintf("%s/library", root);
	const char *archives[] = { lib };
	const char *images[] = { "rocm:nightly", "rocm:release" };

	pid("library/b/c.hrr/pid-2");
	pid("library/a/c.hrr/pid-1");
	pid("library/a/c.hrr/pid-3");
	pid("library/too/deep/c.hrr/pid-4"); /* depth 4: not found */
	cleanup_free char *m = xasprintf("%s/library/b/c.hrr/pid-2/manifest.json", root);
	pft_writef(m, "{\"metadata\": {\"device_count\": 2}}");

	cr_assert_eq(sweep_plan_add_matrix(&p, archives, 1, images, 2, &err), 0, "%s", err.msg);
	cr_assert_eq(p.n, 6);
	cr_assert_str_eq(p.cases[0].name, "library/a/c.hrr/pid-1");
	cr_assert_str_eq(p.cases[0].image, "rocm:nightly");
	cr_assert_str_eq(p.cases[1].image, "rocm:release");
	cr_assert_str_eq(p.cases[4].name, "library/b/c.hrr/pid-2");
	cr_assert_eq(p.cases[4].gpu_count, 2, "device_count from the manifest");
	cr_assert_eq(p.cases[0].gpu_count, 1);
	/* The manifest read once per pid directory, carried to every image's case. */
	cr_assert_eq(p.n_captures, 3);
	cr_assert(p.cases[4].capture && p.cases[4].capture == p.cases[5].capture);
	cr_assert_eq(capture_manifest_devices(p.cases[4].capture), 2);
	cr_assert_eq(sweep_plan_check_duplicates(&p, &err), 0);
	sweep_plan_release(&p);
}

Test(sweep_plan, duplicates_are_refused_naming_both_paths)
{
	struct sweep_plan p = { 0 };
	struct error err;
	/* The same directory spelled twice: no parent tells them apart. */
	cleanup_free char *a1 = xasprintf("%s/x/lib", root);
	cleanup_free char *a2 = xasprintf("%s/x/./lib/", root);
	const char *archives[] = { a1, a2 };
	const char *images[] = { "img" };

	pid("x/lib/c.hrr/pid-7");
	cr_assert_eq(sweep_plan_add_matrix(&p, archives, 2, images, 1, &err), 0, "%s", err.msg);
	cr_assert_eq(sweep_plan_check_duplicates(&p, &err), -1);
	cr_assert_eq(err.kind, ERR_USAGE);
	cr_assert(strstr(err.msg, "lib/c.hrr/pid-7"), "%s", err.msg);
	cr_assert(strstr(err.msg, "--archive ") && strstr(err.msg, "/x/./lib/"), "%s", err.msg);
	sweep_plan_release(&p);
}

Test(sweep_plan, capture_roots_of_the_same_name_take_parents_until_distinct)
{
	struct sweep_plan p = { 0 };
	struct error err;
	cleanup_free char *a = xasprintf("%s/night/vllm/capture.hrr", root);
	cleanup_free char *b = xasprintf("%s/night/rccl/capture.hrr", root);
	cleanup_free char *c = xasprintf("%s/old/rccl/capture.hrr", root);
	cleanup_free char *u = xasprintf("%s/night/unique.hrr", root);
	const char *archives[] = { a, b, c, u };
	const char *images[] = { "img" };

	pid("night/vllm/capture.hrr/pid-138");
	pid("night/rccl/capture.hrr/pid-138");
	pid("night/rccl/capture.hrr/pid-9");
	pid("old/rccl/capture.hrr/pid-138");
	pid("night/unique.hrr/pid-138");
	cr_assert_eq(sweep_plan_add_matrix(&p, archives, 4, images, 1, &err), 0, "%s", err.msg);
	cr_assert_eq(p.n, 5);
	/* vllm differs from the rest at one parent; the two rccl roots need two. */
	cr_assert_str_eq(p.cases[0].name, "vllm/capture.hrr/pid-138");
	cr_assert_str_eq(p.cases[1].name, "night/rccl/capture.hrr/pid-138");
	cr_assert_str_eq(p.cases[2].name, "night/rccl/capture.hrr/pid-9");
	cr_assert_str_eq(p.cases[3].name, "old/rccl/capture.hrr/pid-138");
	cr_assert_str_eq(p.cases[4].name, "unique.hrr/pid-138", "a unique name keeps its form");
	cr_assert_eq(sweep_plan_check_duplicates(&p, &err), 0, "%s", err.msg);
	sweep_plan_release(&p);
}

Test(sweep_plan, case_names_rule_is_pure_over_the_arguments)
{
	const char *args[] = { "/a/capture.hrr", "/b/capture.hrr", "/c/x/pid-1", "/d/x/pid-1",
			       "/capture.hrr" };
	struct strvec dirs[5], names[5] = { 0 };

	for (size_t i = 0; i < 5; i++)
		strvec_init(&dirs[i]);
	strvec_push(&dirs[0], "/a/capture.hrr/pid-1");
	strvec_push(&dirs[1], "/b/capture.hrr/pid-1");
	strvec_push(&dirs[2], "/c/x/pid-1"); /* pid directories given directly */
	strvec_push(&dirs[3], "/d/x/pid-1");
	strvec_push(&dirs[4], "/capture.hrr/pid-1"); /* no parent to add */
	sweep_case_names(args, dirs, 5, names);
	cr_assert_str_eq(names[0].v[0], "a/capture.hrr/pid-1");
	cr_assert_str_eq(names[1].v[0], "b/capture.hrr/pid-1");
	cr_assert_str_eq(names[2].v[0], "c/x/pid-1");
	cr_assert_str_eq(names[3].v[0], "d/x/pid-1");
	cr_assert_str_eq(names[4].v[0], "capture.hrr/pid-1");
	cr_assert_eq(sweep_case_name_parents_max("/a/b/c/"), 2);
	cr_assert_eq(sweep_case_name_parents_max("/c"), 0);
	for (size_t i = 0; i < 5; i++) {
		strvec_clear(&dirs[i]);
		strvec_clear(&names[i]);
	}
}

Test(sweep_plan, plan_file_fields_relative_archives_and_name_override)
{
	struct sweep_plan p = { 0 };
	struct error err;
	cleanup_free char *plan = xasprintf("%s/plans/p.json", root);

	pid("plans/caps/pid-5");
	pft_writef(plan, "{\"cases\": [{\"archive\": \"caps/pid-5\", \"image\": \"i:1\","
			 " \"name\": \"mine\", \"gpu_count\": 3, \"timeout\": 60,"
			 " \"env\": {\"A\": \"b c\"}, \"mount_clr\": false}]}");
	cr_assert_eq(sweep_plan_add_file(&p, plan, &err), 0, "%s", err.msg);
	cr_assert_eq(p.n, 1);
	cr_assert_str_eq(p.cases[0].name, "mine");
	cr_assert_eq(p.cases[0].gpu_count, 3);
	cr_assert_eq(p.cases[0].timeout, 60);
	cr_assert_eq(p.cases[0].progress_timeout, -1);
	cr_assert_eq(p.cases[0].mount_clr, 0);
	cr_assert_str_eq(p.cases[0].env.v[0], "A=b c");
	cr_assert(strstr(p.cases[0].archive, "/plans/caps/pid-5"));
	sweep_plan_release(&p);
}

static void bad_plan(const char *text, const char *expect)
{
	struct sweep_plan p = { 0 };
	struct error err;

	pid("caps/pid-1");
	cr_assert_eq(sweep_plan_add_json(&p, text, "p.json", root, &err), -1, "%s", text);
	cr_assert_eq(err.kind, ERR_USAGE);
	cr_assert(strstr(err.msg, expect), "%s lacks %s", err.msg, expect);
	cr_assert(strstr(err.msg, "p.json"), "%s", err.msg);
	sweep_plan_release(&p);
}

Test(sweep_plan, bad_plans_are_usage_errors_naming_the_file)
{
	bad_plan("{\"cases\": [", "not JSON");
	bad_plan("[]", "cases");
	bad_plan("{\"cases\": [{\"image\": \"i\"}]}", "\"archive\" is required");
	bad_plan("{\"cases\": [{\"archive\": \"caps/pid-1\"}]}", "\"image\" is required");
	bad_plan("{\"cases\": [{\"archive\": \"nope\", \"image\": \"i\"}]}", "nope");
	bad_plan("{\"cases\": [{\"archive\": \"caps/pid-1\", \"image\": \"i\", \"gpu_count\": 0}]}",
		 "gpu_count");
	bad_plan("{\"cases\": [{\"archive\": \"caps/pid-1\", \"image\": \"i\", \"gpus\": 2}]}",
		 "unknown key \"gpus\"");
	bad_plan("{\"cases\": [{\"archive\": \"caps/pid-1\", \"image\": \"i\", \"env\": [1]}]}",
		 "env");
	/* The bound --timeout has (a year), not whatever an int holds. */
	bad_plan("{\"cases\": [{\"archive\": \"caps/pid-1\", \"image\": \"i\","
		 " \"timeout\": 2147483647}]}", "\"timeout\" must be a whole number from 0 to 31536000");
	bad_plan("{\"cases\": [{\"archive\": \"caps/pid-1\", \"image\": \"i\","
		 " \"progress_timeout\": 31536001}]}", "progress_timeout");
}

Test(sweep_plan, plan_json_round_trips)
{
	struct sweep_plan p = { 0 }, q = { 0 };
	struct error err;

	pid("caps/pid-1");
	cr_assert_eq(sweep_plan_add_json(&p,
					 "{\"cases\": [{\"archive\": \"caps/pid-1\", \"image\": \"i\","
					 " \"env\": {\"X\": \"1=2\"}, \"playback\": \"/p\"}]}",
					 "p.json", root, &err),
		     0, "%s", err.msg);
	cr_assert_lt(p.cases[0].expected_s, 0, "nothing expected of a plan file's case");
	p.cases[0].expected_s = 12.5; /* what the history said when it was planned */
	cleanup_cjson cJSON *j = sweep_plan_cases_json(&p, true);
	cr_assert_eq(sweep_plan_from_json(&q, j, &err), 0, "%s", err.msg);
	cr_assert_eq(q.n, 1);
	cr_assert_eq(q.cases[0].expected_s, 12.5);
	cr_assert_str_eq(q.cases[0].name, p.cases[0].name);
	cr_assert_str_eq(q.cases[0].archive, p.cases[0].archive);
	cr_assert_str_eq(q.cases[0].playback, "/p");
	cr_assert_str_eq(q.cases[0].env.v[0], "X=1=2");
	sweep_plan_release(&p);
	sweep_plan_release(&q);
}

Test(sweep_plan, sweep_id_and_labels)
{
	cleanup_free char *id = sweep_id_make("nightly-mi300", "gpu-07.lab", 1764489600, 0xabc123);

	cr_assert_str_eq(id, "nightly-mi300-20251130T080000Z-gpu-07.lab-abc123");
	cr_assert(sweep_label_valid("nightly_mi300.a"));
	cr_assert(!sweep_label_valid(""));
	cr_assert(!sweep_label_valid("../x"));
	cr_assert(!sweep_label_valid("-x"));
	cr_assert(!sweep_label_valid("a b"));
}

/* Two hosts never make one id, whatever their names: the host part is
 * the name whole, other bytes spelled out so that none merge. */
Test(sweep_plan, sweep_ids_of_two_hosts_differ)
{
	const char *hosts[] = { "a_b", "a b", "a_5f", "a-b", "A-b", "a.b", "",
				"x_2", "x\x02", "n1", "n1.cluster" };
	size_t n = sizeof(hosts) / sizeof(hosts[0]);
	char *ids[sizeof(hosts) / sizeof(hosts[0])];

	for (size_t i = 0; i < n; i++) {
		ids[i] = sweep_id_make("n", hosts[i], 1764489600, 0x1);
		cr_assert_eq(strspn(ids[i], "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
					    "0123456789._-"), strlen(ids[i]), "%s", ids[i]);
	}
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			cr_assert_str_neq(ids[i], ids[j], "%s and %s", hosts[i], hosts[j]);
	cr_assert_str_eq(ids[0], "n-20251130T080000Z-a_5fb-000001");
	cr_assert_str_eq(ids[6], "n-20251130T080000Z-unknown-000001");
	for (size_t i = 0; i < n; i++)
		free(ids[i]);
	/* The longest name a host has (64 bytes) is kept whole. */
	char longest[65];
	memset(longest, 'h', 64);
	longest[64] = '\0';
	cleanup_free char *whole = sweep_id_make("n", longest, 1764489600, 0x1);
	cr_assert(strstr(whole, longest), "%s", whole);
}

Test(sweep_plan, shards_take_index_mod_n_of_cases_without_result)
{
	struct sweep_plan p = { 0 };
	bool done[7] = { false, false, false, true, false, false, false };
	size_t out[7], n;
	unsigned i, k;
	struct error err;

	for (int c = 0; c < 7; c++) {
		struct sweep_case *sc = sweep_plan_push(&p);

		sc->gpu_count = c == 2 ? 2 : 1;
	}
	cr_assert_eq(sweep_shard_parse("1/3", &i, &k, &err), 0);
	cr_assert_eq(i, 1);
	cr_assert_eq(k, 3);
	cr_assert_eq(sweep_shard_parse("3/3", &i, &k, &err), -1);
	cr_assert_eq(sweep_shard_parse("1/0", &i, &k, &err), -1);
	cr_assert_eq(sweep_shard_parse("x", &i, &k, &err), -1);
	/* All cases one group: indexes 1 and 4 (7 is beyond); 3 is done. */
	n = sweep_shard_select(&p, done, 0, 0, 3, out);
	cr_assert_eq(n, 2);
	cr_assert_eq(out[0], 0);
	cr_assert_eq(out[1], 6);
	/* The 1-GPU group: cases 0 1 3 4 5 6 are group indexes 0..5; shard
	 * 0/2 -> 0 3(done) 5. */
	n = sweep_shard_select(&p, done, 1, 0, 2, out);
	cr_assert_eq(n, 2);
	cr_assert_eq(out[0], 0);
	cr_assert_eq(out[1], 5);
	sweep_plan_release(&p);
}

Test(sweep_plan, a_cluster_array_shards_its_fixed_list_of_cases)
{
	struct error err;
	size_t *list = NULL, n, out[8];
	bool done[10] = { false };
	struct sweep_plan p = { 0 };

	for (int c = 0; c < 10; c++)
		sweep_plan_push(&p); /* nothing expected: round robin by position */

	cr_assert_eq(sweep_shard_list_parse("7\n2\n5\n9\n3\n", 10, &list, &n, &err), 0, "%s",
		     err.msg);
	cr_assert_eq(n, 5);
	/* Task 1 of 2: positions 1 and 3 -> plan cases 2 and 9. */
	cr_assert_eq(sweep_shard_select_list(&p, list, n, done, 1, 2, out), 2);
	cr_assert(out[0] == 2 && out[1] == 9);
	/* Another task finished case 7 first: task 1's share is unchanged, and
	 * task 0 no longer runs 7. */
	done[7] = true;
	cr_assert_eq(sweep_shard_select_list(&p, list, n, done, 1, 2, out), 2);
	cr_assert(out[0] == 2 && out[1] == 9);
	cr_assert_eq(sweep_shard_select_list(&p, list, n, done, 0, 2, out), 2);
	cr_assert(out[0] == 5 && out[1] == 3);
	/* More tasks than cases: the last ones get none. */
	cr_assert_eq(sweep_shard_select_list(&p, list, n, NULL, 6, 8, out), 0);
	free(list);
	cr_assert_eq(sweep_shard_list_parse("1\n10\n", 10, &list, &n, &err), -1);
	cr_assert(strstr(err.msg, "'10' is no case"), "%s", err.msg);
	cr_assert_eq(sweep_shard_list_parse("1x\n", 10, &list, &n, &err), -1);
	cr_assert_eq(sweep_shard_list_parse("", 10, &list, &n, &err), 0);
	cr_assert_eq(n, 0);
	free(list);
	sweep_plan_release(&p);
}

Test(sweep_plan, shards_balance_by_expected_duration)
{
	/* One long case, then many short ones: i mod 2 would give shard 0
	 * 100 + 4 x 1 and shard 1 5 x 1. */
	double e[10] = { 100, 1, 1, 1, 1, 1, 1, 1, 1, 1 };
	unsigned to[10];
	double load[2] = { 0, 0 };

	sweep_shard_balance(e, 10, 2, to);
	for (int k = 0; k < 10; k++)
		load[to[k]] += e[k];
	cr_assert_eq(to[0], 0);
	cr_assert_eq(load[0], 100, "the long case alone");
	cr_assert_eq(load[1], 9);
	/* Unknown counts as the longest known, before it in the order. */
	double u[4] = { 2, -1, 5, 1 };

	sweep_shard_balance(u, 4, 2, to);
	cr_assert_eq(to[1], 0, "unknown first");
	cr_assert_eq(to[2], 1);
	cr_assert_eq(to[0], 0, "2 to the shard at 5 (unknown as 5) after 5");
	cr_assert_eq(to[3], 1);
	/* Nothing known: k mod n, today's split. */
	double none[5] = { -1, -1, -1, -1, -1 };

	sweep_shard_balance(none, 5, 3, to);
	for (int k = 0; k < 5; k++)
		cr_assert_eq(to[k], (unsigned)k % 3);
}

Test(sweep_plan, longest_first_puts_unknown_first_then_by_duration)
{
	struct sweep_plan p = { 0 };
	double e[6] = { 1, -1, 30, 2, -1, 30 };
	size_t idx[6] = { 0, 1, 2, 3, 4, 5 };

	for (int c = 0; c < 6; c++)
		sweep_plan_push(&p)->expected_s = e[c];
	cleanup_free size_t *o = sweep_plan_longest_first(&p, idx, 6);
	size_t want[6] = { 1, 4, 2, 5, 3, 0 };

	for (int k = 0; k < 6; k++)
		cr_assert_eq(o[k], want[k], "position %d: %zu", k, o[k]);
	sweep_plan_release(&p);
}

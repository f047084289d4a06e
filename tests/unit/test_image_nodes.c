/* A cluster sweep's images per node (orchestrator/sweep/sweep_image_nodes.h):
 * the runs of one node combined, the nodes into the whole, and each task's
 * file read back per node. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "common/cleanup.h"
#include "orchestrator/sweep/sweep_image_nodes.h"
#include "tests/support/scratch.h"

static void fates_on(struct sweep_image_fates *f, const char *host, long long peak)
{
	sweep_image_fates_init(f, 3);
	snprintf(f->host, sizeof(f->host), "%s", host);
	f->peak = peak;
}

/* Two tasks of one node: an image one removed and the other only found
 * stays removed; one pulled again after the other removed it is kept; the
 * earliest pull and the fuller task's peak are the node's. */
Test(sweep_image_nodes, the_tasks_of_one_node_combine_by_when_they_pulled_and_removed)
{
	struct sweep_image_fates node, t1, t2;

	fates_on(&t1, "n1", 800);
	t1.v[0] = (struct sweep_image_fate){ .pulled = 100, .removed = 200, .fate = IMAGE_FATE_REMOVED };
	t1.v[1] = (struct sweep_image_fate){ .pulled = 120, .removed = 150, .fate = IMAGE_FATE_REMOVED };
	fates_on(&t2, "n1", 900);
	t2.v[0] = (struct sweep_image_fate){ .fate = IMAGE_FATE_FITS };
	t2.v[1] = (struct sweep_image_fate){ .pulled = 300, .fate = IMAGE_FATE_FITS };
	t2.v[2] = (struct sweep_image_fate){ .fate = IMAGE_FATE_USERS };
	fates_on(&node, "n1", 0);
	sweep_image_fates_add_task(&node, &t1);
	sweep_image_fates_add_task(&node, &t2);
	cr_expect_eq(node.v[0].fate, IMAGE_FATE_REMOVED, "found, then removed by the other task");
	cr_expect_eq(node.v[0].removed, 200);
	cr_expect_eq(node.v[0].pulled, 100);
	cr_expect_eq(node.v[1].fate, IMAGE_FATE_FITS, "pulled again after its removal");
	cr_expect_eq(node.v[1].removed, 0);
	cr_expect_eq(node.v[1].pulled, 120, "the node's first pull");
	cr_expect_eq(node.v[2].fate, IMAGE_FATE_USERS);
	cr_expect_eq(node.peak, 900);
	/* The same two in the other order: the same node. */
	sweep_image_fates_release(&node);
	fates_on(&node, "n1", 0);
	sweep_image_fates_add_task(&node, &t2);
	sweep_image_fates_add_task(&node, &t1);
	cr_expect_eq(node.v[0].fate, IMAGE_FATE_REMOVED);
	cr_expect_eq(node.v[1].fate, IMAGE_FATE_FITS);
	cr_expect_eq(node.v[1].pulled, 120);
	sweep_image_fates_release(&node);
	sweep_image_fates_release(&t1);
	sweep_image_fates_release(&t2);
}

/* The whole: kept when a node kept it, else removed at the latest; the
 * fullest node's peak (each node holds the budget on its own). */
Test(sweep_image_nodes, the_nodes_combine_into_the_whole)
{
	struct sweep_image_fates all, a, b;

	fates_on(&a, "a", 700);
	a.v[0] = (struct sweep_image_fate){ .pulled = 50, .removed = 60, .fate = IMAGE_FATE_REMOVED };
	a.v[1] = (struct sweep_image_fate){ .pulled = 70, .removed = 400, .fate = IMAGE_FATE_REMOVED };
	fates_on(&b, "b", 650);
	b.v[0] = (struct sweep_image_fate){ .pulled = 40, .fate = IMAGE_FATE_FITS };
	b.v[1] = (struct sweep_image_fate){ .pulled = 90, .removed = 500, .fate = IMAGE_FATE_REMOVED };
	fates_on(&all, "", 0);
	sweep_image_fates_add_node(&all, &a);
	sweep_image_fates_add_node(&all, &b);
	cr_expect_eq(all.v[0].fate, IMAGE_FATE_FITS, "still on node b");
	cr_expect_eq(all.v[0].removed, 0);
	cr_expect_eq(all.v[0].pulled, 40);
	cr_expect_eq(all.v[1].fate, IMAGE_FATE_REMOVED);
	cr_expect_eq(all.v[1].removed, 500, "the last node's removal");
	cr_expect_eq(all.v[1].pulled, 70);
	cr_expect_eq(all.v[2].fate, IMAGE_FATE_UNKNOWN, "no node set it up");
	cr_expect_eq(all.peak, 700);
	sweep_image_fates_release(&all);
	sweep_image_fates_release(&a);
	sweep_image_fates_release(&b);
}

/* Files of three tasks on two hosts: two nodes, in host order. */
Test(sweep_image_nodes, files_group_by_host_in_host_order)
{
	struct sweep_image_fates files[3];
	struct sweep_image_nodes nodes;

	fates_on(&files[0], "n2", 10);
	fates_on(&files[1], "n1", 20);
	fates_on(&files[2], "n2", 30);
	files[0].v[0] = (struct sweep_image_fate){ .pulled = 5, .fate = IMAGE_FATE_FITS };
	sweep_image_nodes_of(files, 3, 3, &nodes);
	cr_assert_eq(nodes.n, 2);
	cr_expect_str_eq(nodes.v[0].host, "n1");
	cr_expect_eq(nodes.v[0].peak, 20);
	cr_expect_str_eq(nodes.v[1].host, "n2");
	cr_expect_eq(nodes.v[1].peak, 30);
	cr_expect_eq(nodes.v[1].v[0].pulled, 5);
	cr_expect_eq(nodes.v[0].v[0].fate, IMAGE_FATE_UNKNOWN);
	sweep_image_nodes_release(&nodes);
	for (int k = 0; k < 3; k++)
		sweep_image_fates_release(&files[k]);
}

/* Each cluster task writes its own file (the host in it); the merge reads
 * every one, a single host's images.json too, and counts the tasks'. */
Test(sweep_image_nodes, each_tasks_file_is_read_back_per_node)
{
	cleanup_free char *dir = scratch_dir("image-nodes");
	cleanup_free char *task0 = sweep_image_fates_path(dir, "41_0");
	cleanup_free char *task1 = sweep_image_fates_path(dir, "41_1");
	cleanup_free char *single = sweep_image_fates_path(dir, NULL);
	struct sweep_image_fates f;
	struct sweep_image_nodes nodes;
	struct error err;

	cr_expect(strstr(task0, "/images.41_0.json") != NULL, "%s", task0);
	fates_on(&f, "n1", 100);
	f.v[1] = (struct sweep_image_fate){ .pulled = 7, .removed = 8, .fate = IMAGE_FATE_REMOVED };
	cr_assert_eq(sweep_image_fates_write(task0, &f, &err), 0, "%s", err.msg);
	snprintf(f.host, sizeof(f.host), "n2");
	f.peak = 200;
	cr_assert_eq(sweep_image_fates_write(task1, &f, &err), 0, "%s", err.msg);
	cr_assert_eq(sweep_image_nodes_read(dir, 3, &nodes, &err), 0, "%s", err.msg);
	cr_expect_eq(nodes.tasks, 2);
	cr_assert_eq(nodes.n, 2);
	cr_expect_str_eq(nodes.v[0].host, "n1");
	cr_expect_eq(nodes.v[0].v[1].removed, 8);
	cr_expect_eq(nodes.v[1].peak, 200);
	sweep_image_nodes_release(&nodes);
	/* A single host's file, written as before: one node, no task. */
	cr_assert_eq(sweep_image_fates_write(single, &f, &err), 0, "%s", err.msg);
	cr_assert_eq(sweep_image_nodes_read(dir, 3, &nodes, &err), 0, "%s", err.msg);
	cr_expect_eq(nodes.tasks, 2);
	cr_expect_eq(nodes.n, 2, "n2's task and images.json combine");
	sweep_image_nodes_release(&nodes);
	sweep_image_fates_release(&f);
	scratch_remove(dir);
}

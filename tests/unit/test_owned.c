/* Ownership before trust: what another user
 * planted in a shared workdir is refused, never used. The other user is
 * tests/support/other_user's; every file is planted before the code under
 * test runs. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/fsutil.h"
#include "common/owned.h"
#include "common/xalloc.h"
#include "orchestrator/sweep/sweep_folder.h"
#include "orchestrator/sweep/case_result.h"
#include "tests/support/other_user.h"
#include "tests/support/scratch.h"

static char *root, *shared;

/* A team's workdir: anyone may write it, as docs/cli.md allows. */
static void setup(void)
{
	root = scratch_dir("owned");
	shared = xasprintf("%s/team", root);
	cr_assert_eq(chmod(root, 0755), 0);
	cr_assert_eq(mkdir(shared, 0777), 0);
	cr_assert_eq(chmod(shared, 0777), 0);
}

static void teardown(void)
{
	scratch_remove(root);
	free(root);
	free(shared);
}

TestSuite(owned, .init = setup, .fini = teardown);

Test(owned, a_sweeps_directory_another_user_made_is_refused)
{
	struct error err;
	char *folder = NULL;

	other_user_sh("mkdir -m 777 '%s/sweeps'", shared);
	cr_assert_lt(sweep_folder_create(shared, "nightly-x", &folder, &err), 0);
	cr_assert_eq(err.kind, ERR_DATA, "found during a run: exit 5");
	cr_assert(strstr(err.msg, "sweeps directory") && strstr(err.msg, "/team/sweeps") &&
		  strstr(err.msg, "belongs to uid"), "%s", err.msg);
	cr_assert(strstr(err.msg, "--workdir"), "says what to do: %s", err.msg);
	cr_assert_null(folder);
}

Test(owned, a_shared_sweeps_directory_is_used_when_sticky_and_root_s)
{
	struct error err;
	cleanup_free char *folder = NULL, *sweeps = xasprintf("%s/sweeps", shared);

	cr_assert_eq(mkdir(sweeps, 0755), 0);
	cr_assert_eq(chmod(sweeps, 01777), 0);
	cr_assert_eq(sweep_folder_create(shared, "nightly-x", &folder, &err), 0, "%s", err.msg);
	cr_assert_eq(sweep_folder_check(folder, &err), 0, "%s", err.msg);
	cr_assert_eq(chmod(sweeps, 0777), 0);
	cr_assert_lt(sweep_folder_check(folder, &err), 0, "not sticky: others may swap folders");
	cr_assert(strstr(err.msg, "not sticky"), "%s", err.msg);
}

Test(owned, a_planted_folder_is_neither_taken_over_nor_resumed)
{
	struct error err;
	char *folder = NULL;
	cleanup_free char *sweeps = xasprintf("%s/sweeps", shared);

	cr_assert_eq(mkdir(sweeps, 0755), 0);
	cr_assert_eq(chmod(sweeps, 01777), 0);
	other_user_sh("mkdir '%s/nightly-x' && echo '{}' > '%s/nightly-x/plan.json'", sweeps, sweeps);
	cr_assert_lt(sweep_folder_create(shared, "nightly-x", &folder, &err), 0,
		     "an existing folder of that name is not reused");
	cr_assert_lt(sweep_folder_find(shared, "nightly-x", &folder, &err), 0);
	cr_assert_eq(err.kind, ERR_DATA, "found under the workdir: exit 5");
	cr_assert(strstr(err.msg, "nightly-x") && strstr(err.msg, "belongs to uid"), "%s", err.msg);
	{
		cleanup_free char *given = xasprintf("%s/nightly-x", sweeps);

		cr_assert_lt(sweep_folder_find(NULL, given, &folder, &err), 0);
		cr_assert_eq(err.kind, ERR_USAGE, "a path given by option: exit 64");
	}
	cr_assert_null(folder);
}

Test(owned, a_results_file_swapped_for_a_symlink_is_not_appended_through)
{
	struct error err;
	cleanup_free char *sweeps = xasprintf("%s/sweeps", shared), *folder = NULL, *victim = NULL,
			  *results = NULL;
	cleanup_strbuf struct strbuf text = STRBUF_INIT;
	struct case_result r = { .case_name = "a", .image = "i", .archive = "/x", .state = RESULT_DONE,
				  .attempt = 1 };

	cr_assert_eq(mkdir(sweeps, 0700), 0);
	cr_assert_eq(sweep_folder_create(shared, "nightly-y", &folder, &err), 0, "%s", err.msg);
	victim = xasprintf("%s/root-only", root);
	cr_assert_eq(fs_write_atomic(victim, "secret\n", 7, 0600, &err), 0, "%s", err.msg);
	results = xasprintf("%s/%s", folder, SWEEP_RESULTS_FILE);
	cr_assert_eq(symlink(victim, results), 0);
	cr_assert_lt(case_result_append(results, &r, &err), 0);
	cr_assert(strstr(err.msg, "results.jsonl") && strstr(err.msg, "symlink"), "%s", err.msg);
	cr_assert_eq(fs_read_small_file(victim, 64, &text, &err), 0, "%s", err.msg);
	cr_assert_str_eq(text.buf, "secret\n", "the file behind the link is untouched");
}

Test(owned, a_fifo_is_opened_without_blocking_and_refused)
{
	struct error err;
	cleanup_free char *fifo = xasprintf("%s/f", root);
	int dfd = open(root, O_RDONLY | O_DIRECTORY);

	cr_assert_eq(mkfifo(fifo, 0600), 0);
	cr_assert_lt(owned_openat(dfd, root, "f", O_WRONLY | O_APPEND, 0, &err), 0);
	cr_assert(strstr(err.msg, "/f"), "names the file: %s", err.msg);
	cr_assert_lt(owned_openat(dfd, root, "f", O_RDONLY, 0, &err), 0, "a reader does not hang");
	cr_assert(strstr(err.msg, "not a regular file"), "%s", err.msg);
	close(dfd);
}

/* history prune's removal: a subdirectory swapped for a symlink is
 * removed as a link; the directory it names keeps its files. */
Test(owned, remove_tree_never_follows_a_symlink_or_enters_another_user_s_directory)
{
	struct error err;
	cleanup_free char *tree = xasprintf("%s/tree", root), *outside = xasprintf("%s/outside", root);
	cleanup_free char *kept = xasprintf("%s/keep", outside), *sub = xasprintf("%s/sub", tree);
	cleanup_free char *theirs = xasprintf("%s/theirs", tree);
	struct stat st;
	int dfd;

	cr_assert_eq(mkdir(tree, 0755), 0);
	cr_assert_eq(mkdir(outside, 0700), 0);
	cr_assert_eq(fs_write_atomic(kept, "x", 1, 0600, &err), 0, "%s", err.msg);
	cr_assert_eq(symlink(outside, sub), 0);
	cr_assert_eq(chmod(tree, 0777), 0);
	other_user_sh("mkdir '%s' && touch '%s/f'", theirs, theirs);
	cr_assert_eq(chmod(tree, 0755), 0);
	dfd = open(root, O_RDONLY | O_DIRECTORY);
	cr_assert_lt(owned_remove_tree(dfd, "tree", &err), 0, "another user's directory is left");
	cr_assert(strstr(err.msg, "theirs") || strstr(err.msg, "not a directory of yours"), "%s",
		  err.msg);
	cr_assert_eq(stat(kept, &st), 0, "the symlink's target keeps its files");
	cr_assert_neq(lstat(sub, &st), 0, "the symlink itself is gone");
	cr_assert_eq(chmod(tree, 0777), 0);
	other_user_sh("rm -r '%s'", theirs);
	cr_assert_eq(chmod(tree, 0755), 0);
	cr_assert_eq(owned_remove_tree(dfd, "tree", &err), 0, "%s", err.msg);
	cr_assert_neq(lstat(tree, &st), 0);
	close(dfd);
}

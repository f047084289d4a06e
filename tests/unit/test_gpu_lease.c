#include <criterion/criterion.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "orchestrator/lease/gpu_lease.h"
#include "tests/support/other_user.h"
#include "tests/support/preflight_fixtures.h"
#include "tests/support/scratch.h"

static char *root, *lockdir;

static void setup(void)
{
	root = scratch_dir("gpu-lease");
	lockdir = xasprintf("%s/locks", root);
	setenv("HRR_LOCK_DIR", lockdir, 1);
}

static void teardown(void)
{
	unsetenv("HRR_LOCK_DIR");
	scratch_remove(root);
	free(root);
	free(lockdir);
}

TestSuite(gpu_lease, .init = setup, .fini = teardown);

static struct gpu_lease_opts opts(const char *owner, double wait_s)
{
	struct gpu_lease_opts o = { .owner = owner, .wait_s = wait_s };

	return o;
}

Test(gpu_lease, directory_is_created_sticky_and_world_writable)
{
	struct gpu_lease l;
	struct error err;
	const char *names[] = { "gpu_id-1" };
	struct gpu_lease_opts o = opts("me", 0);
	struct stat st;

	cr_assert_str_eq(gpu_lease_dir(NULL), lockdir);
	cr_assert_eq(gpu_lease_acquire(&l, names, 1, &o, &err), 0, "%s", err.msg);
	cr_assert_eq(stat(lockdir, &st), 0);
	cr_assert_eq(st.st_mode & 07777, 01777);
	gpu_lease_release(&l);
}

Test(gpu_lease, second_taker_without_wait_gets_busy_naming_the_holder)
{
	struct gpu_lease a, b;
	struct error err;
	const char *names[] = { "gpu_id-7" };
	struct gpu_lease_opts oa = opts("host:1:2 run A", -1), ob = opts("other", 0);
	char holder[GPU_LEASE_OWNER_MAX];

	cr_assert_eq(gpu_lease_acquire(&a, names, 1, &oa, &err), 0, "%s", err.msg);
	cr_assert(gpu_lease_probe(NULL, "gpu_id-7", holder, sizeof(holder)));
	cr_assert_str_eq(holder, "host:1:2 run A");
	cr_assert_eq(gpu_lease_acquire(&b, names, 1, &ob, &err), -1);
	cr_assert_eq(err.kind, ERR_BUSY);
	cr_assert(strstr(err.msg, "gpu_id-7") && strstr(err.msg, "host:1:2 run A"), "%s", err.msg);
	cr_assert_eq(b.busy, 0);
	cr_assert_str_eq(b.busy_holder, "host:1:2 run A");
	gpu_lease_release(&a);
	cr_assert(!gpu_lease_probe(NULL, "gpu_id-7", NULL, 0));
	cr_assert_eq(gpu_lease_acquire(&b, names, 1, &ob, &err), 0, "%s", err.msg);
	gpu_lease_release(&b);
}

static int waits;
static int release_on_wait = -1; /* the holder's release pipe, or -1 */
static void count_wait(void *ctx, const char *gpu, const char *holder)
{
	(void)ctx;
	(void)holder;
	cr_assert_str_eq(gpu, "B");
	waits++;
	/* The wait has begun: now let the holder go (no timing involved). */
	if (release_on_wait >= 0)
		cr_assert_eq(write(release_on_wait, "x", 1), 1);
}

/* The child holds B until the parent writes to the pipe. */
static pid_t child_holding(const char *name, int *release_fd)
{
	int go[2], ready[2];
	char c;
	pid_t pid;

	cr_assert_eq(pipe(go), 0);
	cr_assert_eq(pipe(ready), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		struct gpu_lease l;
		struct error err;
		const char *names[] = { name };
		struct gpu_lease_opts o = opts("child", -1);

		close(go[1]);
		if (gpu_lease_acquire(&l, names, 1, &o, &err) < 0)
			_exit(2);
		if (write(ready[1], "r", 1) != 1)
			_exit(3);
		if (read(go[0], &c, 1) < 0)
			_exit(4);
		_exit(0); /* dying releases the flock */
	}
	close(go[0]);
	close(ready[1]);
	cr_assert_eq(read(ready[0], &c, 1), 1, "the child took its lease");
	close(ready[0]);
	*release_fd = go[1];
	return pid;
}

Test(gpu_lease, all_or_nothing_across_processes_and_a_wait_reported_once)
{
	int release_fd, status;
	pid_t pid = child_holding("B", &release_fd);
	struct gpu_lease l;
	struct error err;
	const char *names[] = { "A", "B" };
	struct gpu_lease_opts o = opts("parent", 0);

	cr_assert_eq(gpu_lease_acquire(&l, names, 2, &o, &err), -1);
	cr_assert_eq(err.kind, ERR_BUSY);
	cr_assert(strstr(err.msg, "child"), "%s", err.msg);
	/* The busy one and its holder as values: the second of the set. */
	cr_assert_eq(l.busy, 1);
	cr_assert(strstr(l.busy_holder, "child"), "%s", l.busy_holder);
	cr_assert(!gpu_lease_probe(NULL, "A", NULL, 0), "A was given back");

	/* An unbounded wait that ends when the holder lets go: reported once. */
	o.wait_s = -1;
	o.on_wait = count_wait;
	waits = 0;
	release_on_wait = release_fd;
	cr_assert_eq(gpu_lease_acquire(&l, names, 2, &o, &err), 0, "%s", err.msg);
	release_on_wait = -1;
	cr_assert_eq(waits, 1);
	cr_assert(gpu_lease_probe(NULL, "A", NULL, 0));
	cr_assert(gpu_lease_probe(NULL, "B", NULL, 0));
	gpu_lease_release(&l);
	waitpid(pid, &status, 0);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(release_fd);
}

Test(gpu_lease, bounded_wait_gives_up_with_busy)
{
	int release_fd, status;
	pid_t pid = child_holding("G", &release_fd);
	struct gpu_lease l;
	struct error err;
	const char *names[] = { "G" };
	struct gpu_lease_opts o = opts("parent", 0.3);

	cr_assert_eq(gpu_lease_acquire(&l, names, 1, &o, &err), -1);
	cr_assert_eq(err.kind, ERR_BUSY);
	cr_assert_eq(write(release_fd, "x", 1), 1);
	waitpid(pid, &status, 0);
	close(release_fd);
}

static bool container_holds_1(void *ctx, const char *gpu, char *holder, size_t len)
{
	(void)ctx;
	if (strcmp(gpu, "gpu_id-1"))
		return false;
	snprintf(holder, len, "container abc");
	return true;
}

Test(gpu_lease, a_running_labelled_container_counts_as_holder)
{
	struct gpu_lease l;
	struct error err;
	const char *names[] = { "gpu_id-0", "gpu_id-1" };
	struct gpu_lease_opts o = opts("me", 0);

	o.held = container_holds_1;
	cr_assert_eq(gpu_lease_acquire(&l, names, 2, &o, &err), -1);
	cr_assert_eq(err.kind, ERR_BUSY);
	cr_assert(strstr(err.msg, "container abc"), "%s", err.msg);
	cr_assert(!gpu_lease_probe(NULL, "gpu_id-0", NULL, 0));
	cr_assert_eq(gpu_lease_acquire(&l, names, 1, &o, &err), 0, "%s", err.msg);
	gpu_lease_release(&l);
}

Test(gpu_lease, existing_file_of_another_mode_is_opened_without_create)
{
	struct gpu_lease l;
	struct error err;
	const char *names[] = { "gpu_id-3" };
	struct gpu_lease_opts o = opts("me", 0);
	cleanup_free char *f = xasprintf("%s/gpu_id-3", lockdir);

	pft_writef(f, "stale label\n");
	chmod(f, 0444);
	cr_assert_eq(gpu_lease_acquire(&l, names, 1, &o, &err), 0, "%s", err.msg);
	gpu_lease_release(&l);
}

Test(gpu_lease, names_come_from_unique_id_else_gpu_id)
{
	char name[GPU_LEASE_NAME_MAX];
	cleanup_free char *props = xasprintf("%s/class/kfd/kfd/topology/nodes/1/properties", root);

	pft_writef(props, "gfx_target_version 90402\nunique_id 1234567890123\n");
	gpu_lease_name(root, 1, 53124, name, sizeof(name));
	cr_assert_str_eq(name, "unique_id-1234567890123");
	gpu_lease_name(root, 2, 1087, name, sizeof(name));
	cr_assert_str_eq(name, "gpu_id-1087");
}

/* A lock directory that is a symlink, or another user's,
 * or a FIFO under a lock's name, is refused with what to do; never a lock
 * file elsewhere, never a hang. */
Test(gpu_lease, a_symlink_at_the_lock_directory_is_refused_and_nothing_is_made_behind_it)
{
	struct gpu_lease l;
	struct error err;
	const char *names[] = { "gpu_id-1" };
	struct gpu_lease_opts o = opts("me", 0);
	cleanup_free char *elsewhere = xasprintf("%s/elsewhere", root);
	cleanup_free char *made = xasprintf("%s/gpu_id-1", elsewhere);
	struct stat st;

	cr_assert_eq(mkdir(elsewhere, 0700), 0);
	cr_assert_eq(symlink(elsewhere, lockdir), 0);
	cr_assert_eq(gpu_lease_acquire(&l, names, 1, &o, &err), -1);
	cr_assert_eq(err.kind, ERR_USAGE, "a path from HRR_LOCK_DIR: exit 64");
	cr_assert(strstr(err.msg, lockdir) && strstr(err.msg, "symlink"), "%s", err.msg);
	cr_assert_neq(stat(made, &st), 0, "no lock file behind the link");
}

Test(gpu_lease, a_lock_directory_another_user_made_is_refused_naming_the_fix)
{
	struct gpu_lease l;
	struct error err;
	const char *names[] = { "gpu_id-1" };
	struct gpu_lease_opts o = opts("me", 0);

	cr_assert_eq(chmod(root, 0777), 0);
	other_user_sh("mkdir '%s' && chmod 1777 '%s'", lockdir, lockdir);
	cr_assert_eq(gpu_lease_acquire(&l, names, 1, &o, &err), -1);
	cr_assert_eq(err.kind, ERR_USAGE);
	cr_assert(strstr(err.msg, lockdir) && strstr(err.msg, "belongs to uid"), "%s", err.msg);
	cr_assert(strstr(err.msg, "tmpfiles.d") && strstr(err.msg, "HRR_LOCK_DIR"), "%s", err.msg);
}

Test(gpu_lease, a_fifo_planted_as_a_lock_file_is_refused_at_once)
{
	struct gpu_lease l;
	struct error err;
	const char *names[] = { "gpu_id-1" };
	struct gpu_lease_opts o = opts("me", 2);
	cleanup_free char *fifo = xasprintf("%s/gpu_id-1", lockdir);

	cr_assert_eq(gpu_lease_dir_prepare(lockdir, &err), 0, "%s", err.msg);
	cr_assert_eq(chmod(root, 0755), 0);
	other_user_sh("mkfifo -m 666 '%s'", fifo);
	cr_assert_eq(gpu_lease_acquire(&l, names, 1, &o, &err), -1);
	cr_assert_neq(err.kind, ERR_BUSY, "not a wait: %s", err.msg);
	cr_assert(strstr(err.msg, fifo) && strstr(err.msg, "not a regular file"), "%s", err.msg);
}

Test(gpu_lease, the_holder_label_reaches_the_terminal_without_escape_sequences)
{
	struct gpu_lease a;
	struct error err;
	const char *names[] = { "gpu_id-3" };
	struct gpu_lease_opts oa = opts("\033]0;pwned\007\033[2Jrun B", -1);
	char holder[GPU_LEASE_OWNER_MAX];

	cr_assert_eq(gpu_lease_acquire(&a, names, 1, &oa, &err), 0, "%s", err.msg);
	cr_assert(gpu_lease_probe(NULL, "gpu_id-3", holder, sizeof(holder)));
	cr_assert_null(strchr(holder, '\033'), "%s", holder);
	cr_assert_null(strchr(holder, '\007'), "%s", holder);
	cr_assert(strstr(holder, "run B"), "%s", holder);
	gpu_lease_release(&a);
}

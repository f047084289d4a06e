/* orchestrator/containers/gc_policy: whose containers gc may remove. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "orchestrator/containers/gc_policy.h"
#include "orchestrator/containers/ours.h"
#include "common/xalloc.h"
#include "tests/support/run_support.h"

static const struct gc_caller me = { .host = "node1", .uid = 1000 };

static enum gc_decision decide(const char *host, uid_t uid, enum owner_state st, bool kept,
			       const struct gc_caller *c)
{
	const struct gc_owner o = { host, uid, st };

	return gc_decide(&o, kept, c);
}

Test(gc_policy, only_my_dead_runs_on_this_host_are_removed)
{
	cr_assert_eq(decide("node1", 1000, OWNER_DEAD, false, &me), GC_REMOVE);
	cr_assert_eq(decide("node2", 1000, OWNER_DEAD, false, &me), GC_KEEP_OTHER_HOST);
	cr_assert_eq(decide("node1", 1000, OWNER_ALIVE, false, &me), GC_KEEP_LIVE);
}

/* Issue item 3: an owner whose /proc entry cannot be read is not dead. */
Test(gc_policy, unknown_is_not_dead)
{
	cr_assert_eq(decide("node1", 1000, OWNER_UNKNOWN, false, &me), GC_KEEP_UNKNOWN);
}

/* Issue item 4: another user's containers, kept or not, are theirs. */
Test(gc_policy, another_users_containers_are_left_even_with_all)
{
	const struct gc_caller all = { .host = "node1", .uid = 1000, .all = true };
	const struct gc_caller not_root = { .host = "node1", .uid = 1000, .all = true,
					    .all_users = true };

	cr_assert_eq(decide("node1", 1001, OWNER_DEAD, true, &all), GC_KEEP_NOT_YOURS);
	cr_assert_eq(decide("node1", 1001, OWNER_DEAD, false, &me), GC_KEEP_NOT_YOURS);
	cr_assert_eq(decide("node1", (uid_t)-1, OWNER_DEAD, false, &me), GC_KEEP_NOT_YOURS);
	cr_assert_eq(decide("node1", 1001, OWNER_DEAD, false, &not_root), GC_KEEP_NOT_YOURS,
		     "--all-users is for root only");
}

Test(gc_policy, root_asking_for_everyones_gets_them_but_never_a_live_one)
{
	const struct gc_caller root = { .host = "node1", .uid = 0, .all_users = true };
	const struct gc_caller root_plain = { .host = "node1", .uid = 0 };

	cr_assert_eq(decide("node1", 1001, OWNER_DEAD, false, &root), GC_REMOVE);
	cr_assert_eq(decide("node1", (uid_t)-1, OWNER_DEAD, false, &root), GC_REMOVE);
	cr_assert_eq(decide("node1", 1001, OWNER_DEAD, true, &root), GC_KEEP_KEPT);
	cr_assert_eq(decide("node1", 1001, OWNER_ALIVE, false, &root), GC_KEEP_LIVE);
	cr_assert_eq(decide("node1", 1001, OWNER_DEAD, false, &root_plain), GC_KEEP_NOT_YOURS,
		     "root without --all-users is a user like any other");
}

Test(gc_policy, kept_only_with_all)
{
	const struct gc_caller all = { .host = "node1", .uid = 1000, .all = true };

	cr_assert_eq(decide("node1", 1000, OWNER_DEAD, true, &me), GC_KEEP_KEPT);
	cr_assert_eq(decide("node1", 1000, OWNER_DEAD, true, &all), GC_REMOVE);
}

Test(gc_policy, process_states_from_the_kernel)
{
	pid_t child = fork();
	unsigned long long start;

	cr_assert_geq(child, 0);
	if (child == 0) {
		pause();
		_exit(0);
	}
	start = process_start_ticks(child);
	cr_assert_gt(start, 0);
	cr_assert_eq(owner_process_state(getpid(), process_start_ticks(getpid())), OWNER_ALIVE);
	cr_assert_eq(owner_process_state(child, start + 1), OWNER_DEAD, "a recycled pid");
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	cr_assert_eq(owner_process_state(child, start), OWNER_DEAD);
	cr_assert_eq(owner_process_state(0, 0), OWNER_UNKNOWN);
}

/* Issue item 12: owner labels are parsed without truncation or sign. */
Test(gc_policy, owner_labels_that_do_not_fit_are_refused)
{
	static const char *const bad[] = {
		"vm:4294967297:24", "vm:2147483648:24", "vm:-7:24", "vm: 7:24", "vm:0:24",
		"vm:7:-24", "vm:7:18446744073709551616", "vm:7:24:-1", "vm:7:24:4294967295",
		"vm:7:24:4294967296", "vm:7:24:", "vm:7:", "vm::24", "vm:7:24:1:2:3", "vm:7:24:1:x", "vm:7:24:1:",
	};
	char host[64];
	pid_t pid;
	unsigned long long start;
	uid_t uid;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_assert_lt(owner_label_parse(bad[i], host, sizeof(host), &pid, &start, &uid), 0,
			     "%s parsed", bad[i]);
	cr_assert_eq(owner_label_parse("vm:2147483647:18446744073709551615:4294967294", host,
				       sizeof(host), &pid, &start, &uid), 0);
	cr_assert_eq(pid, 2147483647);
	cr_assert_eq(start, 18446744073709551615ULL);
	cr_assert_eq(uid, 4294967294u);
	cr_assert_str_eq(host, "vm");
}

Test(gc_policy, the_owner_label_names_its_pid_namespace)
{
	char *self = owner_label_self();

	cr_assert_neq(pid_namespace_self(), 0);
	cr_assert_eq(owner_label_pidns(self), pid_namespace_self(), "%s", self);
	cr_assert_eq(owner_label_pidns("vm:7:24:1000"), 0, "older labels name none");
	cr_assert_eq(owner_label_pidns("vm:7:24:1000:4026531836"), 4026531836ULL);
	free(self);
}

/* A sweep's resume removes only the caller's own dead-owner containers. */
Test(gc_policy, sweep_removes_only_own_known_dead_orphans)
{
	char host[256], *mine, *theirs, *alive, *nouid;
	unsigned long long start;
	pid_t child = dead_pid(&start);

	gethostname(host, sizeof(host));
	host[sizeof(host) - 1] = '\0';
	mine = xasprintf("%s:%d:%llu:%u", host, (int)child, start, (unsigned)getuid());
	theirs = xasprintf("%s:%d:%llu:%u", host, (int)child, start, (unsigned)getuid() + 1);
	nouid = xasprintf("%s:%d:%llu", host, (int)child, start);
	alive = xasprintf("%s:%d:%llu:%u", host, (int)getpid(), process_start_ticks(getpid()),
			  (unsigned)getuid());
	cr_assert(gc_sweep_may_remove(mine, false));
	cr_assert_not(gc_sweep_may_remove(mine, true), "--keep ones stay");
	cr_assert_not(gc_sweep_may_remove(theirs, false), "another user's stays");
	cr_assert_not(gc_sweep_may_remove(nouid, false), "no uid: not provably yours");
	cr_assert_not(gc_sweep_may_remove(alive, false));
	cr_assert_not(gc_sweep_may_remove("garbage", false));
	cr_assert_not(gc_sweep_may_remove(NULL, false));
	free(mine);
	free(theirs);
	free(nouid);
	free(alive);
}

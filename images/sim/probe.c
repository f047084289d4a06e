/* hrr-playback --probe-syscalls: what the container's seccomp profile and
 * user let this process do, for the tests that inspect a replay container
 * (docs/engine.md). Not part of the real hrr-playback.
 *
 * Each call is made with arguments that change nothing: the NUMA policy
 * calls set or read the default policy of this process's own memory, and
 * ptrace attaches to (then releases) a child of our own. One line per call:
 *
 *     probe: <name> ok|EPERM|errno=N
 *     probe: uid=U gid=G groups=A,B,...
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim.h"

#define PROBE_MPOL_DEFAULT 0

static void say(const char *name, long r, int err)
{
	if (r >= 0)
		printf("probe: %s ok\n", name);
	else if (err == EPERM)
		printf("probe: %s EPERM\n", name);
	else
		printf("probe: %s errno=%d\n", name, err);
}

static long probe_ptrace(int *err)
{
	pid_t pid = fork();
	long r;
	int status;

	if (pid < 0) {
		*err = errno;
		return -1;
	}
	if (pid == 0) {
		for (;;)
			pause();
	}
	r = ptrace(PTRACE_ATTACH, pid, NULL, NULL);
	*err = errno;
	if (r == 0) {
		waitpid(pid, &status, 0);
		ptrace(PTRACE_DETACH, pid, NULL, NULL);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return r;
}

static void print_ids(void)
{
	gid_t groups[64];
	int n = getgroups(64, groups);

	printf("probe: uid=%u gid=%u groups=", (unsigned)getuid(), (unsigned)getgid());
	for (int i = 0; i < n; i++)
		printf("%s%u", i ? "," : "", (unsigned)groups[i]);
	printf("\n");
}

int sim_probe_syscalls(void)
{
	void *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int mode = 0, status = 0, err;
	long r;

	if (page == MAP_FAILED)
		sim_die("probe: mmap: %s", strerror(errno));
	r = syscall(SYS_mbind, page, 4096, PROBE_MPOL_DEFAULT, NULL, 0, 0);
	say("mbind", r, errno);
	r = syscall(SYS_set_mempolicy, PROBE_MPOL_DEFAULT, NULL, 0);
	say("set_mempolicy", r, errno);
	r = syscall(SYS_get_mempolicy, &mode, NULL, 0, NULL, 0);
	say("get_mempolicy", r, errno);
	r = syscall(SYS_move_pages, 0, 0, NULL, NULL, &status, 0);
	say("move_pages", r, errno);
	r = probe_ptrace(&err);
	say("ptrace", r, err);
	print_ids();
	munmap(page, 4096);
	return 0;
}

/* The parser sandbox: see sandbox.h. */
#include "common/sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef HRR_NO_SANDBOX
#include <seccomp.h>
#endif

#include "common/cleanup.h"

#ifdef HRR_NO_SANDBOX

bool sandbox_enabled(void)
{
	return false;
}

int sandbox_enter(struct error *err)
{
	(void)err;
	return 0;
}

#else

bool sandbox_enabled(void)
{
	return true;
}

/* What a parser needs: I/O on descriptors it already holds, memory for
 * malloc (never executable), the clock, and ways to end (exit, or abort()
 * raising SIGABRT on itself). Names an architecture lacks are skipped. */
static const char *const allowed[] = {
	"read", "readv", "pread64", "write", "writev", "close", "fstat", "fstat64",
	"lseek", "_llseek", "brk", "munmap", "mremap", "madvise", "exit", "exit_group",
	"rt_sigreturn", "rt_sigprocmask", "clock_gettime", "clock_gettime64",
	"gettimeofday", "getpid", "gettid", "getrandom", "futex", "futex_time64",
};

/* mmap and mprotect without PROT_EXEC: a parser has no reason to make
 * memory executable, and an exploit needs it. */
static const char *const no_exec_memory[] = { "mmap", "mmap2", "mprotect" };

static int add_rule(scmp_filter_ctx ctx, const char *name, unsigned argc,
		    const struct scmp_arg_cmp *arg, struct error *err)
{
	int nr = seccomp_syscall_resolve_name(name);
	int r;

	if (nr < 0)
		return 0;
	r = seccomp_rule_add_array(ctx, SCMP_ACT_ALLOW, nr, argc, arg);
	if (r < 0)
		return error_set(err, ERR_SYSTEM, -r, "sandbox: allowing %s: %s", name,
				 strerror(-r));
	return 0;
}

static int add_rules(scmp_filter_ctx ctx, struct error *err)
{
	/* Spelled out: clang's -Wmissing-field-initializers rejects the
	 * SCMP_A* macros' partial initializers. */
	const struct scmp_arg_cmp no_exec = { .arg = 2, .op = SCMP_CMP_MASKED_EQ,
					      .datum_a = PROT_EXEC, .datum_b = 0 };
	/* abort() signals only this process: tgkill(own pid, ...) */
	const struct scmp_arg_cmp self = { .arg = 0, .op = SCMP_CMP_EQ,
					   .datum_a = (scmp_datum_t)getpid(), .datum_b = 0 };
	/* glibc's fstat() is fstatat(fd, "", st, AT_EMPTY_PATH). */
	const struct scmp_arg_cmp empty_path = { .arg = 3, .op = SCMP_CMP_MASKED_EQ,
						 .datum_a = AT_EMPTY_PATH,
						 .datum_b = AT_EMPTY_PATH };

	for (size_t i = 0; i < sizeof(allowed) / sizeof(allowed[0]); i++)
		if (add_rule(ctx, allowed[i], 0, NULL, err) < 0)
			return -1;
	for (size_t i = 0; i < sizeof(no_exec_memory) / sizeof(no_exec_memory[0]); i++)
		if (add_rule(ctx, no_exec_memory[i], 1, &no_exec, err) < 0)
			return -1;
	if (add_rule(ctx, "tgkill", 1, &self, err) < 0 ||
	    add_rule(ctx, "newfstatat", 1, &empty_path, err) < 0 ||
	    add_rule(ctx, "fstatat64", 1, &empty_path, err) < 0)
		return -1;
	return 0;
}

static void release_ctx(scmp_filter_ctx *ctx)
{
	if (*ctx)
		seccomp_release(*ctx);
}

int sandbox_enter(struct error *err)
{
	__attribute__((cleanup(release_ctx))) scmp_filter_ctx ctx = NULL;
	int r;

	/* Without it an unprivileged process may not load a filter, and a
	 * set-id program could not be exec'd past it anyway: say so first. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return error_errno(err, "sandbox: PR_SET_NO_NEW_PRIVS");
	ctx = seccomp_init(SCMP_ACT_KILL_PROCESS);
	if (!ctx)
		return error_set(err, ERR_SYSTEM, 0, "sandbox: seccomp_init failed");
	if (add_rules(ctx, err) < 0)
		return -1;
	r = seccomp_load(ctx);
	if (r < 0)
		return error_set(err, ERR_SYSTEM, -r, "sandbox: loading the filter: %s",
				 strerror(-r));
	return 0;
}

#endif /* HRR_NO_SANDBOX */

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* Close every descriptor but keep[0..n): an inherited engine socket or
 * file would otherwise still be writable from inside the sandbox. keep is
 * sorted in place; negative entries are ignored. */
static void close_others(int *keep, size_t n)
{
	unsigned lo = 0;

	qsort(keep, n, sizeof(*keep), cmp_int);
	for (size_t i = 0; i < n; i++) {
		if (keep[i] < 0)
			continue;
		if ((unsigned)keep[i] > lo)
			close_range(lo, (unsigned)keep[i] - 1, 0);
		if ((unsigned)keep[i] + 1 > lo)
			lo = (unsigned)keep[i] + 1;
	}
	close_range(lo, ~0u, 0);
}

struct child_args {
	sandbox_fds_fn fn;
	void *ud;
	const int *in_fds;
	size_t n;
};

static _Noreturn void child(const struct child_args *a, int out_fd)
{
	struct error err = { 0 };
	int *keep = calloc(a->n + 2, sizeof(*keep));

	if (!keep)
		_exit(125);
	memcpy(keep, a->in_fds, a->n * sizeof(*keep));
	keep[a->n] = out_fd;
	keep[a->n + 1] = STDERR_FILENO;
	close_others(keep, a->n + 2);
	free(keep);
	if (sandbox_enter(&err) < 0) {
		(void)!write(STDERR_FILENO, err.msg, strnlen(err.msg, sizeof(err.msg)));
		_exit(126);
	}
	_exit(a->fn(a->in_fds, a->n, out_fd, a->ud) == 0 ? 0 : 1);
}

/* Read the child's output to EOF; past the limit the child is killed. */
static int collect(int fd, pid_t pid, struct strbuf *out, struct error *err)
{
	size_t start = out->len;

	for (;;) {
		ssize_t n;

		strbuf_grow(out, 65536);
		n = read(fd, out->buf + out->len, 65536);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			error_errno(err, "sandbox: reading the parser's output");
			break;
		}
		if (n == 0)
			return 0;
		strbuf_setlen(out, out->len + (size_t)n);
		if (out->len - start > SANDBOX_OUTPUT_MAX) {
			error_set(err, ERR_LIMIT, 0, "sandbox: the parser wrote more than %u bytes",
				  SANDBOX_OUTPUT_MAX);
			break;
		}
	}
	kill(pid, SIGKILL);
	strbuf_setlen(out, start);
	return -1;
}

static int reap(pid_t pid, struct error *err)
{
	int status;

	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR)
			return error_errno(err, "sandbox: waiting for the parser");
	}
	if (WIFSIGNALED(status))
		return error_set(err, ERR_DATA, WTERMSIG(status),
				 "sandboxed parser killed by signal %d%s", WTERMSIG(status),
				 WTERMSIG(status) == SIGSYS ? " (a forbidden system call)" : "");
	if (WEXITSTATUS(status) != 0)
		return error_set(err, ERR_DATA, 0, "sandboxed parser failed (exit status %d)",
				 WEXITSTATUS(status));
	return 0;
}

static int run(const struct child_args *a, struct strbuf *out, struct error *err)
{
	cleanup_close int rd = -1;
	int p[2];
	size_t start = out->len;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return error_errno(err, "sandbox: pipe");
	rd = p[0];
	pid = fork();
	if (pid < 0) {
		close(p[1]);
		return error_errno(err, "sandbox: fork");
	}
	if (pid == 0)
		child(a, p[1]);
	close(p[1]);
	if (collect(rd, pid, out, err) < 0) {
		struct error ignored = { 0 };

		(void)reap(pid, &ignored);
		return -1;
	}
	if (reap(pid, err) < 0) {
		strbuf_setlen(out, start);
		return -1;
	}
	return 0;
}

int sandbox_run_fds(sandbox_fds_fn fn, void *ud, const int *in_fds, size_t n,
		    struct strbuf *out, struct error *err)
{
	const struct child_args a = { fn, ud, in_fds, n };

	return run(&a, out, err);
}

struct single {
	sandbox_fn fn;
	void *ud;
};

static int call_single(const int *in_fds, size_t n, int out_fd, void *ud)
{
	const struct single *s = ud;

	(void)n;
	return s->fn(in_fds[0], out_fd, s->ud);
}

int sandbox_run(sandbox_fn fn, void *ud, int in_fd, struct strbuf *out, struct error *err)
{
	struct single s = { fn, ud };

	return sandbox_run_fds(call_single, &s, &in_fd, 1, out, err);
}

/* common/sandbox: parsing in a forked child under a seccomp filter. */
#include <criterion/criterion.h>
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/sandbox.h"

/* A pipe holding text, for the child's in_fd. */
static int input(const char *text)
{
	int p[2];

	cr_assert_eq(pipe(p), 0);
	cr_assert_eq(write(p[1], text, strlen(text)), (ssize_t)strlen(text));
	close(p[1]);
	return p[0];
}

static int reply(int out_fd, const char *s)
{
	return write(out_fd, s, strlen(s)) == (ssize_t)strlen(s) ? 0 : -1;
}

/* A real parser: read everything, parse JSON with malloc'd buffers large
 * enough to need mmap, print a field back. */
static int parse_json(int in_fd, int out_fd, void *ud)
{
	char buf[4096];
	size_t len = 0;
	ssize_t n;
	cJSON *j;
	char *big = malloc(8u << 20);
	int r;

	(void)ud;
	while ((n = read(in_fd, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += (size_t)n;
	buf[len] = '\0';
	if (!big)
		return -1;
	memset(big, 1, 8u << 20);
	free(big);
	j = cJSON_Parse(buf);
	if (!j)
		return -1;
	r = reply(out_fd, cJSON_GetObjectItem(j, "kernel")->valuestring);
	cJSON_Delete(j);
	return r;
}

Test(sandbox, the_sandboxed_child_parses_and_writes)
{
	struct strbuf out = STRBUF_INIT;
	struct error err = { 0 };
	int fd = input("{\"kernel\": \"void k<float>\"}");

	cr_assert_eq(sandbox_run(parse_json, NULL, fd, &out, &err), 0, "%s", err.msg);
	cr_assert_str_eq(out.buf, "void k<float>");
	close(fd);
	strbuf_release(&out);
}

/* Built with -DHRR_NO_SANDBOX (the sanitizer build runs these same tests)
 * there is no filter to die on: those tests skip, and test_sandbox_noop.c
 * covers that build's behaviour. */
static void need_filter(void)
{
#ifdef HRR_NO_SANDBOX
	cr_assert_not(sandbox_enabled());
	cr_skip_test("built with HRR_NO_SANDBOX");
#else
	cr_assert(sandbox_enabled(), "the normal build must install the filter");
#endif
}

/* The test hook: a parser that tries to open a file once the filter is in
 * place (test_sandbox_noop.c uses it too). */
int sandbox_test_try_open(int in_fd, int out_fd, void *ud);
int sandbox_test_try_open(int in_fd, int out_fd, void *ud)
{
	int fd = open((const char *)ud, O_RDONLY);

	(void)in_fd;
	return reply(out_fd, fd >= 0 ? "opened" : "refused");
}

Test(sandbox, open_after_the_filter_kills_the_child_with_sigsys)
{
	struct strbuf out = STRBUF_INIT;
	struct error err = { 0 };

	need_filter();
	cr_assert_lt(sandbox_run(sandbox_test_try_open, (void *)"/etc/hostname", -1, &out, &err), 0);
	cr_assert_eq(err.kind, ERR_DATA);
	cr_assert_eq(err.status, SIGSYS, "%s", err.msg);
	cr_assert(strstr(err.msg, "forbidden system call"), "%s", err.msg);
	cr_assert_eq(out.len, 0);
	strbuf_release(&out);
}

static int map_exec(int in_fd, int out_fd, void *ud)
{
	void *p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	(void)in_fd;
	(void)ud;
	return reply(out_fd, p == MAP_FAILED ? "refused" : "mapped");
}

Test(sandbox, executable_memory_is_forbidden)
{
	struct strbuf out = STRBUF_INIT;
	struct error err = { 0 };

	need_filter();
	cr_assert_lt(sandbox_run(map_exec, NULL, -1, &out, &err), 0);
	cr_assert_eq(err.status, SIGSYS, "%s", err.msg);
	strbuf_release(&out);
}

/* A descriptor the parent holds (an engine socket, a file) is closed in
 * the child before the parse starts. */
static int write_inherited(int in_fd, int out_fd, void *ud)
{
	int fd = *(int *)ud;

	(void)in_fd;
	if (write(fd, "x", 1) == 1)
		return reply(out_fd, "wrote");
	return reply(out_fd, errno == EBADF ? "EBADF" : "other");
}

Test(sandbox, descriptors_not_given_are_closed_in_the_child)
{
	struct strbuf out = STRBUF_INIT;
	struct error err = { 0 };
	char path[] = "/tmp/hrr-sandbox-XXXXXX";
	int fd = mkstemp(path);

	cr_assert_geq(fd, 0);
	unlink(path);
	cr_assert_eq(sandbox_run(write_inherited, &fd, -1, &out, &err), 0, "%s", err.msg);
	cr_assert_str_eq(out.buf, "EBADF");
	cr_assert_eq(lseek(fd, 0, SEEK_END), 0);
	close(fd);
	strbuf_release(&out);
}

static int fail(int in_fd, int out_fd, void *ud)
{
	(void)in_fd;
	(void)ud;
	(void)reply(out_fd, "partial");
	return -1;
}

Test(sandbox, a_failing_parse_is_an_error_and_leaves_out_unchanged)
{
	struct strbuf out = STRBUF_INIT;
	struct error err = { 0 };

	strbuf_addstr(&out, "before");
	cr_assert_lt(sandbox_run(fail, NULL, -1, &out, &err), 0);
	cr_assert_eq(err.kind, ERR_DATA);
	cr_assert(strstr(err.msg, "exit status 1"), "%s", err.msg);
	cr_assert_str_eq(out.buf, "before");
	strbuf_release(&out);
}

static int concat(const int *in_fds, size_t n, int out_fd, void *ud)
{
	char buf[256];

	(void)ud;
	for (size_t i = 0; i < n; i++) {
		ssize_t len;

		while ((len = read(in_fds[i], buf, sizeof(buf))) > 0)
			if (write(out_fd, buf, (size_t)len) != len)
				return -1;
	}
	return 0;
}

Test(sandbox, several_inputs_reach_the_child_in_order)
{
	struct strbuf out = STRBUF_INIT;
	struct error err = { 0 };
	int fds[2] = { input("first log\n"), input("second log\n") };

	cr_assert_eq(sandbox_run_fds(concat, NULL, fds, 2, &out, &err), 0, "%s", err.msg);
	cr_assert_str_eq(out.buf, "first log\nsecond log\n");
	close(fds[0]);
	close(fds[1]);
	strbuf_release(&out);
}

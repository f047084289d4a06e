/* common/sandbox built with -DHRR_NO_SANDBOX (the sanitizer and valgrind
 * builds): the same source, compiled here under other names so that the
 * normal test binary exercises both builds. */
#define HRR_NO_SANDBOX 1
#define sandbox_enabled noop_sandbox_enabled
#define sandbox_enter noop_sandbox_enter
#define sandbox_run noop_sandbox_run
#define sandbox_run_fds noop_sandbox_run_fds
#include "common/sandbox.c"

#include <criterion/criterion.h>

/* test_sandbox.c: opens the file named by ud, writes "opened" or "refused". */
int sandbox_test_try_open(int in_fd, int out_fd, void *ud);

Test(sandbox_noop, the_flag_leaves_the_filter_out_but_still_forks)
{
	struct strbuf out = STRBUF_INIT;
	struct error err = { 0 };

	cr_assert_not(noop_sandbox_enabled());
	cr_assert_eq(noop_sandbox_enter(&err), 0);
	cr_assert_eq(noop_sandbox_run(sandbox_test_try_open, (void *)"/dev/null", -1, &out, &err), 0, "%s", err.msg);
	cr_assert_str_eq(out.buf, "opened");
	strbuf_release(&out);
}

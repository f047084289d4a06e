/* Preflight inside a full run: it blocks, asks, or proceeds as the rules
 * say; the prompt is driven through a pseudo-terminal. */
#include <criterion/criterion.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/strvec.h"
#include "common/xalloc.h"
#include "tests/support/run_support.h"

static char mismatch_pid[600];

static void setup(void)
{
	tenv_init();
	make_mismatch_archive(mismatch_pid, sizeof(mismatch_pid));
}

TestSuite(run_preflight, .init = setup, .fini = tenv_fini, .timeout = 120);

#define ARGS(cmd, pid_dir, ...)                                                          \
	((const char *const[]){ cmd, "--image", SIM_IMAGE, "--archive", pid_dir, "--workdir", \
				tenv.workdir, "--device-root", tenv.devroot, "--sysfs-root",       \
				tenv.sysfs, "-q", __VA_ARGS__ })

Test(run_preflight, mismatch_without_a_terminal_exits_2_and_says_how_to_continue)
{
	struct tool_run r;

	tool_run(&r, ARGS("run", mismatch_pid, NULL), NULL);
	cr_assert_eq(r.status, 2, "%s", r.err.buf);
	cr_assert(strstr(r.err.buf, "HRR_CONTINUE=1"), "%s", r.err.buf);
	cr_assert_not_null(r.run_dir);
	cr_assert(file_exists(r.run_dir, "preflight.md"));
	cr_assert(file_exists(r.run_dir, "run.json"));
	cr_assert_not(file_exists(r.run_dir, "replay.log"), "nothing replayed");
	tool_run_release(&r);
}

Test(run_preflight, yes_accepts_the_mismatch_and_replays)
{
	struct tool_run r;

	tool_run(&r, ARGS("run", mismatch_pid, "--yes", NULL), NULL);
	cr_assert_eq(r.status, 0, "%s", r.err.buf);
	cr_assert(file_exists(r.run_dir, "finding.json"));
	tool_run_release(&r);
	tool_run(&r, ARGS("run", mismatch_pid, NULL),
		 (const char *const[]){ "HRR_CONTINUE=1", NULL });
	cr_assert_eq(r.status, 0, "HRR_CONTINUE=1 is --yes: %s", r.err.buf);
	tool_run_release(&r);
}

Test(run_preflight, strict_version_blocks_with_4)
{
	struct tool_run r;

	tool_run(&r, ARGS("run", mismatch_pid, "--strict-version", NULL), NULL);
	cr_assert_eq(r.status, 4, "%s", r.err.buf);
	cr_assert_not(file_exists(r.run_dir, "finding.json"));
	tool_run_release(&r);
}

Test(run_preflight, skip_preflight_replays_anyway)
{
	struct tool_run r;

	tool_run(&r, ARGS("run", mismatch_pid, "--skip-preflight", "--strict-version", NULL), NULL);
	cr_assert_eq(r.status, 0, "%s", r.err.buf);
	tool_run_release(&r);
}

Test(run_preflight, more_capture_gpus_than_chosen_blocks)
{
	cleanup_free char *pid_dir = fixture_pid_dir("two-gpus");
	struct tool_run r;

	tool_run(&r, ARGS("run", pid_dir, "--gpu", "0", NULL), NULL);
	cr_assert_eq(r.status, 4, "%s", r.err.buf);
	cr_assert(strstr(r.err.buf, "capture saw 2 GPU(s) but replay environment only exposes 1"),
		  "%s", r.err.buf);
	tool_run_release(&r);
	tool_run(&r, ARGS("run", pid_dir, NULL), NULL);
	cr_assert_eq(r.status, 0, "auto-pick gives the capture its 2 GPUs: %s", r.err.buf);
	tool_run_release(&r);
}

Test(run_preflight, preflight_command_reports_without_replaying)
{
	cleanup_free char *pass = fixture_pid_dir("pass");
	struct tool_run r;

	tool_run(&r, ARGS("preflight", pass, NULL), NULL);
	cr_assert_eq(r.status, 0, "%s", r.err.buf);
	cr_assert(strstr(r.out.buf, "OK"), "%s", r.out.buf);
	tool_run_release(&r);
	tool_run(&r, ARGS("preflight", mismatch_pid, NULL), NULL);
	cr_assert_eq(r.status, 2, "%s", r.err.buf);
	cr_assert(strstr(r.out.buf, "7.15.26291"), "the report names the capture's version");
	tool_run_release(&r);
	tool_run(&r, ARGS("preflight", mismatch_pid, "--strict-version", NULL), NULL);
	cr_assert_eq(r.status, 4);
	tool_run_release(&r);
	/* Options of a run that do not apply are accepted. */
	tool_run(&r, ARGS("preflight", pass, "--timeout", "5", "--keep", "--format", "json", NULL),
		 NULL);
	cr_assert_eq(r.status, 0, "%s", r.err.buf);
	tool_run_release(&r);
	cr_assert_eq(count_tool_containers(tenv.workdir), 0);
}

Test(run_preflight, preflight_command_without_kfd_skips_gpu_checks)
{
	cleanup_free char *pass = fixture_pid_dir("pass");
	const char *const argv[] = { "preflight", "--image", SIM_IMAGE, "--archive", pass,
				     "--workdir", tenv.workdir, "--sysfs-root", "/nonexistent", NULL };
	struct tool_run r;

	tool_run(&r, argv, NULL);
	cr_assert_eq(r.status, 0, "%s%s", r.out.buf, r.err.buf);
	cr_assert(strstr(r.out.buf, "/nonexistent"), "the report says why GPU checks were skipped:\n%s",
		  r.out.buf);
	tool_run_release(&r);
}

/* Run the tool on a pseudo-terminal, answer the prompt, return the status. */
static int run_on_pty(const char *answer, struct strbuf *screen)
{
	return tool_run_on_pty(ARGS("run", mismatch_pid, NULL), "Do you want to continue? [y/N]",
			       answer, NULL, screen);
}

Test(run_preflight, prompt_on_a_terminal_yes_replays)
{
	cleanup_strbuf struct strbuf screen = STRBUF_INIT;

	cr_assert_eq(run_on_pty("y\n", &screen), 0, "%s", screen.buf);
	cr_assert(strstr(screen.buf, "Version mismatch detected. Do you want to continue? [y/N]"));
	cr_assert(strstr(screen.buf, "PASS"), "the finding follows: %s", screen.buf);
}

Test(run_preflight, prompt_on_a_terminal_no_exits_3)
{
	cleanup_strbuf struct strbuf screen = STRBUF_INIT;

	cr_assert_eq(run_on_pty("n\n", &screen), 3, "%s", screen.buf);
}

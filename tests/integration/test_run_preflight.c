/* Preflight inside a full run: it blocks, asks, or proceeds as the rules
 * say; the prompt is driven through a pseudo-terminal. */
#include <criterion/criterion.h>
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <pty.h>
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

/* The pass fixture, copied, with a capture HIP version the image lacks. */
static void make_mismatch_archive(void)
{
	cleanup_free char *src = fixture_pid_dir("pass");
	char cmd[8192];

	snprintf(mismatch_pid, sizeof(mismatch_pid), "%s/capture.hrr/pid-4242", tenv.root);
	snprintf(cmd, sizeof(cmd),
		 "mkdir -p %s/capture.hrr && cp -a %s %s && "
		 "sed -i 's/\"hip_runtime_version\": \"7.13.0\"/\"hip_runtime_version\": \"7.15.26291\"/' %s/manifest.json && "
		 "grep -q 7.15.26291 %s/manifest.json",
		 tenv.root, src, mismatch_pid, mismatch_pid, mismatch_pid);
	cr_assert_eq(system(cmd), 0, "could not prepare the mismatch archive");
}

static void setup(void)
{
	tenv_init();
	make_mismatch_archive();
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
	const char *const *args = ARGS("run", mismatch_pid, NULL);
	const char *bin = getenv("HRR_BIN") ? getenv("HRR_BIN") : "build/hrr-docker-replay";
	bool answered = false;
	int master, status;
	pid_t pid;

	pid = forkpty(&master, NULL, NULL, NULL);
	cr_assert_geq(pid, 0, "forkpty: %s", strerror(errno));
	if (pid == 0) {
		struct strvec v = STRVEC_INIT;

		strvec_push(&v, bin);
		strvec_pushv(&v, args);
		execv(bin, v.v);
		_exit(127);
	}
	for (;;) {
		struct pollfd p = { .fd = master, .events = POLLIN };
		char buf[4096];
		ssize_t n;

		if (poll(&p, 1, 60000) <= 0)
			break;
		n = read(master, buf, sizeof(buf));
		if (n <= 0)
			break; /* EIO once the child has exited */
		strbuf_add(screen, buf, (size_t)n);
		if (!answered && strstr(screen->buf, "Do you want to continue? [y/N]")) {
			cr_assert_eq(write(master, answer, strlen(answer)), (ssize_t)strlen(answer));
			answered = true;
		}
	}
	waitpid(pid, &status, 0);
	close(master);
	cr_assert(answered, "no prompt on the terminal:\n%s", screen->buf);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
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

/* The fault tests' infrastructure, proven on its own: a private engine
 * that starts, answers, runs the simulator image, survives SIGSTOP and
 * SIGKILL + restart and stops cleanly; a small tmpfs that fills; the
 * second, unprivileged test user. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <grp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/strbuf.h"
#include "docker/engine.h"
#include "tests/support/engine_test.h"
#include "tests/support/private_engine.h"
#include "tests/support/scratch.h"

static struct private_engine pe;

static void start(void)
{
	const char *images[] = { test_image("sim"), NULL };

	private_engine_start(&pe, images);
}

static void destroy(void)
{
	private_engine_destroy(&pe);
}

/* Run `script` in the sim image on e; returns the container id. */
static char *run_to_exit(struct engine *e, const char *script, long *code)
{
	struct container_spec s;
	struct error err = { 0 };
	char *id = NULL;

	et_spec(&s, script);
	cr_assert_eq(engine_container_create(e, NULL, &s, &id, &err), 0, "%s", err.msg);
	container_spec_release(&s);
	cr_assert_eq(engine_container_start(e, id, &err), 0, "%s", err.msg);
	cr_assert_eq(engine_container_wait(e, id, "not-running", code, &err), 0, "%s", err.msg);
	return id;
}

Test(fault_infra, a_private_engine_starts_runs_the_sim_image_and_stops, .init = start,
     .fini = destroy)
{
	struct engine *e = NULL, *main_e = et_engine();
	struct error err = { 0 };
	char *id;
	long code = -1;

	cr_assert(private_engine_answers(&pe, 5000));
	cr_assert_eq(engine_open(&e, pe.host, &err), 0, "%s", err.msg);
	cr_assert_eq(engine_ping(e, &err), 0, "%s", err.msg);
	id = run_to_exit(e, "/opt/rocm/bin/hrr-playback --probe-syscalls | grep -q 'probe: mbind'",
			 &code);
	cr_assert_eq(code, 0);
	/* Its containers are its own: the main engine does not know them. */
	cr_assert_lt(engine_container_inspect(main_e, id, NULL, &err), 0);
	cr_assert_eq(err.kind, ERR_NOT_FOUND);
	engine_close(e);
	engine_close(main_e);
	free(id);
	cr_assert(private_engine_stop(&pe), "dockerd or its socket still there");
	cr_assert_not(private_engine_answers(&pe, 500));
}

Test(fault_infra, a_stopped_engine_does_not_answer_and_a_killed_one_restarts, .init = start,
     .fini = destroy)
{
	struct engine *e = NULL;
	struct error err = { 0 };
	char *id;
	long code = -1;

	cr_assert_eq(engine_open(&e, pe.host, &err), 0, "%s", err.msg);
	id = run_to_exit(e, "exit 3", &code);
	cr_assert_eq(code, 3);
	engine_close(e);

	private_engine_signal(&pe, SIGSTOP);
	cr_assert_not(private_engine_answers(&pe, 500), "a SIGSTOPped dockerd answered");
	private_engine_signal(&pe, SIGCONT);
	cr_assert(private_engine_answers(&pe, 5000));

	private_engine_signal(&pe, SIGKILL);
	cr_assert_eq(private_engine_pid(&pe), 0);
	cr_assert_not(private_engine_answers(&pe, 500));
	private_engine_restart(&pe);
	cr_assert(private_engine_answers(&pe, 5000));
	/* The data root survived: the container is still there. */
	cr_assert_eq(engine_open(&e, pe.host, &err), 0, "%s", err.msg);
	cr_assert_eq(engine_container_inspect(e, id, NULL, &err), 0, "%s", err.msg);
	engine_close(e);
	free(id);
}

Test(fault_infra, a_small_tmpfs_fills)
{
	char *dir = tmpfs_scratch("full", 1 << 20);
	struct strbuf path = STRBUF_INIT;
	static char block[64 * 1024];
	size_t total = 0;
	ssize_t n = 0;
	int fd;

	strbuf_addf(&path, "%s/fill", dir);
	fd = open(path.buf, O_WRONLY | O_CREAT | O_EXCL, 0600);
	cr_assert_geq(fd, 0, "%s", strerror(errno));
	while (total <= (4u << 20) && (n = write(fd, block, sizeof(block))) > 0)
		total += (size_t)n;
	cr_assert_lt(n, 0, "wrote %zu bytes into a 1 MiB tmpfs", total);
	cr_assert_eq(errno, ENOSPC);
	cr_assert_leq(total, 1u << 20);
	close(fd);
	strbuf_release(&path);
	tmpfs_scratch_remove(dir);
}

Test(fault_infra, the_second_test_user_is_unprivileged_and_reaches_the_engine)
{
	const char *name = getenv("HRR_TEST_USER2") ? getenv("HRR_TEST_USER2") : "hrrtest2";
	struct passwd *pw = getpwnam(name);

	cr_assert_not_null(pw, "no user %s: run tests/setup.sh", name);
	cr_assert_neq(pw->pw_uid, 0);
	cr_assert_eq(et_sh("setpriv --reuid '%s' --regid '%s' --init-groups sh -c "
			   "'test \"$(id -u)\" = %u && test ! -w /etc/passwd && "
			   "curl -sf --max-time 5 --unix-socket /var/run/docker.sock "
			   "http://localhost/_ping >/dev/null'", name, name, (unsigned)pw->pw_uid),
		     0, "%s cannot reach the engine or is privileged", name);
}

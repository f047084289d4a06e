/* A sweep through the faults of its night (docs/sweep.md "Every case ends
 * exactly once"), on a private dockerd (tests/private-dockerd.sh) so that
 * killing it disturbs no other suite, on the four fake GPUs of
 * tests/fixtures/sysfs/mi300x-4: the engine killed mid-case, and the
 * workdir's file system filling up. tests/soak.sh plays them all at once
 * at scale. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "docker/engine.h"
#include "tests/support/private_engine.h"
#include "tests/support/run_support.h"

static struct tenv_sweep sw;
static struct private_engine pe;

static void faults_init(void)
{
	const char *images[] = { SIM_IMAGE, NULL };

	tenv_init_sweep(&sw);
	private_engine_start(&pe, images);
}

static void faults_fini(void)
{
	private_engine_destroy(&pe);
	tenv_fini();
}

TestSuite(sweep_faults, .init = faults_init, .fini = faults_fini, .timeout = 300);

/* n copies of a fixture under the library: n cases. */
static void add_cases(const char *fixture, int n)
{
	cleanup_free char *src = fixture_root(fixture);

	for (int i = 0; i < n; i++) {
		cleanup_free char *cmd = xasprintf("mkdir -p '%s/c%d' && cp -r '%s' '%s/c%d/'",
						   sw.library, i, src, sw.library, i);

		cr_assert_eq(system(cmd), 0, "%s", cmd);
	}
}

/* The tool's containers on the private engine (every one is this test's). */
static int containers(bool running_only)
{
	struct engine *e = NULL;
	struct error err = { 0 };
	struct engine_containers list = { 0 };
	int n = 0;

	if (engine_open(&e, pe.host, &err) < 0)
		return -1;
	if (engine_container_list(e, "hrr-docker-replay.owner", &list, &err) == 0) {
		for (size_t i = 0; i < list.n; i++) {
			const char *state = list.v[i].state;

			n += !running_only || (state && !strcmp(state, "running"));
		}
	} else {
		n = -1;
	}
	engine_containers_release(&list);
	engine_close(e);
	return n;
}

static pid_t spawn_sweep(const char *workdir, const char *dir, const char *resume)
{
	cleanup_free char *host = xasprintf("DOCKER_HOST=%s", pe.host);
	const char *env[] = { host, sw.lockenv, NULL };
	const char *fresh[] = { "sweep", "--workdir", workdir, "--device-root", tenv.devroot,
				"--sysfs-root", sw.sysfs4, "--db", sw.dbpath, "--timeout", "60",
				"--stop-grace", "2", "--pull", "never", "--retry-failed", "1",
				"--image", SIM_IMAGE, "--archive", sw.library, "--format", "json",
				"-q", NULL };
	const char *again[] = { "sweep", "--resume", resume, "--workdir", workdir,
				"--device-root", tenv.devroot, "--sysfs-root", sw.sysfs4, "--db",
				sw.dbpath, "--format", "json", "-q", NULL };

	return tool_spawn(resume ? again : fresh, env, dir);
}

static void wait_running(pid_t sweep)
{
	for (int i = 0; i < 600 && containers(true) <= 0; i++) {
		int status;

		cr_assert_neq(waitpid(sweep, &status, WNOHANG), sweep,
			      "the sweep ended before a replay ran");
		usleep(100 * 1000);
	}
	cr_assert_gt(containers(true), 0, "no replay ever ran");
}

static void read_out(const char *dir, const char *name, struct strbuf *sb)
{
	cleanup_free char *path = xasprintf("%s/%s", dir, name);

	read_text(path, sb);
}

/* Each case's last attempt in summary.json, each case once. */
static void assert_every_case_once(const cJSON *s, int n, const char *outcome)
{
	const cJSON *c;
	int seen = 0;

	cJSON_ArrayForEach(c, cJSON_GetObjectItem(s, "cases")) {
		const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(c, "case"));
		const cJSON *d;
		int same = 0;

		seen++;
		cJSON_ArrayForEach(d, cJSON_GetObjectItem(s, "cases"))
			same += !strcmp(name, cJSON_GetStringValue(cJSON_GetObjectItem(d, "case")));
		cr_expect_eq(same, 1, "%s is in the summary %d times", name, same);
		cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(c, "outcome")), outcome,
				 "%s", name);
	}
	cr_expect_eq(seen, n, "cases in the summary");
}

Test(sweep_faults, an_engine_killed_mid_case_is_an_infrastructure_error_retried_and_blames_no_gpu)
{
	char dir[] = "/tmp/hrr-swf-XXXXXX";
	cleanup_strbuf struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	cleanup_strbuf struct strbuf lines = STRBUF_INIT;
	cleanup_cjson cJSON *s = NULL;
	cleanup_free char *results = NULL;
	pid_t sweep;
	int rc;

	cr_assert(mkdtemp(dir));
	add_cases("slow", 4);
	sweep = spawn_sweep(tenv.workdir, dir, NULL);
	wait_running(sweep);
	private_engine_signal(&pe, SIGKILL);
	sleep(2);
	private_engine_restart(&pe);
	rc = tool_wait(sweep, 240);
	read_out(dir, "stdout", &out);
	read_out(dir, "stderr", &err);
	cr_assert_eq(rc, 0, "every case passed on its retry: exit %d\n%s", rc, err.buf);
	s = cJSON_Parse(out.buf);
	cr_assert_not_null(s, "%s\n%s", out.buf, err.buf);
	assert_every_case_once(s, 4, "PASS");
	cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItem(s, "quarantined_gpus")), 0, "%s",
		     out.buf);
	cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItem(s, "suspect_gpus")), 0, "%s", out.buf);
	cr_expect(strstr(err.buf, "starting no case until the engine answers again"), "%s", err.buf);
	cr_expect_null(strstr(err.buf, "quarantined"), "%s", err.buf);
	/* What the engine took away: an error of the infrastructure, then a PASS. */
	results = xasprintf("%s/sweeps/%s/results.jsonl", tenv.workdir,
			    cJSON_GetStringValue(cJSON_GetObjectItem(s, "sweep")));
	cr_assert(read_text(results, &lines), "%s", results);
	cr_expect(strstr(lines.buf, "\"state\":\"error\""), "%s", lines.buf);
	cr_expect(strstr(lines.buf, "\"kind\":\"infrastructure\""), "%s", lines.buf);
	cr_expect_null(strstr(lines.buf, "\"outcome\":\"HANG\""), "%s", lines.buf);
	cr_expect_null(strstr(lines.buf, "\"outcome\":\"MAF\""), "%s", lines.buf);
	cr_expect_eq(containers(false), 0, "no container left on the engine");
	scratch_remove(dir);
}

Test(sweep_faults, a_full_workdir_stops_the_sweep_in_one_line_and_resume_finishes_it)
{
	char dir[] = "/tmp/hrr-swf-XXXXXX";
	char *fs = tmpfs_scratch("full", 8 << 20);
	cleanup_free char *workdir = xasprintf("%s/work", fs);
	cleanup_free char *fill = xasprintf("dd if=/dev/zero of='%s/filler' bs=64k 2>/dev/null; true",
					    fs);
	cleanup_free char *filler = xasprintf("%s/filler", fs);
	cleanup_strbuf struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	cleanup_cjson cJSON *s = NULL;
	const char *line, *end;
	char id[128] = "";
	int stops = 0;
	pid_t sweep;
	int rc;

	cr_assert(mkdtemp(dir));
	add_cases("slow", 6);
	sweep = spawn_sweep(workdir, dir, NULL);
	wait_running(sweep);
	cr_assert_eq(system(fill), 0);
	rc = tool_wait(sweep, 240);
	read_out(dir, "stderr", &err);
	cr_assert_eq(rc, 5, "a full disk stops the sweep with exit 5, got %d\n%s", rc, err.buf);
	for (line = err.buf; (end = strstr(line, "stopping the sweep")); line = end + 1) {
		const char *bol = end;

		while (bol > err.buf && bol[-1] != '\n')
			bol--;
		stops++;
		cr_expect(strstr(bol, "results.jsonl: No space left on device: stopping the sweep; the"),
			  "%.*s", (int)(strchrnul(bol, '\n') - bol), bol);
		cr_expect(strstr(bol, "the results recorded before it are kept in"), "%s", bol);
		const char *r = strstr(bol, "sweep --resume ");

		cr_assert_not_null(r, "%s", bol);
		sscanf(r + strlen("sweep --resume "), "%127[^`\n]", id);
	}
	cr_expect_eq(stops, 1, "one stop line:\n%s", err.buf);
	cr_expect_eq(containers(false), 0, "every replay was stopped and removed");

	/* Room again: the resume finishes it, each case once. */
	cr_assert_eq(unlink(filler), 0);
	strbuf_reset(&out);
	strbuf_reset(&err);
	sweep = spawn_sweep(workdir, dir, id);
	rc = tool_wait(sweep, 240);
	read_out(dir, "stdout", &out);
	read_out(dir, "stderr", &err);
	cr_assert_eq(rc, 0, "the resume: exit %d\n%s", rc, err.buf);
	s = cJSON_Parse(out.buf);
	cr_assert_not_null(s, "%s\n%s", out.buf, err.buf);
	assert_every_case_once(s, 6, "PASS");
	cr_expect_eq(containers(false), 0);
	scratch_remove(dir);
	tmpfs_scratch_remove(fs);
}

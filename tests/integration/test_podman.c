/* What only Podman has: a rootless user's replay on the shared fake GPU
 * nodes (group hrr-render, tests/setup-fake-gpus.sh) and a private service
 * per invocation (--engine podman-service), and the user's own socket found
 * without DOCKER_HOST. Run against the engine
 * DOCKER_HOST names; each test says SKIPPED where that engine or user does
 * not fit (tests/podman-check.sh runs them as the rootless test user). */
#include <criterion/criterion.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "docker/engine.h"
#include "tests/support/engine_test.h"
#include "tests/support/run_support.h"

TestSuite(podman, .init = tenv_init, .fini = tenv_fini, .timeout = 180);

static const char *fake_gpu_root(void)
{
	const char *r = getenv("HRR_FAKE_GPU_ROOT");

	return r && *r ? r : "/var/lib/hrr-docker-replay-test/fake-gpu/dev";
}

/* The engine DOCKER_HOST names is rootless Podman and we are its user. */
static void need_rootless_podman(void)
{
	struct engine *e = NULL;
	struct error err;
	bool podman;

	cr_assert_eq(engine_open(&e, NULL, &err), 0, "%s", err.msg);
	podman = !strcmp(engine_name(e), "podman");
	engine_close(e);
	if (!podman || geteuid() == 0)
		tenv_skip("needs rootless Podman (tests/podman-check.sh rootless)");
}

static const char *json_str(const cJSON *j, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, key);

	return cJSON_IsString(v) ? v->valuestring : "";
}

static int on_frame(enum engine_stream_id stream, const char *data, size_t len, void *ud)
{
	(void)stream;
	strbuf_add(ud, data, len);
	return 0;
}

Test(podman, a_rootless_replay_on_the_fake_gpus_passes)
{
	cleanup_free char *pid_dir = fixture_pid_dir("pass");
	cleanup_free char *sysfs = NULL;
	cleanup_cjson cJSON *run = NULL;
	char cwd[PATH_MAX];
	struct tool_run r;
	const cJSON *orch;

	need_rootless_podman();
	cr_assert_not_null(getcwd(cwd, sizeof(cwd)));
	sysfs = xasprintf("%s/tests/fixtures/sysfs/mi300x-4", cwd);
	tool_run(&r, (const char *const[]){ "--image", SIM_IMAGE, "--archive", pid_dir,
					    "--workdir", tenv.workdir, "--device-root",
					    fake_gpu_root(), "--sysfs-root", sysfs, "--gpu", "2",
					    "--format", "json", "-q", NULL },
		 NULL);
	/* the simulator opens the render node: without the user's group it
	 * reports no GPU and the replay is a finding, not a PASS */
	cr_assert_eq(r.status, 0, "%s", r.err.buf);
	run = read_json(r.run_dir, "run.json");
	orch = cJSON_GetObjectItemCaseSensitive(run, "orchestrator");
	cr_assert_str_eq(json_str(orch, "engine_name"), "podman");
	cr_assert_neq(json_str(orch, "engine_version")[0], '\0');
	tool_run_release(&r);
}

Test(podman, the_container_opens_the_nodes_through_the_users_group)
{
	struct engine *e = et_engine();
	cleanup_free char *kfd = NULL;
	cleanup_free char *render = NULL;
	cleanup_strbuf struct strbuf out = STRBUF_INIT;
	struct container_spec s;
	struct error err;
	struct stat st;
	char *id = NULL;
	long code = -1;

	need_rootless_podman();
	kfd = xasprintf("%s/kfd", fake_gpu_root());
	render = xasprintf("%s/dri/renderD130", fake_gpu_root());
	cr_assert_eq(stat(render, &st), 0, "%s (tests/setup-fake-gpus.sh)", render);
	/* what the tool sends: the nodes, and their group */
	et_spec(&s, "grep ^Groups: /proc/self/status; "
		    "for d in /dev/kfd /dev/dri/renderD130; do "
		    "test -r $d && test -w $d && echo \"$d rw\"; done");
	container_spec_add_device(&s, kfd, "/dev/kfd", "rwm");
	container_spec_add_device(&s, render, "/dev/dri/renderD130", "rwm");
	strvec_pushf(&s.group_add, "%u", (unsigned)st.st_gid);
	cr_assert_eq(engine_container_create(e, NULL, &s, &id, &err), 0, "%s", err.msg);
	container_spec_release(&s);
	cr_assert_eq(engine_container_start(e, id, &err), 0, "%s", err.msg);
	cr_assert_eq(engine_container_wait(e, id, "not-running", &code, &err), 0, "%s", err.msg);
	cr_assert_eq(engine_container_logs(e, id, false, on_frame, &out, &err), 0, "%s", err.msg);
	(void)engine_container_remove(e, id, true, ERROR_DISCARD);
	cr_assert_eq(code, 0, "%s", out.buf);
	/* the host group is not mapped into the user namespace: it shows as
	 * the overflow gid, but access is the host's */
	cr_assert(strstr(out.buf, "Groups:\t65534"), "%s", out.buf);
	cr_assert(strstr(out.buf, "/dev/kfd rw"), "%s", out.buf);
	cr_assert(strstr(out.buf, "/dev/dri/renderD130 rw"), "%s", out.buf);
	free(id);
	engine_close(e);
}

/* Whether any process's command line names dir. */
static bool process_names(const char *dir)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	bool found = false;

	while (d && (de = readdir(d))) {
		cleanup_free char *path = xasprintf("/proc/%s/cmdline", de->d_name);
		cleanup_strbuf struct strbuf cmd = STRBUF_INIT;
		FILE *f;
		char buf[4096];
		size_t n;

		if (de->d_name[0] < '0' || de->d_name[0] > '9' || !(f = fopen(path, "r")))
			continue;
		while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
			for (size_t i = 0; i < n; i++)
				strbuf_addch(&cmd, buf[i] ? buf[i] : ' ');
		fclose(f);
		if (strstr(cmd.buf, dir))
			found = true;
	}
	if (d)
		closedir(d);
	return found;
}

Test(podman, a_private_service_serves_one_replay_and_is_gone_after)
{
	cleanup_free char *pid_dir = fixture_pid_dir("pass");
	cleanup_free char *sock_dir = NULL;
	cleanup_cjson cJSON *run = NULL;
	struct tool_run r;
	const char *host;
	struct stat st;

	need_rootless_podman();
	tool_run(&r, (const char *const[]){ "--image", SIM_IMAGE, "--archive", pid_dir,
					    "--workdir", tenv.workdir, "--device-root", tenv.devroot,
					    "--sysfs-root", tenv.sysfs, "--format", "json", "-q",
					    "--engine", "podman-service", NULL },
		 (const char *const[]){ "DOCKER_HOST=unix:///nonexistent.sock", NULL });
	cr_assert_eq(r.status, 0, "%s", r.err.buf);
	run = read_json(r.run_dir, "run.json");
	host = json_str(cJSON_GetObjectItemCaseSensitive(run, "orchestrator"), "engine");
	cr_assert(strstr(host, "/hrr-podman-") && !strncmp(host, "unix://", 7), "%s", host);
	sock_dir = xstrdup(host + 7);
	*strrchr(sock_dir, '/') = '\0';
	cr_assert_neq(stat(sock_dir, &st), 0, "%s is left behind", sock_dir);
	cr_assert(!process_names(sock_dir), "the service of %s still runs", sock_dir);
	tool_run_release(&r);
}

Test(podman, without_docker_host_the_users_podman_is_found)
{
	cleanup_free char *pid_dir = fixture_pid_dir("pass");
	cleanup_cjson cJSON *run = NULL;
	struct tool_run r;
	const cJSON *orch;

	need_rootless_podman();
	if (access("/var/run/docker.sock", W_OK) == 0)
		tenv_skip("dockerd's socket is open to this user: it would be found first");
	tool_run(&r, (const char *const[]){ "--image", SIM_IMAGE, "--archive", pid_dir,
					    "--workdir", tenv.workdir, "--device-root", tenv.devroot,
					    "--sysfs-root", tenv.sysfs, "--format", "json", "-v", NULL },
		 (const char *const[]){ "DOCKER_HOST=", NULL });
	cr_assert_eq(r.status, 0, "%s", r.err.buf);
	cr_assert(strstr(r.err.buf, "engine: podman "), "-v names the engine:\n%s", r.err.buf);
	run = read_json(r.run_dir, "run.json");
	orch = cJSON_GetObjectItemCaseSensitive(run, "orchestrator");
	cr_assert(strstr(json_str(orch, "engine"), "/podman/podman.sock"), "%s",
		  json_str(orch, "engine"));
	cr_assert_str_eq(json_str(orch, "engine_name"), "podman");
	tool_run_release(&r);
}

/* A service whose containers.conf does not keep groups: the container is
 * created again through Podman's own API with the annotation, and the
 * replay still opens the nodes. */
Test(podman, without_the_keep_groups_line_the_replay_still_gets_the_gpus)
{
	cleanup_free char *pid_dir = fixture_pid_dir("pass");
	cleanup_free char *sysfs = NULL;
	cleanup_free char *conf = NULL;
	cleanup_free char *conf_env = NULL;
	char cwd[PATH_MAX];
	struct tool_run r;
	FILE *f;

	need_rootless_podman();
	cr_assert_not_null(getcwd(cwd, sizeof(cwd)));
	sysfs = xasprintf("%s/tests/fixtures/sysfs/mi300x-4", cwd);
	conf = xasprintf("%s/containers.conf", tenv.root);
	f = fopen(conf, "w");
	cr_assert_not_null(f);
	fputs("[engine]\ncgroup_manager = \"cgroupfs\"\nevents_logger = \"file\"\n"
	      "runtime = \"crun\"\n", f);
	fclose(f);
	conf_env = xasprintf("CONTAINERS_CONF=%s", conf);
	tool_run(&r, (const char *const[]){ "--image", SIM_IMAGE, "--archive", pid_dir,
					    "--workdir", tenv.workdir, "--device-root",
					    fake_gpu_root(), "--sysfs-root", sysfs, "--gpu", "3",
					    "--engine", "podman-service", "--format", "json", "-q",
					    NULL },
		 (const char *const[]){ conf_env, NULL });
	cr_assert_eq(r.status, 0, "%s", r.err.buf);
	tool_run_release(&r);
}

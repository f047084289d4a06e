/* Trustworthy on shared hosts (issue: forged verdicts, other users'
 * replays, the cache, the archive, option bounds, -o, run.json secrets, the
 * replay's uid, the replay's seccomp profile). Each test reproduces what a
 * review found, through the binary. */
#include <criterion/criterion.h>
#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/fsutil.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "docker/engine.h"
#include "tests/support/run_support.h"

TestSuite(harden, .init = tenv_init, .fini = tenv_fini, .timeout = 120);

#define REPLAY_ARGS(pid_dir, ...)                                                     \
	((const char *const[]){ "--image", SIM_IMAGE, "--archive", pid_dir, "--workdir", \
				tenv.workdir, "--device-root", tenv.devroot, "--sysfs-root",    \
				tenv.sysfs, "-q", __VA_ARGS__ })

static const cJSON *get(const cJSON *o, const char *k)
{
	return cJSON_GetObjectItemCaseSensitive(o, k);
}

static const char *str_of(const cJSON *o, const char *k)
{
	const cJSON *v = get(o, k);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* A copy of a fixture's capture root under the test's scratch area: a
 * test that may find the archive written must not write the repository. */
static char *copy_fixture(const char *scenario)
{
	cleanup_free char *root = fixture_root(scenario);
	char *copy = xasprintf("%s/capture-%s", tenv.root, scenario);
	cleanup_free char *cmd = xasprintf("cp -a '%s' '%s'", root, copy);

	cr_assert_eq(system(cmd), 0, "%s", cmd);
	return copy;
}

/* A copy of what the second user runs or reads from the source tree (the
 * tool, the sysfs fixture) in the test's scratch area, open to every
 * user: the checkout may be one they cannot enter (a clone under /root). */
static char *second_user_copy(const char *src, const char *name)
{
	char *copy = xasprintf("%s/%s", tenv.root, name);
	cleanup_free char *cmd = xasprintf("cp -r '%s' '%s' && chmod 755 '%s' && chmod -R a+rX '%s'",
					   src, copy, tenv.root, copy);

	cr_assert_eq(system(cmd), 0, "%s", cmd);
	return copy;
}

static char *second_user_bin(void)
{
	cleanup_free char *bin = realpath(getenv("HRR_BIN") ? getenv("HRR_BIN") :
					  "build/hrr-docker-replay", NULL);

	cr_assert_not_null(bin);
	return second_user_copy(bin, "hrr-docker-replay-2");
}

/* An overlay hrr-playback: a host script mounted at /opt/hrr/bin. */
static void overlay_env(const char *script_body, struct strvec *env)
{
	cleanup_free char *script = xasprintf("%s/playback.sh", tenv.root);
	cleanup_free char *clr = xasprintf("%s/clr-lib", tenv.root);
	cleanup_free char *lib = xasprintf("%s/libamdhip64.so.7.13.0-overlay", clr);
	cleanup_free char *text = xasprintf("#!/bin/sh\n%s\n", script_body);
	struct error err = { 0 };

	cr_assert_eq(fs_write_atomic(script, text, strlen(text), 0755, &err), 0, "%s", err.msg);
	cr_assert_eq(chmod(script, 0755), 0);
	mkdir(clr, 0755);
	cr_assert_eq(fs_write_atomic(lib, "", 0, 0644, &err), 0, "%s", err.msg);
	strvec_pushf(env, "HRR_PLAYBACK=%s", script);
	strvec_pushf(env, "CLR_LIB=%s", clr);
}

static char *log_of(const struct tool_run *r)
{
	cleanup_free char *path = NULL;
	struct strbuf log = STRBUF_INIT;

	cr_assert_not_null(r->run_dir, "%s", r->err.buf);
	path = xasprintf("%s/replay.log", r->run_dir);
	cr_assert(read_text(path, &log), "no %s", path);
	return strbuf_detach(&log, NULL);
}

/* 1: the log can say PASS; only the engine's exit status can confirm it. */
Test(harden, a_pass_log_with_a_nonzero_exit_status_is_not_pass)
{
	cleanup_free char *pid_dir = fixture_pid_dir("pass");
	struct strvec env = STRVEC_INIT;
	cleanup_cjson cJSON *finding = NULL;
	struct tool_run r;

	overlay_env("/opt/rocm/bin/hrr-playback \"$@\"\nexit 3", &env);
	tool_run(&r, REPLAY_ARGS(pid_dir, "--mount-clr", NULL), (const char *const *)env.v);
	cr_assert_eq(r.status, 1, "exit %d, want 1:\n%s", r.status, r.err.buf);
	finding = read_json(r.run_dir, "finding.json");
	cr_assert_not_null(finding);
	cr_assert_str_neq(str_of(finding, "outcome"), "PASS");
	tool_run_release(&r);
	strvec_clear(&env);
}

/* 6, 13, 10 and the profile: what the replay container is created with. */
Test(harden, the_replay_runs_the_inspected_image_as_the_caller_under_the_replay_profile)
{
	cleanup_free char *pid_dir = fixture_pid_dir("pass");
	cleanup_free char *want_user = xasprintf("%u:%u", (unsigned)getuid(), (unsigned)getgid());
	cleanup_cjson cJSON *run = NULL;
	const cJSON *spec, *opt;
	cleanup_free char *text = NULL;
	struct tool_run r;
	bool profile = false;

	tool_run(&r, REPLAY_ARGS(pid_dir, "-e", "HRR_TEST_SECRET=hunter2", NULL), NULL);
	cr_assert_eq(r.status, 0, "%s", r.err.buf);
	run = read_json(r.run_dir, "run.json");
	cr_assert_not_null(run);
	spec = get(get(run, "container"), "spec");
	cr_assert_str_eq(str_of(spec, "Image"), str_of(get(run, "image"), "id"),
			 "created from the inspected image's ID");
	cr_assert_str_eq(str_of(spec, "User"), want_user);
	cJSON_ArrayForEach(opt, get(get(spec, "HostConfig"), "SecurityOpt")) {
		if (strncmp(opt->valuestring, "seccomp=", 8) == 0)
			profile = strstr(opt->valuestring, "\"mbind\"") &&
				  !strstr(opt->valuestring, "\"ptrace\"");
	}
	cr_assert(profile, "no replay seccomp profile with mbind and without ptrace");
	text = cJSON_PrintUnformatted(run);
	cr_assert_null(strstr(text, "hunter2"), "a secret value in run.json");
	cr_assert(strstr(text, "HRR_TEST_SECRET"), "the variable's name is recorded");
	tool_run_release(&r);
}

/* The profile in force: the simulator's probe, run by the replay's own
 * entrypoint, says what the filter lets through and who it runs as. */
/* The uid the caller's replay must have inside: the caller's, except under
 * rootless Podman, where root inside is the caller outside. */
static unsigned callers_uid_inside(const cJSON *run)
{
	const char *engine = str_of(get(run, "orchestrator"), "engine_name");

	return engine && !strcmp(engine, "podman") && getuid() != 0 ? 0 : (unsigned)getuid();
}

Test(harden, inside_the_replay_mbind_is_allowed_ptrace_denied_and_the_uid_is_the_callers)
{
	cleanup_free char *pid_dir = fixture_pid_dir("pass");
	cleanup_free char *want_uid = NULL;
	cleanup_free char *log = NULL;
	cleanup_cjson cJSON *run = NULL;
	struct strvec env = STRVEC_INIT;
	struct tool_run r;

	overlay_env("/opt/rocm/bin/hrr-playback --probe-syscalls\n"
		    "exec /opt/rocm/bin/hrr-playback \"$@\"", &env);
	tool_run(&r, REPLAY_ARGS(pid_dir, "--mount-clr", NULL), (const char *const *)env.v);
	cr_assert_eq(r.status, 0, "%s", r.err.buf);
	log = log_of(&r);
	run = read_json(r.run_dir, "run.json");
	cr_assert_not_null(run);
	want_uid = xasprintf("probe: uid=%u ", callers_uid_inside(run));
	cr_assert(strstr(log, "probe: mbind ok"), "%s", log);
	cr_assert(strstr(log, "probe: set_mempolicy ok"), "%s", log);
	cr_assert(strstr(log, "probe: ptrace EPERM"), "%s", log);
	cr_assert(strstr(log, want_uid), "want '%s' in:\n%s", want_uid, log);
	tool_run_release(&r);
	strvec_clear(&env);
}

Test(harden, seccomp_default_and_unconfined_are_the_engines)
{
	cleanup_free char *pid_dir = fixture_pid_dir("pass");
	struct tool_run r;
	cleanup_cjson cJSON *run = NULL;
	const cJSON *opt;
	int seen = 0;

	tool_run(&r, REPLAY_ARGS(pid_dir, "--seccomp", "unconfined", NULL), NULL);
	cr_assert_eq(r.status, 0, "%s", r.err.buf);
	run = read_json(r.run_dir, "run.json");
	cJSON_ArrayForEach(opt, get(get(get(get(run, "container"), "spec"), "HostConfig"),
				    "SecurityOpt"))
		seen += strcmp(opt->valuestring, "seccomp=unconfined") == 0;
	cr_assert_eq(seen, 1);
	cr_assert_str_eq(str_of(get(run, "seccomp"), "mode"), "unconfined");
	tool_run_release(&r);
}

/* 5: the cache is per user and refused when someone else owns it. */
Test(harden, a_cache_planted_by_another_user_is_refused)
{
	cleanup_free char *pid_dir = fixture_pid_dir("pass");
	cleanup_free char *cache = xasprintf("%s/cache", tenv.workdir);
	cleanup_free char *mine = xasprintf("%s/%u", cache, (unsigned)getuid());
	struct tool_run r;

	cr_assert_eq(mkdir(cache, 0755), 0);
	cr_assert_eq(mkdir(mine, 0700), 0);
	cr_assert_eq(chown(mine, 4242, 4242), 0);
	tool_run(&r, REPLAY_ARGS(pid_dir, NULL), NULL);
	cr_assert_eq(r.status, 5, "exit %d:\n%s", r.status, r.err.buf);
	cr_assert(strstr(r.err.buf, mine), "%s", r.err.buf);
	tool_run_release(&r);
}

/* 7: the archive is never written, whatever the workdir's spelling. */
Test(harden, a_workdir_reaching_the_archive_through_dotdot_or_tmpdir_is_refused)
{
	cleanup_free char *root = copy_fixture("pass");
	cleanup_free char *pid_dir = xasprintf("%s/pid-4242", root);
	cleanup_free char *sneaky = xasprintf("%s/missing/..%s/x", tenv.root,
					       pid_dir + strlen(tenv.root));
	cleanup_free char *tmpdir = xasprintf("TMPDIR=%s", pid_dir);
	const char *const by_dotdot[] = { "--image", SIM_IMAGE, "--archive", pid_dir, "--workdir",
					  sneaky, "--device-root", tenv.devroot, "--sysfs-root",
					  tenv.sysfs, "-q", NULL };
	const char *const by_tmpdir[] = { "--image", SIM_IMAGE, "--archive", pid_dir,
					  "--device-root", tenv.devroot, "--sysfs-root",
					  tenv.sysfs, "-q", NULL };
	uint64_t before = tree_hash(root);
	struct tool_run r;

	tool_run(&r, by_dotdot, NULL);
	cr_assert_eq(r.status, 64, "exit %d:\n%s", r.status, r.err.buf);
	cr_assert(strstr(r.err.buf, "inside the archive"), "%s", r.err.buf);
	tool_run_release(&r);
	cr_assert_eq(tree_hash(root), before, "--workdir with .. wrote the archive");
	tool_run(&r, by_tmpdir, (const char *const[]){ tmpdir, NULL });
	cr_assert_eq(r.status, 64, "exit %d:\n%s", r.status, r.err.buf);
	tool_run_release(&r);
	cr_assert_eq(tree_hash(root), before, "TMPDIR inside the archive wrote it");
}

/* 8: every option within what the code can hold. */
Test(harden, seconds_beyond_what_the_code_holds_are_usage_errors)
{
	cleanup_free char *pid_dir = fixture_pid_dir("pass");
	static const char *const opts[] = { "--stop-grace", "--timeout", "--progress-timeout",
					    "--progress-seconds" };

	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
		struct tool_run r;

		tool_run(&r, REPLAY_ARGS(pid_dir, opts[i], "99999999999", NULL), NULL);
		cr_assert_eq(r.status, 64, "%s: exit %d:\n%s", opts[i], r.status, r.err.buf);
		tool_run_release(&r);
	}
}

/* 9: -o never follows a link, and a run without a verdict leaves an
 * earlier finding at PATH alone. */
Test(harden, output_replaces_a_planted_link_and_a_blocked_run_keeps_an_earlier_finding)
{
	cleanup_free char *pid_dir = fixture_pid_dir("pass");
	cleanup_free char *victim = xasprintf("%s/victim", tenv.root);
	cleanup_free char *out = xasprintf("%s/finding.md", tenv.root);
	cleanup_strbuf struct strbuf text = STRBUF_INIT;
	struct error err = { 0 };
	struct tool_run r;
	struct stat st;

	cr_assert_eq(fs_write_atomic(victim, "precious\n", 9, 0644, &err), 0, "%s", err.msg);
	cr_assert_eq(symlink(victim, out), 0);
	tool_run(&r, REPLAY_ARGS(pid_dir, "-o", out, NULL), NULL);
	cr_assert_eq(r.status, 0, "%s", r.err.buf);
	tool_run_release(&r);
	cr_assert(read_text(victim, &text));
	cr_assert_str_eq(text.buf, "precious\n", "-o followed the planted link");
	cr_assert_eq(lstat(out, &st), 0);
	cr_assert(S_ISREG(st.st_mode));

	/* A run stopped by preflight (no GPU 7): the earlier finding stays. */
	tool_run(&r, REPLAY_ARGS(pid_dir, "-o", out, "--gpu", "7", NULL), NULL);
	cr_assert_eq(r.status, 4, "exit %d:\n%s", r.status, r.err.buf);
	tool_run_release(&r);
	strbuf_reset(&text);
	cr_assert(read_text(out, &text));
	cr_assert(strstr(text.buf, "PASS"), "the earlier finding was truncated: '%s'", text.buf);
}

/* gc --all as the second user, from /, with probes stale at once. */
static void gc_as_second_user(const struct passwd *pw)
{
	cleanup_free char *bin = second_user_bin();
	cleanup_free char *cmd = NULL;

	cmd = xasprintf("cd / && HRR_GC_PROBE_AGE=0 setpriv --reuid %u --regid %u --init-groups "
			"'%s' gc --all -q >/dev/null 2>&1", (unsigned)pw->pw_uid,
			(unsigned)pw->pw_gid, bin);
	cr_assert_eq(WEXITSTATUS(system(cmd)), 0, "%s", cmd);
}

static struct passwd *second_user(void)
{
	const char *user = getenv("HRR_TEST_USER2") ? getenv("HRR_TEST_USER2") : "hrrtest2";
	struct passwd *pw = getpwnam(user);

	cr_assert_not_null(pw, "no %s: run tests/setup.sh", user);
	return pw;
}

/* 4: gc as another user touches nothing of ours: a kept replay, a stale
 * probe. */
Test(harden, gc_as_another_user_leaves_our_kept_replays_and_probes)
{
	cleanup_free char *pid_dir = fixture_pid_dir("pass");
	struct passwd *pw = second_user();
	struct engine *e = NULL;
	struct error err = { 0 };
	cleanup_free char *probe = NULL;
	struct tool_run r;

	cr_assert_eq(engine_open(&e, NULL, &err), 0, "%s", err.msg);
	probe = create_probe_like(e);
	tool_run(&r, REPLAY_ARGS(pid_dir, "--keep", NULL), NULL);
	cr_assert_eq(r.status, 0, "%s", r.err.buf);
	tool_run_release(&r);
	cr_assert_eq(count_tool_containers(tenv.workdir), 1, "the kept container");
	gc_as_second_user(pw);
	cr_assert_eq(count_tool_containers(tenv.workdir), 1,
		     "gc --all as %s removed our kept replay", pw->pw_name);
	cr_assert_eq(engine_container_inspect(e, probe, NULL, &err), 0,
		     "gc as %s removed our stale probe", pw->pw_name);
	(void)engine_container_remove(e, probe, true, &err);
	engine_close(e);
	remove_tool_containers(tenv.workdir);
}

/* A replay of the hang fixture under way (its container exists), and its
 * end by Ctrl-C with the spawn's files removed. */
static pid_t live_replay(char *dir)
{
	cleanup_free char *pid_dir = fixture_pid_dir("hang");
	cleanup_free char *id = NULL;
	pid_t pid;

	cr_assert_not_null(mkdtemp(dir));
	pid = tool_spawn(REPLAY_ARGS(pid_dir, "--timeout", "0", NULL), NULL, dir);
	id = wait_for_tool_container(tenv.workdir, 30);
	cr_assert_not_null(id);
	return pid;
}

static void end_live_replay(pid_t pid, const char *dir)
{
	cleanup_free char *out = xasprintf("%s/stdout", dir);
	cleanup_free char *errp = xasprintf("%s/stderr", dir);

	kill(pid, SIGINT);
	tool_wait(pid, 60);
	unlink(out);
	unlink(errp);
	rmdir(dir);
}

/* 3, 4: and a live replay of ours. */
Test(harden, gc_as_another_user_leaves_our_live_replay)
{
	char dir[] = "/tmp/hrr-live-XXXXXX";
	pid_t pid = live_replay(dir);

	gc_as_second_user(second_user());
	cr_assert_eq(count_tool_containers(tenv.workdir), 1, "gc as another user removed our live replay");
	end_live_replay(pid, dir);
}

/* 3: a gc that cannot see the owner (here: run in another pid namespace,
 * where the owner's pid names nobody) does not take it for dead. */
Test(harden, gc_from_another_pid_namespace_leaves_a_live_replay)
{
	cleanup_free char *bin = realpath(getenv("HRR_BIN") ? getenv("HRR_BIN") :
					  "build/hrr-docker-replay", NULL);
	char dir[] = "/tmp/hrr-pidns-XXXXXX";
	cleanup_free char *cmd = NULL;
	pid_t pid;

	cr_assert_not_null(bin);
	pid = live_replay(dir);
	cmd = xasprintf("unshare --pid --fork --mount-proc '%s' gc --all -q >/dev/null 2>&1", bin);
	cr_assert_eq(WEXITSTATUS(system(cmd)), 0, "%s", cmd);
	cr_assert_eq(count_tool_containers(tenv.workdir), 1,
		     "gc in another pid namespace removed a live replay");
	end_live_replay(pid, dir);
}

/* 13: a non-root caller's replay runs as that caller, reaches the GPU nodes
 * through their group (one the caller is not even in), and writes nothing
 * as root. */
Test(harden, a_second_users_replay_runs_as_that_user_with_the_device_group)
{
	struct passwd *pw = second_user();
	cleanup_free char *root = copy_fixture("pass");
	cleanup_free char *work = xasprintf("%s/work2", tenv.root);
	cleanup_free char *dev = xasprintf("%s/dev2", tenv.root);
	cleanup_free char *bin = second_user_bin();
	cleanup_free char *sysfs = second_user_copy(tenv.sysfs, "sysfs2");
	cleanup_free char *cmd = NULL, *want_user = NULL, *text = NULL;
	cleanup_cjson cJSON *run = NULL;
	const cJSON *groups, *g;
	glob_t dirs;
	bool has_group = false;

	/* The test's GPU lease directory is shared as a site's would be:
	 * sticky and open to every user. */
	cmd = xasprintf("set -e; chmod 755 '%s'; chmod -R a+rX '%s'; mkdir -p '%s' '%s/dri';"
			"mkdir -p \"$HRR_LOCK_DIR\"; chmod 1777 \"$HRR_LOCK_DIR\";"
			"chown %u:%u '%s'; mknod -m 660 '%s/kfd' c 1 3;"
			"mknod -m 660 '%s/dri/renderD128' c 226 128;"
			"mknod -m 660 '%s/dri/renderD136' c 226 136; chgrp -R 4343 '%s'",
			tenv.root, root, work, dev, (unsigned)pw->pw_uid, (unsigned)pw->pw_gid, work,
			dev, dev, dev, dev);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	free(cmd);
	cmd = xasprintf("cd / && setpriv --reuid %u --regid %u --init-groups '%s' --image %s "
			"--archive '%s' --workdir '%s' --device-root '%s' --sysfs-root '%s' -q "
			">/dev/null 2>&1", (unsigned)pw->pw_uid, (unsigned)pw->pw_gid, bin, SIM_IMAGE,
			root, work, dev, sysfs);
	cr_assert_eq(WEXITSTATUS(system(cmd)), 0, "%s", cmd);
	text = xasprintf("%s/pid-*", work);
	cr_assert_eq(glob(text, 0, NULL, &dirs), 0);
	run = read_json(dirs.gl_pathv[0], "run.json");
	globfree(&dirs);
	cr_assert_not_null(run);
	want_user = xasprintf("%u:%u", (unsigned)pw->pw_uid, (unsigned)pw->pw_gid);
	cr_assert_str_eq(str_of(get(get(run, "container"), "spec"), "User"), want_user);
	groups = get(get(get(get(run, "container"), "spec"), "HostConfig"), "GroupAdd");
	cJSON_ArrayForEach(g, groups)
		has_group |= cJSON_IsString(g) && strcmp(g->valuestring, "4343") == 0;
	cr_assert(has_group, "the device nodes' group is added");
}

/* --seccomp FILE: a missing or invalid profile is a usage error before any
 * run folder exists. */
Test(harden, a_bad_seccomp_file_is_a_usage_error_without_a_run_folder)
{
	cleanup_free char *pid_dir = fixture_pid_dir("pass");
	cleanup_free char *bad = xasprintf("%s/site-profile.json", tenv.root);
	struct error err = { 0 };
	const char *const files[] = { "/nonexistent/profile.json", bad };
	struct tool_run r;

	static const char profile[] = "{\"defaultAction\":\"SCMP_ACT_ERRNO\",\"syscalls\":"
				      "[{\"names\":[\"frobnicate\"],\"action\":\"SCMP_ACT_ALLOW\"}]}";

	cr_assert_eq(fs_write_atomic(bad, profile, sizeof(profile) - 1, 0644, &err), 0, "%s",
		     err.msg);
	for (size_t i = 0; i < 2; i++) {
		tool_run(&r, REPLAY_ARGS(pid_dir, "--seccomp", files[i], NULL), NULL);
		cr_assert_eq(r.status, 64, "exit %d:\n%s", r.status, r.err.buf);
		cr_assert(strstr(r.err.buf, files[i]), "%s", r.err.buf);
		cr_assert_null(r.run_dir, "a run folder was made");
		tool_run_release(&r);
	}
}

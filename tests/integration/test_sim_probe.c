/* The replay container's seccomp profile on a real engine: the simulator's
 * --probe-syscalls mode makes the NUMA policy calls and a ptrace attach and
 * says what the filter let through, and which uid/gid/groups it runs as.
 * Uses the docker CLI (--security-opt seccomp=<file>): this tests the
 * profile and the image, not the engine client. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <string.h>

#include "common/fsutil.h"
#include "common/strbuf.h"
#include "common/strvec.h"
#include "orchestrator/seccomp/seccomp_json.h"
#include "orchestrator/seccomp/seccomp_profile.h"
#include "tests/support/sim_run.h"

static const char *const numa[] = { "mbind", "set_mempolicy", "get_mempolicy", "move_pages" };

/* The profile for amd64 (this engine), written to <dir>/profile.json. */
static void write_profile(const char *dir, bool ptrace, struct strbuf *path)
{
	struct seccomp_profile_opts o = { .allow_ptrace = ptrace, .strict = true };
	struct strbuf json = STRBUF_INIT;
	struct error err = { 0 };
	struct sim_result r;
	const char *arch[] = { "docker", "version", "-f", "{{.Server.Arch}}", NULL };

	sim_result_init(&r);
	cr_assert_eq(sim_run(arch, NULL, 30, &r, &err), 0, "%s", err.msg);
	strbuf_trim_trailing_newline(&r.out);
	cr_assert_eq(seccomp_arch_from_engine(r.out.buf, &o.arch, &err), 0, "%s", err.msg);
	cr_assert_eq(seccomp_profile_build(&o, &json, NULL, &err), 0, "%s", err.msg);
	strbuf_addf(path, "%s/profile.json", dir);
	cr_assert_eq(fs_write_atomic(path->buf, json.buf, json.len, 0644, &err), 0, "%s", err.msg);
	strbuf_release(&json);
	sim_result_release(&r);
}

/* docker run --rm --cap-drop ALL --security-opt no-new-privileges
 *   [--security-opt seccomp=<profile>] [--user U --group-add G]
 *   SIM_RUN_IMAGE hrr-playback --probe-syscalls */
static void probe(const char *profile, const char *user, const char *group,
		  struct sim_result *r)
{
	struct strvec argv = STRVEC_INIT;
	struct error err = { 0 };

	strvec_pushv(&argv, (const char *const[]){ "docker", "run", "--rm", "--network", "none",
			     "--cap-drop", "ALL", "--security-opt", "no-new-privileges", NULL });
	if (profile)
		strvec_pushf(&argv, "--security-opt=seccomp=%s", profile);
	if (user)
		strvec_pushv(&argv, (const char *const[]){ "--user", user, "--group-add", group,
				     NULL });
	strvec_pushv(&argv, (const char *const[]){ SIM_RUN_IMAGE, "/opt/rocm/bin/hrr-playback",
			     "--probe-syscalls", NULL });
	sim_result_init(r);
	cr_assert_eq(sim_run((const char *const *)argv.v, NULL, 60, r, &err), 0, "%s", err.msg);
	cr_assert_eq(r->status, 0, "%s", r->all.buf);
	strvec_clear(&argv);
}

static void expect(const struct sim_result *r, const char *name, const char *result)
{
	char line[128];

	snprintf(line, sizeof(line), "probe: %s %s\n", name, result);
	cr_assert(strstr(r->out.buf, line), "want '%s' in:\n%s", line, r->out.buf);
}

/* The ids line says uid 4242, gid 4243 and lists group g. */
static bool has_group(const char *out, const char *g)
{
	struct strbuf line = STRBUF_INIT;
	bool found = false;
	char *save = NULL;

	cr_assert(sim_find_line(out, "probe: uid=4242 gid=4243 groups=", &line), "%s", out);
	for (char *t = strtok_r(strstr(line.buf, "groups=") + 7, ",", &save); t;
	     t = strtok_r(NULL, ",", &save))
		found |= strcmp(t, g) == 0;
	strbuf_release(&line);
	return found;
}

Test(sim_probe, the_default_profile_denies_numa_calls_without_cap_sys_nice)
{
	struct sim_result r;

	probe(NULL, NULL, NULL, &r);
	for (size_t i = 0; i < 4; i++)
		expect(&r, numa[i], "EPERM");
	sim_result_release(&r);
}

/* probe() under this module's profile, from a scratch directory. */
static void probe_replay_profile(bool ptrace, const char *user, const char *group,
				 struct sim_result *r)
{
	struct strbuf dir = STRBUF_INIT, path = STRBUF_INIT;
	struct error err = { 0 };

	cr_assert_eq(sim_tmpdir(&dir, &err), 0, "%s", err.msg);
	write_profile(dir.buf, ptrace, &path);
	probe(path.buf, user, group, r);
	sim_rmtree(dir.buf);
	strbuf_release(&dir);
	strbuf_release(&path);
}

Test(sim_probe, the_replay_profile_allows_numa_calls_and_denies_ptrace)
{
	struct sim_result r;

	probe_replay_profile(false, NULL, NULL, &r);
	for (size_t i = 0; i < 4; i++)
		expect(&r, numa[i], "ok");
	expect(&r, "ptrace", "EPERM");
	sim_result_release(&r);
}

Test(sim_probe, ptrace_only_in_the_hang_diagnostic_profile_and_ids_as_given)
{
	struct sim_result r;

	probe_replay_profile(true, "4242:4243", "44", &r);
	expect(&r, "ptrace", "ok");
	expect(&r, "mbind", "ok");
	cr_assert(has_group(r.out.buf, "44"), "%s", r.out.buf);
	sim_result_release(&r);
}

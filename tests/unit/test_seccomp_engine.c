/* orchestrator/seccomp/seccomp_engine.c: --seccomp on a (fake) engine's architecture. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fsutil.h"
#include "common/xalloc.h"
#include "docker/engine.h"
#include "orchestrator/seccomp/seccomp_json.h"
#include "orchestrator/seccomp/seccomp_profile.h"
#include "tests/support/fake_engine.h"
#include "tests/support/scratch.h"

static struct fake_engine *fe;
static struct engine *e;

/* An engine reporting arch on /version. */
static void engine_of(const char *arch)
{
	struct error err = { 0 };
	char body[128];

	fe = fake_engine_start();
	fake_engine_route_json(fe, "GET /_ping", 200, "Api-Version: 1.41", "OK");
	snprintf(body, sizeof(body), "{\"ApiVersion\":\"1.41\",\"Arch\":\"%s\"}", arch);
	fake_engine_route_json(fe, "GET /v1.41/version", 200, NULL, body);
	cr_assert_eq(engine_open(&e, fake_engine_host(fe), &err), 0, "%s", err.msg);
}

static void done(void)
{
	engine_close(e);
	fake_engine_stop(fe);
}

/* The SecurityOpt entry the spec would carry: "seccomp=<profile>" (as
 * docker/ writes it for dockerd) or the option itself. */
static int option_for(const char *arg, char **opt, cJSON **record, struct error *err)
{
	struct seccomp_choice c;
	struct seccomp_record *rec = NULL;
	char *profile = NULL;
	int r;

	cr_assert_eq(seccomp_choice_parse(arg, &c, err), 0);
	r = seccomp_engine_option(e, &c, false, &profile, opt, &rec, NULL, err);
	*record = rec ? seccomp_record_to_json(rec) : NULL;
	seccomp_record_free(rec);
	if (r == 0 && profile) {
		cr_assert_null(*opt);
		*opt = xasprintf("seccomp=%s", profile);
		free(profile);
	}
	seccomp_choice_release(&c);
	return r;
}

Test(seccomp_engine, replay_is_the_profile_for_the_engines_arch, .fini = done)
{
	struct error err = { 0 };
	char *opt = NULL;
	cJSON *record = NULL;

	engine_of("arm64");
	cr_assert_eq(option_for("replay", &opt, &record, &err), 0, "%s", err.msg);
	cr_assert(!strncmp(opt, "seccomp={", 9), "%s", opt);
	cr_assert(strstr(opt, "SCMP_ARCH_AARCH64"), "%s", opt);
	cr_assert(strstr(opt, "\"mbind\""));
	cr_assert_str_eq(cJSON_GetObjectItem(record, "mode")->valuestring, "replay");
	cr_assert_not_null(cJSON_GetObjectItem(record, "profile"));
	free(opt);
	cJSON_Delete(record);
}

Test(seccomp_engine, default_adds_nothing_and_unconfined_says_so, .fini = done)
{
	struct error err = { 0 };
	char *opt = NULL;
	cJSON *record = NULL;

	engine_of("amd64");
	cr_assert_eq(option_for("default", &opt, &record, &err), 0, "%s", err.msg);
	cr_assert_null(opt);
	cr_assert_str_eq(cJSON_GetObjectItem(record, "mode")->valuestring, "default");
	cJSON_Delete(record);
	cr_assert_eq(option_for("unconfined", &opt, &record, &err), 0, "%s", err.msg);
	cr_assert_str_eq(opt, "seccomp=unconfined");
	free(opt);
	cJSON_Delete(record);
}

Test(seccomp_engine, a_site_file_is_checked_and_an_unknown_arch_refused, .fini = done)
{
	char *dir = scratch_dir("seccomp");
	char good[512], bad[512];
	struct error err = { 0 };
	char *opt = NULL;
	cJSON *record = NULL;
	const char *g = "{\"defaultAction\":\"SCMP_ACT_ERRNO\",\n\"syscalls\":[{\"names\":[\"read\"],"
			"\"action\":\"SCMP_ACT_ALLOW\"}]}";

	snprintf(good, sizeof(good), "%s/good.json", dir);
	snprintf(bad, sizeof(bad), "%s/bad.json", dir);
	cr_assert_eq(fs_write_atomic(good, g, strlen(g), 0644, &err), 0);
	cr_assert_eq(fs_write_atomic(bad, "{\"syscalls\":[]}", 15, 0644, &err), 0);
	engine_of("amd64");
	cr_assert_eq(option_for(good, &opt, &record, &err), 0, "%s", err.msg);
	cr_assert_null(strchr(opt, '\n'), "compacted: %s", opt);
	cr_assert_str_eq(cJSON_GetObjectItem(record, "path")->valuestring, good);
	free(opt);
	cJSON_Delete(record);
	cr_assert_lt(option_for(bad, &opt, &record, &err), 0);
	cr_assert_eq(err.kind, ERR_USAGE);
	cr_assert(strstr(err.msg, "defaultAction"), "%s", err.msg);
	scratch_remove(dir);
	free(dir);
}

Test(seccomp_engine, an_engine_arch_without_a_profile_is_refused, .fini = done)
{
	struct error err = { 0 };
	char *opt = NULL;
	cJSON *record = NULL;

	engine_of("riscv64");
	cr_assert_lt(option_for("replay", &opt, &record, &err), 0);
	cr_assert(strstr(err.msg, "riscv64"), "%s", err.msg);
	cr_assert(strstr(err.msg, "--seccomp default"), "%s", err.msg);
}

Test(seccomp_engine, podman_on_a_unix_socket_is_not_asked_its_version)
{
	struct error err = { 0 };
	char *arch = NULL, *req;

	fe = fake_engine_start();
	fake_engine_route_str(fe, "GET /_ping",
			      "HTTP/1.1 200 OK\r\nApi-Version: 1.41\r\nLibpod-Api-Version: 4.3.1\r\n"
			      "Content-Length: 2\r\nConnection: close\r\n\r\nOK");
	fake_engine_route_json(fe, "GET /v1.41/version", 200, NULL, "{\"Arch\":\"riscv64\"}");
	cr_assert_eq(engine_open(&e, fake_engine_host(fe), &err), 0, "%s", err.msg);
	cr_assert_eq(engine_arch(e, &arch, &err), 0, "%s", err.msg);
	cr_assert_str_neq(arch, "riscv64", "the kernel's, not the answer's");
	req = fake_engine_find_request(fe, "GET /v1.41/version");
	cr_assert_null(req, "Podman's slow /version was asked");
	free(arch);
	done();
}

Test(seccomp_engine, uname_machines_are_named_as_go_names_them)
{
	cr_assert_str_eq(engine_goarch("x86_64"), "amd64");
	cr_assert_str_eq(engine_goarch("aarch64"), "arm64");
	cr_assert_str_eq(engine_goarch("ppc64le"), "ppc64le");
	cr_assert_str_eq(engine_goarch("s390x"), "s390x");
}

/* orchestrator/seccomp/seccomp_profile: the replay container's profile, --seccomp
 * parsing and site profile validation. */
#include <criterion/criterion.h>
#include <seccomp.h>
#include <stdlib.h>
#include <string.h>

#include "orchestrator/seccomp/seccomp_json.h"
#include "orchestrator/seccomp/seccomp_profile.h"

static const char *const engine_arches[] = { "amd64", "arm64", "ppc64le", "s390x" };

static cJSON *build(const char *engine_arch, bool ptrace, struct strvec *notes)
{
	struct seccomp_profile_opts o = { .allow_ptrace = ptrace, .strict = true };
	struct strbuf json = STRBUF_INIT;
	struct error err = { 0 };
	cJSON *root;

	cr_assert_eq(seccomp_arch_from_engine(engine_arch, &o.arch, &err), 0, "%s", err.msg);
	cr_assert_eq(seccomp_profile_build(&o, &json, notes, &err), 0, "%s: %s", engine_arch,
		     err.msg);
	root = cJSON_Parse(json.buf);
	cr_assert_not_null(root, "%s", json.buf);
	strbuf_release(&json);
	return root;
}

/* The action of the unconditional allow rule that names `name`, or NULL. */
static const char *allowed_by(const cJSON *root, const char *name)
{
	const cJSON *rule, *n;

	cJSON_ArrayForEach(rule, cJSON_GetObjectItem(root, "syscalls")) {
		if (cJSON_GetObjectItem(rule, "args"))
			continue;
		cJSON_ArrayForEach(n, cJSON_GetObjectItem(rule, "names")) {
			if (strcmp(n->valuestring, name) == 0)
				return cJSON_GetObjectItem(rule, "action")->valuestring;
		}
	}
	return NULL;
}

Test(seccomp_profile, choice_names_modes_and_takes_anything_else_as_a_file)
{
	static const struct { const char *arg; enum seccomp_mode mode; } cases[] = {
		{ "default", SECCOMP_MODE_DEFAULT }, { "replay", SECCOMP_MODE_REPLAY },
		{ "unconfined", SECCOMP_MODE_UNCONFINED }, { "./site.json", SECCOMP_MODE_FILE },
		{ "Default", SECCOMP_MODE_FILE },
	};
	struct error err = { 0 };

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct seccomp_choice c;

		cr_assert_eq(seccomp_choice_parse(cases[i].arg, &c, &err), 0);
		cr_assert_eq(c.mode, cases[i].mode, "%s", cases[i].arg);
		if (c.mode == SECCOMP_MODE_FILE)
			cr_assert_str_eq(c.path, cases[i].arg);
		else
			cr_assert_null(c.path);
		seccomp_choice_release(&c);
	}
}

Test(seccomp_profile, an_empty_choice_is_a_usage_error)
{
	struct seccomp_choice c;
	struct error err = { 0 };

	cr_assert_lt(seccomp_choice_parse("", &c, &err), 0);
	cr_assert_eq(err.kind, ERR_USAGE);
	cr_assert(strstr(err.msg, "unconfined"));
}

Test(seccomp_profile, engine_arches_map_to_libseccomp_tokens)
{
	static const uint32_t want[] = { SCMP_ARCH_X86_64, SCMP_ARCH_AARCH64, SCMP_ARCH_PPC64LE,
					 SCMP_ARCH_S390X };
	struct error err = { 0 };
	uint32_t t;

	for (size_t i = 0; i < 4; i++) {
		cr_assert_eq(seccomp_arch_from_engine(engine_arches[i], &t, &err), 0);
		cr_assert_eq(t, want[i], "%s", engine_arches[i]);
	}
	cr_assert_lt(seccomp_arch_from_engine("riscv64", &t, &err), 0);
	cr_assert_eq(err.kind, ERR_USAGE);
	cr_assert(strstr(err.msg, "riscv64"));
}

/* strict: every name in the lists is one libseccomp knows, on every
 * architecture the engine can report. */
Test(seccomp_profile, every_listed_name_is_known_on_every_arch)
{
	for (size_t i = 0; i < 4; i++) {
		struct strvec notes = STRVEC_INIT;
		cJSON *root = build(engine_arches[i], true, &notes);

		for (size_t k = 0; k < notes.n; k++)
			cr_assert(strstr(notes.v[k], "not a syscall"), "%s", notes.v[k]);
		cJSON_Delete(root);
		strvec_clear(&notes);
	}
}

Test(seccomp_profile, denies_by_default_with_eperm_and_maps_the_arch)
{
	struct strvec notes = STRVEC_INIT;
	cJSON *root = build("amd64", false, &notes);
	cJSON *map = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "archMap"), 0);

	cr_assert_str_eq(cJSON_GetObjectItem(root, "defaultAction")->valuestring, "SCMP_ACT_ERRNO");
	cr_assert_eq(cJSON_GetObjectItem(root, "defaultErrnoRet")->valueint, 1);
	cr_assert_str_eq(cJSON_GetObjectItem(map, "architecture")->valuestring, "SCMP_ARCH_X86_64");
	cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(map, "subArchitectures")), 2);
	/* 32-bit x86 names count through the compat sub-architecture, and the
	 * socket calls x86 multiplexes through socketcall resolve there. */
	cr_assert_eq(notes.n, 0, "%s", notes.n ? notes.v[0] : "");
	cr_assert_str_eq(allowed_by(root, "chown32"), "SCMP_ACT_ALLOW");
	cr_assert_str_eq(allowed_by(root, "recv"), "SCMP_ACT_ALLOW");
	strvec_clear(&notes);
	cJSON_Delete(root);
}

Test(seccomp_profile, numa_calls_are_allowed_and_ptrace_is_not)
{
	static const char *const numa[] = { "mbind", "set_mempolicy", "get_mempolicy",
					    "move_pages" };
	cJSON *root = build("amd64", false, NULL);

	for (size_t i = 0; i < 4; i++)
		cr_assert_str_eq(allowed_by(root, numa[i]), "SCMP_ACT_ALLOW", "%s", numa[i]);
	cr_assert_null(allowed_by(root, "ptrace"));
	cr_assert_null(allowed_by(root, "process_vm_readv"));
	/* What the default profile denies stays denied. */
	cr_assert_null(allowed_by(root, "mount"));
	cr_assert_null(allowed_by(root, "unshare"));
	cr_assert_null(allowed_by(root, "bpf"));
	cr_assert_null(allowed_by(root, "io_uring_setup"));
	cr_assert_str_eq(allowed_by(root, "read"), "SCMP_ACT_ALLOW");
	cr_assert_str_eq(allowed_by(root, "arch_prctl"), "SCMP_ACT_ALLOW");
	cJSON_Delete(root);
}

Test(seccomp_profile, ptrace_only_when_asked)
{
	cJSON *root = build("arm64", true, NULL);

	cr_assert_str_eq(allowed_by(root, "ptrace"), "SCMP_ACT_ALLOW");
	cr_assert_str_eq(allowed_by(root, "process_vm_readv"), "SCMP_ACT_ALLOW");
	cr_assert_str_eq(allowed_by(root, "mbind"), "SCMP_ACT_ALLOW");
	cJSON_Delete(root);
}

Test(seccomp_profile, clone_without_namespaces_and_clone3_enosys)
{
	cJSON *root = build("s390x", false, NULL);
	const cJSON *rule;
	int seen = 0;

	cJSON_ArrayForEach(rule, cJSON_GetObjectItem(root, "syscalls")) {
		const char *name = cJSON_GetArrayItem(cJSON_GetObjectItem(rule, "names"), 0)->valuestring;
		const cJSON *arg = cJSON_GetArrayItem(cJSON_GetObjectItem(rule, "args"), 0);

		if (strcmp(name, "clone") == 0) {
			/* s390x passes clone's flags second. */
			cr_assert_eq(cJSON_GetObjectItem(arg, "index")->valueint, 1);
			cr_assert_eq(cJSON_GetObjectItem(arg, "value")->valuedouble, 0x7E020000);
			cr_assert_str_eq(cJSON_GetObjectItem(arg, "op")->valuestring,
					 "SCMP_CMP_MASKED_EQ");
			seen |= 1;
		} else if (strcmp(name, "clone3") == 0) {
			cr_assert_eq(cJSON_GetObjectItem(rule, "errnoRet")->valueint, 38);
			seen |= 2;
		}
	}
	cr_assert_eq(seen, 3);
	cJSON_Delete(root);
}

/* Every name in the built profile resolves on the arch or its compat arches. */
Test(seccomp_profile, the_built_profile_passes_validation)
{
	struct seccomp_profile_opts o = { .arch = SCMP_ARCH_X86_64, .strict = true };
	struct strbuf json = STRBUF_INIT;
	struct error err = { 0 };

	cr_assert_eq(seccomp_profile_build(&o, &json, NULL, &err), 0, "%s", err.msg);
	cr_assert_eq(seccomp_profile_validate(json.buf, json.len, o.arch, &err), 0, "%s", err.msg);
	strbuf_release(&json);
}

Test(seccomp_profile, names_unknown_are_errors_when_strict_notes_otherwise)
{
	static const char *const names[] = { "read", "no_such_call", "arch_prctl" };
	struct strvec notes = STRVEC_INIT;
	struct error err = { 0 };

	cr_assert_lt(seccomp_names_check(SCMP_ARCH_AARCH64, names, 3, true, NULL, &err), 0);
	cr_assert_eq(err.kind, ERR_DATA);
	cr_assert(strstr(err.msg, "no_such_call"), "%s", err.msg);

	/* arm64 has no arch_prctl: skipped with a note, as at run time. */
	cr_assert_eq(seccomp_names_check(SCMP_ARCH_AARCH64, names, 3, false, &notes, &err), 1);
	cr_assert_eq(notes.n, 2);
	cr_assert(strstr(notes.v[0], "no_such_call: unknown to libseccomp"), "%s", notes.v[0]);
	cr_assert(strstr(notes.v[1], "arch_prctl: not a syscall on arm64"), "%s", notes.v[1]);
	strvec_clear(&notes);
}

Test(seccomp_profile, site_profiles_are_checked)
{
	static const struct { const char *json; const char *why; } bad[] = {
		{ "[]", "not a JSON object" },
		{ "{\"syscalls\":[]}", "no defaultAction" },
		{ "{\"defaultAction\":\"ALLOW\",\"syscalls\":[]}", "no defaultAction" },
		{ "{\"defaultAction\":\"SCMP_ACT_ERRNO\"}", "no syscalls array" },
		{ "{\"defaultAction\":\"SCMP_ACT_ERRNO\",\"syscalls\":[{\"names\":[\"read\"]}]}",
		  "no SCMP_ACT_* action" },
		{ "{\"defaultAction\":\"SCMP_ACT_ERRNO\",\"syscalls\":[{\"action\":\"SCMP_ACT_ALLOW\","
		  "\"names\":[\"read\",\"frobnicate\"]}]}", "unknown syscall 'frobnicate'" },
		{ "{\"defaultAction\":\"SCMP_ACT_ERRNO\",\"syscalls\":[{\"action\":\"SCMP_ACT_ALLOW\","
		  "\"names\":\"read\"}]}", "names is not an array" },
	};
	const char *good = "{\"defaultAction\":\"SCMP_ACT_ERRNO\",\"syscalls\":"
			   "[{\"action\":\"SCMP_ACT_ALLOW\",\"names\":[\"read\",\"mbind\"]}]}";
	struct error err = { 0 };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cr_assert_lt(seccomp_profile_validate(bad[i].json, strlen(bad[i].json),
						      SCMP_ARCH_X86_64, &err), 0, "%s", bad[i].json);
		cr_assert_eq(err.kind, ERR_DATA);
		cr_assert(strstr(err.msg, bad[i].why), "%s: %s", bad[i].json, err.msg);
	}
	cr_assert_eq(seccomp_profile_validate(good, strlen(good), SCMP_ARCH_X86_64, &err), 0,
		     "%s", err.msg);
}

Test(seccomp_profile, the_record_names_mode_path_and_profile)
{
	struct seccomp_choice c = { SECCOMP_MODE_FILE, (char *)"/etc/site.json" };
	cJSON *r = seccomp_record_json(&c, cJSON_Parse("{\"defaultAction\":\"SCMP_ACT_LOG\"}"));
	struct seccomp_choice d = { SECCOMP_MODE_DEFAULT, NULL };
	cJSON *rd = seccomp_record_json(&d, NULL);

	cr_assert_str_eq(cJSON_GetObjectItem(r, "mode")->valuestring, "file");
	cr_assert_str_eq(cJSON_GetObjectItem(r, "path")->valuestring, "/etc/site.json");
	cr_assert_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(r, "profile"),
					     "defaultAction")->valuestring, "SCMP_ACT_LOG");
	cr_assert_str_eq(cJSON_GetObjectItem(rd, "mode")->valuestring, "default");
	cr_assert_null(cJSON_GetObjectItem(rd, "profile"));
	cJSON_Delete(r);
	cJSON_Delete(rd);
}

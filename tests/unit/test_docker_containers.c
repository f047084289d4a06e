#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "docker/internal.h"

static void assert_json_eq(const cJSON *got, const char *want_text)
{
	cJSON *want = cJSON_Parse(want_text);
	char *g = cJSON_PrintUnformatted(got);

	cr_assert_not_null(want, "bad golden JSON");
	cr_assert(cJSON_Compare(got, want, true), "got  %s\nwant %s", g, want_text);
	cJSON_Delete(want);
	free(g);
}

Test(docker_spec, every_field_lands_where_the_engine_expects_it)
{
	struct container_spec s;
	cJSON *j;

	container_spec_init(&s);
	s.image = xstrdup("hrr-sim:dev");
	strvec_push(&s.entrypoint, "/opt/hrr/hrr-playback");
	strvec_push(&s.cmd, "--archive");
	strvec_push(&s.cmd, "/capture");
	strvec_push(&s.env, "HIP_VISIBLE_DEVICES=0");
	strvec_push(&s.env, "A=b=c");
	strvec_push(&s.labels, "hrr-docker-replay=1");
	strvec_push(&s.labels, "hrr-docker-replay.run=r=1");
	strvec_push(&s.labels, "flag");
	s.working_dir = xstrdup("/work");
	s.user = xstrdup("1000:1000");
	s.stop_timeout = 10;
	container_spec_add_device(&s, "/tmp/dev/kfd", "/dev/kfd", NULL);
	container_spec_add_device(&s, "/tmp/dev/renderD128", "/dev/dri/renderD128", "rw");
	container_spec_add_mount(&s, "/data/capture", "/capture", true);
	container_spec_add_mount(&s, "/data/out", "/out", false);
	container_spec_add_ulimit(&s, "core", 0, 0);
	container_spec_add_ulimit(&s, "memlock", -1, -1);
	strvec_push(&s.group_add, "44");
	strvec_push(&s.group_add, "109");
	strvec_push(&s.cap_drop, "ALL");
	strvec_push(&s.cap_add, "SYS_PTRACE");
	strvec_push(&s.security_opt, "no-new-privileges");
	strvec_push(&s.security_opt, "seccomp={\"defaultAction\":\"SCMP_ACT_ALLOW\"}");
	s.network_mode = xstrdup("none");
	s.init = true;
	s.readonly_rootfs = true;
	s.auto_remove = false;
	s.pids_limit = 4096;
	s.memory = 8LL << 30;
	s.shm_size = 1LL << 30;
	s.log_max_bytes = 10LL << 20;
	s.log_max_file = xstrdup("1");

	j = container_spec_to_json(&s);
	assert_json_eq(j,
		"{\"Image\":\"hrr-sim:dev\","
		"\"Entrypoint\":[\"/opt/hrr/hrr-playback\"],"
		"\"Cmd\":[\"--archive\",\"/capture\"],"
		"\"Env\":[\"HIP_VISIBLE_DEVICES=0\",\"A=b=c\"],"
		"\"Labels\":{\"hrr-docker-replay\":\"1\",\"hrr-docker-replay.run\":\"r=1\",\"flag\":\"\"},"
		"\"WorkingDir\":\"/work\",\"User\":\"1000:1000\",\"StopTimeout\":10,"
		"\"Tty\":false,\"OpenStdin\":false,\"AttachStdin\":false,"
		"\"AttachStdout\":true,\"AttachStderr\":true,"
		"\"HostConfig\":{"
		"\"Devices\":[{\"PathOnHost\":\"/tmp/dev/kfd\",\"PathInContainer\":\"/dev/kfd\",\"CgroupPermissions\":\"rwm\"},"
		"{\"PathOnHost\":\"/tmp/dev/renderD128\",\"PathInContainer\":\"/dev/dri/renderD128\",\"CgroupPermissions\":\"rw\"}],"
		"\"Mounts\":[{\"Type\":\"bind\",\"Source\":\"/data/capture\",\"Target\":\"/capture\",\"ReadOnly\":true},"
		"{\"Type\":\"bind\",\"Source\":\"/data/out\",\"Target\":\"/out\",\"ReadOnly\":false}],"
		"\"Ulimits\":[{\"Name\":\"core\",\"Soft\":0,\"Hard\":0},{\"Name\":\"memlock\",\"Soft\":-1,\"Hard\":-1}],"
		"\"GroupAdd\":[\"44\",\"109\"],"
		"\"CapAdd\":[\"SYS_PTRACE\"],\"CapDrop\":[\"ALL\"],"
		"\"SecurityOpt\":[\"no-new-privileges\",\"seccomp={\\\"defaultAction\\\":\\\"SCMP_ACT_ALLOW\\\"}\"],"
		"\"NetworkMode\":\"none\",\"Init\":true,\"ReadonlyRootfs\":true,\"AutoRemove\":false,"
		"\"PidsLimit\":4096,\"Memory\":8589934592,\"ShmSize\":1073741824,"
		"\"LogConfig\":{\"Type\":\"json-file\",\"Config\":{\"max-size\":\"10m\",\"max-file\":\"1\"}}}}");
	cJSON_Delete(j);
	container_spec_release(&s);
	/* Released specs are reusable and empty. */
	cr_assert_eq(s.n_devices, 0);
	cr_assert_eq(s.entrypoint.n, 0);
	cr_assert_eq(s.stop_timeout, -1);
}

Test(docker_spec, unset_fields_are_left_out)
{
	struct container_spec s;
	cJSON *j;

	container_spec_init(&s);
	s.image = xstrdup("img");
	j = container_spec_to_json(&s);
	assert_json_eq(j, "{\"Image\":\"img\",\"Tty\":false,\"OpenStdin\":false,"
			  "\"AttachStdin\":false,\"AttachStdout\":true,\"AttachStderr\":true,"
			  "\"HostConfig\":{\"Init\":false,\"ReadonlyRootfs\":false,\"AutoRemove\":false}}");
	cJSON_Delete(j);
	container_spec_release(&s);
}

Test(docker_spec, duplicate_label_keys_keep_the_last_value)
{
	struct container_spec s;
	cJSON *j;

	container_spec_init(&s);
	s.image = xstrdup("img");
	strvec_push(&s.labels, "k=1");
	strvec_push(&s.labels, "k=2");
	j = container_spec_to_json(&s);
	cr_assert_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "Labels"), "k")->valuestring,
			 "2");
	cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(j, "Labels")), 1);
	cJSON_Delete(j);
	container_spec_release(&s);
}

Test(docker_spec, seccomp_profile_goes_inline_as_given_after_the_other_options)
{
	static const char profile[] = "{\"defaultAction\":\"SCMP_ACT_ERRNO\","
				      "\"syscalls\":[{\"names\":[\"mbind\"],"
				      "\"action\":\"SCMP_ACT_ALLOW\"}]}";
	struct container_spec s;
	cJSON *j;

	container_spec_init(&s);
	s.image = xstrdup("img");
	strvec_push(&s.security_opt, "no-new-privileges");
	s.seccomp_profile = xstrdup(profile);
	j = container_spec_to_json(&s);
	assert_json_eq(cJSON_GetObjectItem(j, "HostConfig"),
		"{\"SecurityOpt\":[\"no-new-privileges\","
		"\"seccomp={\\\"defaultAction\\\":\\\"SCMP_ACT_ERRNO\\\","
		"\\\"syscalls\\\":[{\\\"names\\\":[\\\"mbind\\\"],"
		"\\\"action\\\":\\\"SCMP_ACT_ALLOW\\\"}]}\"],"
		"\"Init\":false,\"ReadonlyRootfs\":false,\"AutoRemove\":false}");
	cJSON_Delete(j);
	container_spec_release(&s);
	cr_assert_null(s.seccomp_profile);

	/* Alone, the profile still makes a SecurityOpt; its text is not
	 * parsed again, so white space stays as the caller wrote it. */
	container_spec_init(&s);
	s.image = xstrdup("img");
	s.seccomp_profile = xstrdup("{ }");
	j = container_spec_to_json(&s);
	cr_assert_str_eq(cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "HostConfig"),
								"SecurityOpt"), 0)->valuestring,
			 "seccomp={ }");
	cJSON_Delete(j);
	container_spec_release(&s);
}

Test(docker_spec, a_profile_is_an_object_by_its_first_character)
{
	static const struct {
		const char *text;
		bool object;
	} cases[] = {
		{ "{\"a\":1}", true },
		{ " \n\t{ }", true },
		{ "[ 1 ]", false },
		{ "unconfined", false },
		{ "", false },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		cr_assert_eq(engine_seccomp_is_object(cases[i].text), cases[i].object, "%s",
			     cases[i].text);
}

Test(docker_spec, engine_flavour_from_version)
{
	static const struct {
		const char *version;
		enum engine_flavour want;
	} cases[] = {
		{ "{\"Platform\":{\"Name\":\"Docker Engine - Community\"}}", ENGINE_FLAVOUR_DOCKER },
		{ "{\"Components\":[{\"Name\":\"Engine\"},{\"Name\":\"containerd\"}]}", ENGINE_FLAVOUR_DOCKER },
		{ "{}", ENGINE_FLAVOUR_DOCKER },
		{ "{\"Platform\":{\"Name\":\"linux/amd64/fedora-40\"},"
		  "\"Components\":[{\"Name\":\"Podman Engine\"}]}", ENGINE_FLAVOUR_PODMAN },
		{ "{\"Platform\":{\"Name\":\"Podman Engine\"}}", ENGINE_FLAVOUR_PODMAN },
		{ "{\"Platform\":\"x\",\"Components\":7}", ENGINE_FLAVOUR_DOCKER },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cJSON *v = cJSON_Parse(cases[i].version);

		cr_assert_not_null(v);
		cr_assert_eq(engine_flavour_from_version(v), cases[i].want, "%s", cases[i].version);
		cJSON_Delete(v);
	}
}

Test(docker_state, reads_an_inspect_answer)
{
	cJSON *j = cJSON_Parse(
		"{\"Id\":\"abc\",\"State\":{\"Status\":\"exited\",\"Running\":false,\"Paused\":false,"
		"\"OOMKilled\":true,\"Dead\":false,\"Pid\":0,\"ExitCode\":137,\"Error\":\"\","
		"\"StartedAt\":\"2026-11-29T18:00:00.123456789Z\","
		"\"FinishedAt\":\"2026-11-29T18:00:05.5Z\"}}");
	struct container_state st;
	struct error err;

	cr_assert_eq(container_state_from_json(j, &st, &err), 0, "%s", err.msg);
	cr_assert_str_eq(st.status, "exited");
	cr_assert_not(st.running);
	cr_assert(st.oom_killed);
	cr_assert_eq(st.exit_code, 137);
	cr_assert_eq(st.pid, 0);
	cr_assert_str_eq(st.started_at, "2026-11-29T18:00:00.123456789Z");
	cr_assert_str_eq(st.finished_at, "2026-11-29T18:00:05.5Z");
	cr_assert_str_eq(st.error, "");
	cJSON_Delete(j);
}

Test(docker_state, running_container_and_long_error_truncated_safely)
{
	char big[600];
	char *txt;
	cJSON *j;
	struct container_state st;
	struct error err;

	memset(big, 'e', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	txt = xasprintf("{\"State\":{\"Status\":\"running\",\"Running\":true,\"Pid\":4242,"
			"\"ExitCode\":0,\"Error\":\"%s\"}}",
			big);
	j = cJSON_Parse(txt);
	cr_assert_eq(container_state_from_json(j, &st, &err), 0, "%s", err.msg);
	cr_assert(st.running);
	cr_assert_not(st.oom_killed);
	cr_assert_eq(st.pid, 4242);
	cr_assert_eq(strlen(st.error), sizeof(st.error) - 1);
	cr_assert_str_eq(st.started_at, "");
	cJSON_Delete(j);
	free(txt);
}

Test(docker_state, missing_state_is_a_protocol_error)
{
	static const char *const bad[] = { "{}", "{\"State\":null}", "{\"State\":{\"Running\":true}}",
					   "[]" };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cJSON *j = cJSON_Parse(bad[i]);
		struct container_state st;
		struct error err;

		cr_assert_eq(container_state_from_json(j, &st, &err), -1, "%s", bad[i]);
		cr_assert_eq(err.kind, ERR_PROTOCOL);
		cJSON_Delete(j);
	}
}

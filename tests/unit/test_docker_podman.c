/* Podman's answers rewritten as dockerd's (docker/podman.c), and the
 * engine told apart by its ping's headers: pure, from the texts Podman
 * 4.3.1 sent (docs/engines.md). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "docker/internal.h"

static const char *str(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

Test(docker_podman, the_ping_headers_tell_the_engine_and_its_version)
{
	struct engine e;

	memset(&e, 0, sizeof(e));
	engine_identity_from_ping(&e, "Libpod/4.3.1 (linux)", "4.3.1");
	cr_assert_eq(e.flavour, ENGINE_FLAVOUR_PODMAN);
	cr_assert_str_eq(engine_name(&e), "podman");
	cr_assert_str_eq(engine_server_version(&e), "4.3.1");

	memset(&e, 0, sizeof(e));
	engine_identity_from_ping(&e, "Libpod/5.0.0 (linux)", NULL);
	cr_assert_str_eq(engine_server_version(&e), "5.0.0");

	memset(&e, 0, sizeof(e));
	engine_identity_from_ping(&e, "Docker/20.10.24+dfsg1 (linux)", NULL);
	cr_assert_eq(e.flavour, ENGINE_FLAVOUR_DOCKER);
	cr_assert_str_eq(engine_name(&e), "dockerd");
	cr_assert_str_eq(engine_server_version(&e), "20.10.24+dfsg1");

	memset(&e, 0, sizeof(e));
	engine_identity_from_ping(&e, NULL, NULL);
	cr_assert_eq(e.flavour, ENGINE_FLAVOUR_UNKNOWN, "no header: /version tells later");
	cr_assert_str_eq(engine_name(&e), "unknown");
}

Test(docker_podman, events_are_named_as_dockerd_names_them)
{
	cJSON *rm = cJSON_Parse("{\"Type\":\"container\",\"Action\":\"remove\",\"status\":\"remove\"}");
	cJSON *init = cJSON_Parse("{\"Type\":\"container\",\"Action\":\"init\",\"status\":\"init\"}");
	cJSON *cleanup = cJSON_Parse("{\"Type\":\"container\",\"Action\":\"cleanup\"}");
	cJSON *die = cJSON_Parse("{\"Type\":\"container\",\"Action\":\"die\",\"status\":\"die\"}");
	cJSON *img = cJSON_Parse("{\"Type\":\"image\",\"Action\":\"remove\"}");

	cr_assert(podman_event_normalize(rm));
	cr_assert_str_eq(str(rm, "Action"), "destroy");
	cr_assert_str_eq(str(rm, "status"), "destroy");
	cr_assert_not(podman_event_normalize(init), "no dockerd counterpart: skipped");
	cr_assert_not(podman_event_normalize(cleanup));
	cr_assert(podman_event_normalize(die));
	cr_assert_str_eq(str(die, "Action"), "die");
	cr_assert(podman_event_normalize(img));
	cr_assert_str_eq(str(img, "Action"), "remove", "an image's removal keeps its name");
	cJSON_Delete(rm);
	cJSON_Delete(init);
	cJSON_Delete(cleanup);
	cJSON_Delete(die);
	cJSON_Delete(img);
}

Test(docker_podman, a_path_stat_reads_as_dockerds)
{
	/* a regular file: Podman names itself as the link target */
	cJSON *file = cJSON_Parse("{\"name\":\"hrr-playback\",\"size\":10,\"mode\":493,"
				  "\"linkTarget\":\"/opt/rocm/bin/hrr-playback\",\"isDir\":false}");
	/* /bin/sh -> busybox: the target's name, the link's mode */
	cJSON *link = cJSON_Parse("{\"name\":\"busybox\",\"size\":7,\"mode\":134218239,"
				  "\"linkTarget\":\"/bin/busybox\",\"isDir\":false}");

	podman_path_stat_normalize(file, "/opt/rocm/bin/hrr-playback");
	cr_assert_str_eq(str(file, "linkTarget"), "");
	cr_assert_null(cJSON_GetObjectItem(file, "isDir"));
	podman_path_stat_normalize(link, "/bin/sh");
	cr_assert_str_eq(str(link, "name"), "sh");
	cr_assert_str_eq(str(link, "linkTarget"), "/bin/busybox");
	cJSON_Delete(file);
	cJSON_Delete(link);
}

Test(docker_podman, local_image_names_and_digests_are_not_a_registrys)
{
	cJSON *img = cJSON_Parse("{\"Id\":\"sha256:c8\",\"RepoTags\":[\"localhost/hrr-sim:t\","
				 "\"127.0.0.1:5000/x:1\",\"docker.io/library/lt:a\","
				 "\"docker.io/rocm/vllm:n\",\"docker.io/library/a/b:c\"],\"RepoDigests\":[\"localhost/hrr-sim@sha256:1f\","
				 "\"127.0.0.1:5000/x@sha256:2e\"]}");
	const cJSON *tags = cJSON_GetObjectItem(img, "RepoTags");
	const cJSON *digests = cJSON_GetObjectItem(img, "RepoDigests");

	podman_image_normalize(img);
	cr_assert_str_eq(cJSON_GetArrayItem(tags, 0)->valuestring, "hrr-sim:t");
	cr_assert_str_eq(cJSON_GetArrayItem(tags, 1)->valuestring, "127.0.0.1:5000/x:1");
	/* what Podman stores for `docker tag <image> lt:a`, as dockerd lists it */
	cr_assert_str_eq(cJSON_GetArrayItem(tags, 2)->valuestring, "lt:a");
	cr_assert_str_eq(cJSON_GetArrayItem(tags, 3)->valuestring, "rocm/vllm:n");
	cr_assert_str_eq(cJSON_GetArrayItem(tags, 4)->valuestring, "library/a/b:c");
	cr_assert_eq(cJSON_GetArraySize(digests), 1);
	cr_assert_str_eq(cJSON_GetArrayItem(digests, 0)->valuestring, "127.0.0.1:5000/x@sha256:2e");
	cJSON_Delete(img);
}

Test(docker_podman, only_a_state_conflict_becomes_409)
{
	static const char improper[] = "{\"cause\":\"container state improper\","
				       "\"message\":\"can only kill running containers. x is in state "
				       "exited: container state improper\",\"response\":500}";
	static const char other[] = "{\"cause\":\"OCI permission denied\",\"message\":\"crun: "
				    "setrlimit\",\"response\":500}";
	struct strbuf msg = STRBUF_INIT;

	strbuf_addstr(&msg, "can only kill running containers. x is in state exited");
	cr_assert_eq(podman_error_status(500, improper, strlen(improper), &msg), 409);
	cr_assert(strstr(msg.buf, "not running") && strstr(msg.buf, "can only kill"), "%s",
		  msg.buf);
	strbuf_reset(&msg);
	strbuf_addstr(&msg, "crun: setrlimit");
	cr_assert_eq(podman_error_status(500, other, strlen(other), &msg), 500);
	cr_assert_str_eq(msg.buf, "crun: setrlimit");
	cr_assert_eq(podman_error_status(404, improper, strlen(improper), &msg), 404);
	strbuf_release(&msg);
}

/* Podman's own create is built from the spec itself: every field where
 * its SpecGenerator takes it, the limits and the seccomp path Podman
 * needs besides, and "64m" as the bytes it means. */
Test(docker_podman, the_libpod_body_is_built_from_the_spec)
{
	static const char want[] =
		"{\"name\":\"nm\",\"image\":\"img:1\",\"entrypoint\":[\"/bin/sh\"],"
		"\"command\":[\"-c\",\"x\"],\"env\":{\"B\":\"\",\"A\":\"2\"},\"labels\":{\"k\":\"v\"},"
		"\"work_dir\":\"/w\",\"user\":\"1000:1000\",\"stop_timeout\":7,\"terminal\":false,"
		"\"annotations\":{\"run.oci.keep_original_groups\":\"1\"},"
		"\"netns\":{\"nsmode\":\"none\"},"
		"\"devices\":[{\"path\":\"/dev/kfd:/dev/kfd:rwm\"},"
		"{\"path\":\"/dev/dri/renderD128:/dev/dri/renderD128:rw\"},{\"path\":\"amd.com/gpu=0\"}],"
		"\"mounts\":[{\"destination\":\"/b\",\"type\":\"bind\",\"source\":\"/a\","
		"\"options\":[\"rbind\",\"ro\"]}],"
		"\"r_limits\":[{\"type\":\"core\",\"soft\":0,\"hard\":0},"
		"{\"type\":\"nofile\",\"soft\":1024,\"hard\":4096}],"
		"\"groups\":[\"44\"],\"cap_add\":[\"SYS_PTRACE\"],\"cap_drop\":[\"ALL\"],"
		"\"no_new_privileges\":true,\"seccomp_profile_path\":\"/tmp/p.json\","
		"\"init\":true,\"read_only_filesystem\":true,\"remove\":false,"
		"\"shm_size\":1073741824,"
		"\"resource_limits\":{\"pids\":{\"limit\":4096},\"memory\":{\"limit\":8589934592}},"
		"\"log_configuration\":{\"driver\":\"k8s-file\",\"size\":67108864}}";
	struct container_spec s;
	struct podman_extras x;
	cJSON *got, *exp = cJSON_Parse(want);
	char *txt;

	container_spec_init(&s);
	s.image = xstrdup("img:1");
	strvec_push(&s.entrypoint, "/bin/sh");
	strvec_push(&s.cmd, "-c");
	strvec_push(&s.cmd, "x");
	strvec_push(&s.env, "A=1");
	strvec_push(&s.env, "B");
	strvec_push(&s.env, "A=2");
	strvec_push(&s.labels, "k=v");
	s.working_dir = xstrdup("/w");
	s.user = xstrdup("1000:1000");
	s.stop_timeout = 7;
	container_spec_add_device(&s, "/dev/kfd", NULL, NULL);
	container_spec_add_device(&s, "/dev/dri/renderD128", NULL, "rw");
	strvec_push(&s.cdi_devices, "amd.com/gpu=0");
	container_spec_add_mount(&s, "/a", "/b", true);
	container_spec_add_ulimit(&s, "core", 0, 0);
	strvec_push(&s.group_add, "44");
	strvec_push(&s.cap_add, "SYS_PTRACE");
	strvec_push(&s.cap_drop, "ALL");
	strvec_push(&s.security_opt, "no-new-privileges");
	s.network_mode = xstrdup("none");
	s.init = true;
	s.readonly_rootfs = true;
	s.pids_limit = 4096;
	s.memory = 8LL << 30;
	s.shm_size = 1LL << 30;
	s.log_max_bytes = 64LL << 20;
	s.log_max_file = xstrdup("2");
	memset(&x, 0, sizeof(x));
	strvec_init(&x.security_opt);
	x.limits[0] = (struct container_ulimit){ xstrdup("nofile"), 1024, 4096 };
	x.n_limits = 1;
	strvec_push(&x.security_opt, "no-new-privileges");
	strvec_push(&x.security_opt, "seccomp=/tmp/p.json");

	got = podman_libpod_spec(&s, &x, "nm", "run.oci.keep_original_groups", "1");
	txt = cJSON_PrintUnformatted(got);
	cr_assert(cJSON_Compare(got, exp, true), "%s", txt);
	free(txt);
	cJSON_Delete(got);

	/* A network the SpecGenerator is not told of: no body at all. */
	free(s.network_mode);
	s.network_mode = xstrdup("host");
	cr_assert_null(podman_libpod_spec(&s, &x, NULL, NULL, NULL));
	podman_extras_release(&x);
	container_spec_release(&s);
	cJSON_Delete(exp);
}

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

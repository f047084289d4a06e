/* The engine client against the real engine: connection, negotiation,
 * inspect/list/remove and the not-found paths, the image list. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "docker/internal.h"
#include "tests/support/engine_test.h"

TestSuite(engine_basics, .init = et_suite_init, .fini = et_suite_fini);

Test(engine_basics, ping_version_and_negotiation)
{
	struct engine *e = et_engine();
	struct engine_version_info v;
	struct error err;
	const char *api;

	cr_assert_eq(engine_ping(e, &err), 0, "%s", err.msg);
	cr_assert_eq(engine_version(e, &v, &err), 0, "%s", err.msg);
	api = v.api_version;
	cr_assert_not_null(api);
	/* min(ours, the engine's) */
	if (getenv("DOCKER_API_VERSION") && *getenv("DOCKER_API_VERSION"))
		cr_assert_str_eq(engine_api_version(e), getenv("DOCKER_API_VERSION"));
	else if (strcmp(api, ENGINE_API_VERSION_MAX) < 0 &&
		 strlen(api) == strlen(ENGINE_API_VERSION_MAX))
		cr_assert_str_eq(engine_api_version(e), api);
	else
		cr_assert_str_eq(engine_api_version(e), ENGINE_API_VERSION_MAX);
	engine_version_info_release(&v);
	engine_close(e);
}

Test(engine_basics, missing_things_are_not_found)
{
	struct engine *e = et_engine();
	struct engine_container_info j;
	struct engine_image_info img;
	struct error err;

	cr_assert_eq(engine_container_remove(e, "hrr-engine-test-no-such-container", true, &err), -1);
	cr_assert_eq(err.kind, ERR_NOT_FOUND);
	cr_assert_eq(err.status, 404);
	cr_assert(strstr(err.msg, "hrr-engine-test-no-such-container"), "%s", err.msg);
	cr_assert_eq(engine_container_inspect(e, "hrr-engine-test-no-such-container", &j, &err), -1);
	cr_assert_eq(err.kind, ERR_NOT_FOUND);
	cr_assert_null(j.id);
	cr_assert_eq(engine_container_start(e, "hrr-engine-test-no-such-container", &err), -1);
	cr_assert_eq(err.kind, ERR_NOT_FOUND);
	cr_assert_eq(engine_image_inspect(e, "hrr-engine-test-no-such-image:v0", &img, &err), -1);
	cr_assert_eq(err.kind, ERR_NOT_FOUND);
	cr_assert_eq(err.status, 404);
	engine_close(e);
}

Test(engine_basics, image_inspect_and_create_from_a_missing_image)
{
	struct engine *e = et_engine();
	struct container_spec s;
	struct engine_image_info img;
	struct error err;
	char *id = NULL;

	cr_assert_eq(engine_image_inspect(e, ENGINE_TEST_IMAGE, &img, &err), 0, "%s", err.msg);
	cr_assert_not_null(img.id);
	engine_image_info_release(&img);

	et_spec(&s, "true");
	free(s.image);
	s.image = strdup("hrr-engine-test-no-such-image:v0");
	cr_assert_eq(engine_container_create(e, NULL, &s, &id, &err), -1);
	cr_assert_null(id);
	cr_assert_eq(err.status, 404);
	cr_assert(strstr(err.msg, "hrr-engine-test-no-such-image"), "%s", err.msg);
	container_spec_release(&s);
	engine_close(e);
}

Test(engine_basics, inspect_state_of_a_created_container_and_list_by_label)
{
	struct engine *e = et_engine();
	char *a = et_create(e, "true");
	char *b = et_create(e, "true");
	cJSON *j = NULL;
	struct engine_container_info info;
	struct engine_containers list;
	struct error err;
	const cJSON *state;
	int seen = 0;
	char other[128];

	cr_assert_eq(engine_container_inspect_json(e, a, &j, &err), 0, "%s", err.msg);
	state = cJSON_GetObjectItem(j, "State");
	cr_assert(cJSON_IsBool(cJSON_GetObjectItem(state, "OOMKilled")),
		  "State.OOMKilled is present");
	cJSON_Delete(j);
	cr_assert_eq(engine_container_inspect(e, a, &info, &err), 0, "%s", err.msg);
	cr_assert(info.has_state);
	cr_assert_str_eq(info.state.status, "created");
	cr_assert_not(info.state.running);
	cr_assert_not(info.state.oom_killed);
	engine_container_info_release(&info);

	cr_assert_eq(engine_container_list(e, et_label(), &list, &err), 0, "%s", err.msg);
	for (size_t i = 0; i < list.n; i++)
		seen += !strcmp(list.v[i].id, a) + !strcmp(list.v[i].id, b);
	cr_assert_eq(list.n, 2);
	cr_assert_eq(seen, 2);
	engine_containers_release(&list);

	snprintf(other, sizeof(other), "%s-nobody", et_label());
	cr_assert_eq(engine_container_list(e, other, &list, &err), 0, "%s", err.msg);
	cr_assert_eq(list.n, 0);
	engine_containers_release(&list);

	cr_assert_eq(engine_container_remove(e, a, false, &err), 0, "%s", err.msg);
	cr_assert_eq(engine_container_inspect(e, a, NULL, &err), -1);
	cr_assert_eq(err.kind, ERR_NOT_FOUND);
	free(a);
	free(b);
	engine_close(e);
}

static bool listed(const struct engine_image_tags *t, const char *ref, const char *id)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->v[i].ref, ref))
			return !strcmp(t->v[i].id, id) && t->v[i].created > 0;
	return false;
}

/* Every tag of the repository, by the name it was tagged with (Podman's
 * "localhost/" read away), with the image's ID and created time. */
Test(engine_basics, images_are_listed_by_reference_with_every_tag)
{
	struct engine *e = et_engine();
	struct engine_image_tags t = { 0 };
	struct engine_image_info img;
	struct error err;
	char name[64], reg_name[96], ref[128];
	const char *id;

	snprintf(name, sizeof(name), "hrr-engine-test-list-%ld", (long)getpid());
	snprintf(reg_name, sizeof(reg_name), "127.0.0.1:5000/%s", name);
	cr_assert_eq(et_sh("docker tag %s %s:a && docker tag %s %s:b && docker tag %s %s:c",
			   ENGINE_TEST_IMAGE, name, ENGINE_TEST_IMAGE, name, ENGINE_TEST_IMAGE,
			   reg_name), 0);
	cr_assert_eq(engine_image_inspect(e, ENGINE_TEST_IMAGE, &img, &err), 0, "%s", err.msg);
	id = img.id;
	cr_assert_not_null(id);

	cr_assert_eq(engine_image_list(e, name, &t, &err), 0, "%s", err.msg);
	snprintf(ref, sizeof(ref), "%s:a", name);
	cr_expect(listed(&t, ref, id), "%s not listed with %s", ref, id);
	snprintf(ref, sizeof(ref), "%s:b", name);
	cr_expect(listed(&t, ref, id), "%s not listed", ref);
	engine_image_tags_release(&t);

	cr_assert_eq(engine_image_list(e, reg_name, &t, &err), 0, "%s", err.msg);
	snprintf(ref, sizeof(ref), "%s:c", reg_name);
	cr_expect(listed(&t, ref, id), "%s not listed", ref);
	engine_image_tags_release(&t);

	cr_assert_eq(engine_image_list(e, "hrr-engine-test-no-such-repo", &t, &err), 0, "%s",
		     err.msg);
	cr_expect_eq(t.n, 0, "a repository with no image lists none");
	et_sh("docker rmi %s:a %s:b %s:c >/dev/null 2>&1", name, name, reg_name);
	engine_image_info_release(&img);
	engine_close(e);
}

/* GET /images/json (docker/images.c): the answer parsed, the reference
 * filter sent, Podman's local names read as dockerd's. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "docker/internal.h"
#include "tests/support/fake_engine.h"

static struct fake_engine *fe;

/* Each test is a process of its own: the environment goes with it. */
static void setup(void)
{
	unsetenv("DOCKER_API_VERSION"); /* the routes name the negotiated version */
	fe = fake_engine_start();
}

static void teardown(void)
{
	fake_engine_stop(fe);
	fe = NULL;
}

TestSuite(docker_image_list, .init = setup, .fini = teardown);

Test(docker_image_list, every_tag_of_every_image_once_untagged_ones_none)
{
	/* as dockerd 20.10 answers: RepoDigests null, an untagged image */
	cJSON *a = cJSON_Parse(
		"[{\"Id\":\"sha256:aa\",\"Created\":1796164849,\"RepoDigests\":null,"
		"\"RepoTags\":[\"n:dev\",\"n:main\"]},"
		"{\"Id\":\"sha256:bb\",\"Created\":1796164000,\"RepoTags\":[\"<none>:<none>\"]},"
		"{\"Id\":\"sha256:cc\",\"RepoTags\":null},"
		"{\"Id\":\"sha256:dd\",\"Created\":\"yesterday\",\"RepoTags\":[\"m:x\"]}]");
	struct engine_image_tags t = { 0 };
	struct error err;

	cr_assert_eq(engine_image_list_parse(a, &t, &err), 0, "%s", err.msg);
	cr_assert_eq(t.n, 3);
	cr_expect_str_eq(t.v[0].ref, "n:dev");
	cr_expect_str_eq(t.v[1].ref, "n:main");
	cr_expect_str_eq(t.v[1].id, "sha256:aa");
	cr_expect_eq(t.v[1].created, 1796164849);
	cr_expect_str_eq(t.v[2].ref, "m:x");
	cr_expect_eq(t.v[2].created, -1);
	engine_image_tags_release(&t);
	cJSON_Delete(a);

	a = cJSON_Parse("{\"message\":\"no\"}");
	cr_expect_eq(engine_image_list_parse(a, &t, &err), -1);
	cr_expect_eq(err.kind, ERR_PROTOCOL);
	cJSON_Delete(a);
}

static struct engine *open_fake(const char *ping_headers)
{
	struct engine *e = NULL;
	struct error err;

	fake_engine_route_json(fe, "GET /_ping", 200, ping_headers, "OK");
	cr_assert_eq(engine_open(&e, fake_engine_host(fe), &err), 0, "%s", err.msg);
	return e;
}

Test(docker_image_list, the_reference_goes_in_the_filters)
{
	struct engine *e = open_fake("Api-Version: 1.41");
	struct engine_image_tags t = { 0 };
	struct error err;
	char *req;

	fake_engine_route_json(fe, "GET /v1.41/images/json", 200, NULL,
			       "[{\"Id\":\"sha256:aa\",\"Created\":5,"
			       "\"RepoTags\":[\"127.0.0.1:5000/n:t1\"]}]");
	cr_assert_eq(engine_image_list(e, "127.0.0.1:5000/n", &t, &err), 0, "%s", err.msg);
	cr_assert_eq(t.n, 1);
	cr_expect_str_eq(t.v[0].ref, "127.0.0.1:5000/n:t1");
	req = fake_engine_find_request(fe, "GET /v1.41/images/json");
	cr_assert_not_null(req);
	/* {"reference":["127.0.0.1:5000/n"]}, escaped */
	cr_expect(strstr(req, "filters=%7B%22reference%22%3A%5B%22127.0.0.1%3A5000%2Fn%22%5D%7D"),
		  "%s", req);
	free(req);
	engine_image_tags_release(&t);

	fake_engine_route_json(fe, "GET /v1.41/images/json", 500, NULL,
			       "{\"message\":\"storage broken\"}");
	cr_expect_eq(engine_image_list(e, "n", &t, &err), -1);
	cr_expect(strstr(err.msg, "listing the images of n") && strstr(err.msg, "storage broken"),
		  "%s", err.msg);
	engine_close(e);
}

Test(docker_image_list, podmans_local_names_read_as_dockerds)
{
	struct engine *e = open_fake("Api-Version: 1.41\r\nLibpod-Api-Version: 4.3.1\r\n"
				     "Server: Libpod/4.3.1 (linux)");
	struct engine_image_tags t = { 0 };
	struct error err;

	/* as Podman 4.3.1 answers an image built here and tagged twice */
	fake_engine_route_json(fe, "GET /v1.41/images/json", 200, NULL,
			       "[{\"Id\":\"sha256:aa\",\"Created\":1796161488,"
			       "\"RepoTags\":[\"localhost/n:i22\",\"localhost/n:i18\"],"
			       "\"RepoDigests\":[\"localhost/n@sha256:6b\"],"
			       "\"Names\":[\"localhost/n:i22\",\"localhost/n:i18\"]}]");
	cr_assert_eq(engine_image_list(e, "n", &t, &err), 0, "%s", err.msg);
	cr_assert_eq(t.n, 2);
	cr_expect_str_eq(t.v[0].ref, "n:i22");
	cr_expect_str_eq(t.v[1].ref, "n:i18");
	cr_expect_eq(t.v[1].created, 1796161488);
	engine_image_tags_release(&t);
	engine_close(e);
}

/* GET /images/{name}/history: newest first on the wire, oldest first
 * here; a Size that is no number is not said. */
Test(docker_image_list, the_history_reads_oldest_first)
{
	cJSON *a = cJSON_Parse("[{\"Id\":\"sha256:top\",\"Size\":3000000},"
			       "{\"Id\":\"<missing>\",\"Size\":0},"
			       "{\"Id\":\"<missing>\",\"Size\":\"big\"},"
			       "{\"Id\":\"<missing>\",\"Size\":7}]");
	struct engine_image_history h = { 0 };
	struct error err;

	cr_assert_eq(engine_image_history_parse(a, &h, &err), 0, "%s", err.msg);
	cr_assert_eq(h.n, 4);
	cr_expect_eq(h.sizes[0], 7);
	cr_expect_eq(h.sizes[1], -1);
	cr_expect_eq(h.sizes[2], 0);
	cr_expect_eq(h.sizes[3], 3000000);
	engine_image_history_release(&h);
	cJSON_Delete(a);
	a = cJSON_Parse("{\"message\":\"no\"}");
	cr_expect_eq(engine_image_history_parse(a, &h, &err), -1);
	cr_expect_eq(err.kind, ERR_PROTOCOL);
	cJSON_Delete(a);
}

Test(docker_image_list, the_inspect_names_its_layers_base_first)
{
	cJSON *a = cJSON_Parse("{\"Id\":\"sha256:aa\",\"Size\":10,"
			       "\"RootFS\":{\"Type\":\"layers\",\"Layers\":[\"sha256:1\",\"sha256:2\"]}}");
	struct engine_image_info f;
	struct error err;

	cr_assert_eq(engine_image_info_parse(a, &f, &err), 0, "%s", err.msg);
	cr_assert_eq(f.layers.n, 2);
	cr_expect_str_eq(f.layers.v[0], "sha256:1");
	cr_expect_str_eq(f.layers.v[1], "sha256:2");
	engine_image_info_release(&f);
	cJSON_Delete(a);
}

#define D1 "abababababababababababababababababababababababababababababababab"
#define D2 "abababababababababababababababababababababababababababababababac"

/* A full disk during a pull, as dockerd streams it after its 200: the
 * pull's error (no crash), then the untagged images the engine lists
 * narrowed to those naming the digest pulled, exactly. */
Test(docker_image_list, a_full_disk_mid_pull_is_an_error_and_only_its_leftovers_are_named)
{
	struct engine *e = open_fake("Api-Version: 1.41");
	struct strvec ids = STRVEC_INIT;
	struct error err;
	char *req;

	fake_engine_route_json(fe, "POST /v1.41/images/create", 200, NULL,
			       "{\"status\":\"Pulling fs layer\",\"progressDetail\":{},\"id\":\"a1\"}\n"
			       "{\"errorDetail\":{\"message\":\"write /var/lib/docker/tmp/"
			       "GetImageBlob1: no space left on device\"},\"error\":\"write "
			       "/var/lib/docker/tmp/GetImageBlob1: no space left on device\"}\n");
	cr_assert_eq(engine_pull_image(e, "127.0.0.1:5000/n@sha256:" D1, NULL, NULL, NULL, &err),
		     -1);
	cr_expect_eq(err.kind, ERR_HTTP);
	cr_expect(strstr(err.msg, "no space left on device"), "%s", err.msg);
	fake_engine_route_json(fe, "GET /v1.41/images/json", 200, NULL,
			       "[{\"Id\":\"sha256:aa\",\"RepoTags\":null,"
			       "\"RepoDigests\":[\"127.0.0.1:5000/n@sha256:" D1 "\"]},"
			       "{\"Id\":\"sha256:bb\",\"RepoTags\":null,"
			       "\"RepoDigests\":[\"127.0.0.1:5000/n@sha256:" D2 "\"]},"
			       "{\"Id\":\"sha256:cc\",\"RepoTags\":[\"<none>:<none>\"],"
			       "\"RepoDigests\":null},"
			       "{\"Id\":\"sha256:dd\",\"RepoTags\":null,"
			       "\"RepoDigests\":[\"127.0.0.1:5000/m@sha256:" D1 "\"]}]");
	cr_assert_eq(engine_image_dangling_of(e, "127.0.0.1:5000/n@sha256:" D1, &ids, &err), 0,
		     "%s", err.msg);
	cr_assert_eq(ids.n, 1);
	cr_expect_str_eq(ids.v[0], "sha256:aa");
	req = fake_engine_find_request(fe, "GET /v1.41/images/json");
	cr_assert_not_null(req);
	/* {"dangling":["true"]}, escaped */
	cr_expect(strstr(req, "filters=%7B%22dangling%22%3A%5B%22true%22%5D%7D"), "%s", req);
	free(req);
	strvec_clear(&ids);
	engine_close(e);
}

/* The client's pure parts and streams fed the answers recorded from Docker
 * 28.5.2 (tests/fixtures/docker-28.5/README.md), and the same answers as
 * newer APIs send them (the deprecated fields left out). */
#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/fsutil.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "docker/internal.h"
#include "orchestrator/replay/image.h"
#include "tests/support/engine_test.h"
#include "tests/support/fake_engine.h"
#include "tests/support/scratch.h"

static struct fake_engine *fe;

static void setup(void)
{
	unsetenv("DOCKER_API_VERSION");
	fe = fake_engine_start();
}

static void teardown(void)
{
	fake_engine_stop(fe);
	fe = NULL;
}

TestSuite(docker_recorded, .init = setup, .fini = teardown);

static void fixture(const char *name, struct strbuf *out)
{
	cleanup_free char *path = xasprintf("%s/tests/fixtures/docker-28.5/%s", test_source_root(), name);
	struct error err;

	cr_assert_eq(fs_read_small_file(path, 1 << 20, out, &err), 0, "%s", err.msg);
}

struct pull_seen {
	int events;
	long long current, total; /* of the last Downloading */
};

static void on_pull(const struct engine_pull_event *ev, void *ud)
{
	struct pull_seen *p = ud;

	p->events++;
	if (ev->status && !strcmp(ev->status, "Downloading")) {
		p->current = ev->current;
		p->total = ev->total;
	}
}

/* Every line of a recorded pull; the result of the first that fails. */
static int feed_pull(const char *name, struct pull_seen *seen, struct error *err)
{
	cleanup_strbuf struct strbuf text = STRBUF_INIT;
	char *line, *save = NULL;

	fixture(name, &text);
	for (line = strtok_r(text.buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (engine_pull_progress_line(line, strlen(line), "127.0.0.1:5000/stack-b:t1",
					      "127.0.0.1:5000", on_pull, seen, err) < 0)
			return -1;
	return 0;
}

Test(docker_recorded, pull_progress_is_read_from_progress_detail)
{
	const char *const names[] = { "pull-progress.ndjson", "pull-progress-1.52.ndjson" };

	for (size_t i = 0; i < 2; i++) {
		struct pull_seen seen = { 0, -1, -1 };
		struct error err;

		cr_assert_eq(feed_pull(names[i], &seen, &err), 0, "%s: %s", names[i], err.msg);
		cr_assert_eq(seen.events, 10, "%s", names[i]);
		cr_assert_eq(seen.current, 546, "%s", names[i]);
		cr_assert_eq(seen.total, 546, "%s", names[i]);
	}
}

Test(docker_recorded, a_pull_failing_midway_is_read_from_error_detail)
{
	const char *const names[] = { "pull-fails-midway.ndjson", "pull-fails-midway-1.52.ndjson" };

	for (size_t i = 0; i < 2; i++) {
		struct pull_seen seen = { 0, -1, -1 };
		struct error err;

		cr_assert_eq(feed_pull(names[i], &seen, &err), -1, "%s", names[i]);
		cr_assert_eq(err.kind, ERR_HTTP);
		cr_assert_eq(err.status, 200);
		cr_assert_str_eq(err.msg, "pulling 127.0.0.1:5000/stack-b:t1 from 127.0.0.1:5000: filesystem layer verification failed for digest sha256:5286872cbacdd3987bcf5969d24dee11749c363b1981a3e35b49e020d710c1d1");
		cr_assert_eq(seen.events, 4, "the progress before the error was seen");
	}
}

Test(docker_recorded, image_inspect_without_empty_fields)
{
	cleanup_strbuf struct strbuf text = STRBUF_INIT;
	cleanup_cjson cJSON *j = NULL;
	struct engine_image_info f;
	struct error err;

	fixture("image-inspect.json", &text);
	j = cJSON_Parse(text.buf);
	cr_assert_not_null(j);
	cr_assert_null(cJSON_GetObjectItem(j, "ContainerConfig"), "the recording is 1.50+'s");
	cr_assert_eq(engine_image_info_parse(j, &f, &err), 0, "%s", err.msg);
	cr_assert_str_eq(f.id, "sha256:c26e3671e849bf5551efd87c1bd16cb1595b9308e21da6ba9197c214d941c6f0");
	cr_assert_str_eq(f.digest, "127.0.0.1:5000/stack-b@sha256:c276e6628ccfbcd9ebe0d340a3e4740e6b228cd73e1f327dc01520488b807bad");
	cr_assert_eq(f.env.n, 2);
	engine_image_info_release(&f);
	/* and with Config.Env left out too */
	cJSON_DeleteItemFromObject(cJSON_GetObjectItem(j, "Config"), "Env");
	cJSON_DeleteItemFromObject(j, "RepoDigests");
	cr_assert_eq(engine_image_info_parse(j, &f, &err), 0, "%s", err.msg);
	cr_assert_null(f.digest);
	cr_assert_eq(f.env.n, 0);
	engine_image_info_release(&f);
}

struct ev_seen {
	char actions[128];
	int with_actor;
};

static int on_event(const struct engine_event *ev, void *ud)
{
	struct ev_seen *s = ud;
	const char *a = ev->action;
	const char *id = ev->id;

	snprintf(s->actions + strlen(s->actions), sizeof(s->actions) - strlen(s->actions), "%s,",
		 a ? a : "?");
	s->with_actor += id && strlen(id) == 64;
	return 0;
}

/* The recorded ping (Docker 28.5.2, API 1.51), CRLF as sent. */
static struct engine *open_recorded(void)
{
	cleanup_strbuf struct strbuf ping = STRBUF_INIT, crlf = STRBUF_INIT;
	struct engine *e = NULL;
	struct error err;

	fixture("ping.txt", &ping);
	for (size_t i = 0; i < ping.len; i++) {
		if (ping.buf[i] == '\n' && i + 1 < ping.len)
			strbuf_addch(&crlf, '\r');
		if (ping.buf[i] != '\n' || i + 1 < ping.len)
			strbuf_addch(&crlf, ping.buf[i]);
	}
	fake_engine_route(fe, "GET /_ping", crlf.buf, crlf.len);
	cr_assert_eq(engine_open(&e, fake_engine_host(fe), &err), 0, "%s", err.msg);
	return e;
}

Test(docker_recorded, the_ping_names_dockerd_28_5_and_api_1_51)
{
	struct engine *e = open_recorded();

	cr_assert_str_eq(engine_api_version(e), "1.51");
	cr_assert_str_eq(engine_name(e), "dockerd");
	cr_assert_str_eq(engine_server_version(e), "28.5.2+dfsg4");
	engine_close(e);
}

Test(docker_recorded, events_without_status_id_and_from_are_read_by_action_and_actor)
{
	const char *const names[] = { "events-1.51.ndjson", "events-1.52.ndjson" };

	for (size_t i = 0; i < 2; i++) {
		struct engine *e = open_recorded();
		cleanup_strbuf struct strbuf body = STRBUF_INIT, raw = STRBUF_INIT;
		struct ev_seen seen = { "", 0 };
		struct engine_stream *s = NULL;
		struct error err;

		fixture(names[i], &body);
		strbuf_addf(&raw, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n%s",
			    body.buf);
		fake_engine_route(fe, "GET /v1.51/events", raw.buf, raw.len);
		cr_assert_eq(engine_events_stream(e, "{\"type\":[\"container\"]}", 0, 0, on_event, &seen,
						  &s, &err), 0);
		cr_assert_eq(et_run_stream(s, &err), 0, "%s", err.msg);
		cr_assert_str_eq(seen.actions, "create,start,die,destroy,", "%s", names[i]);
		cr_assert_eq(seen.with_actor, 4);
		engine_stream_free(s);
		engine_close(e);
	}
}

Test(docker_recorded, a_pinned_version_below_the_engines_minimum_says_what_to_do)
{
	cleanup_strbuf struct strbuf text = STRBUF_INIT, msg = STRBUF_INIT;
	cleanup_cjson cJSON *j = NULL;

	fixture("version-too-old.json", &text);
	j = cJSON_Parse(text.buf);
	strbuf_addstr(&msg, cJSON_GetStringValue(cJSON_GetObjectItem(j, "message")));
	engine_too_old_hint(400, NULL, &msg);
	cr_assert_str_eq(msg.buf, "client version 1.41 is too old. Minimum supported API version is 1.44, please upgrade your client to a newer version");
	engine_too_old_hint(400, "1.41", &msg);
	cr_assert(strstr(msg.buf, "(DOCKER_API_VERSION=1.41 pins the client's: unset it, or set the engine's minimum or newer)"),
		  "%s", msg.buf);
}

/* The pull's context is said once ("pulling X from R: why"), by the engine
 * client, and the image set-up knows a pull was tried without reading it. */
Test(docker_recorded, a_failed_pull_says_its_context_once)
{
	struct engine *e = open_recorded();
	cleanup_free char *cfg = scratch_dir("pull-once");
	struct image_facts f = { 0 };
	struct error err;

	setenv("DOCKER_CONFIG", cfg, 1);
	fake_engine_route_json(fe, "GET /v1.51/images/", 404, NULL,
			       "{\"message\":\"No such image: 127.0.0.1:5000/x:t\"}");
	fake_engine_route_str(fe, "POST /v1.51/images/create",
			      "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n"
			      "{\"errorDetail\":{\"message\":\"boom\"},\"error\":\"boom\"}\n");
	cr_assert_eq(image_ensure(e, "127.0.0.1:5000/x:t", PULL_MISSING, NULL, -1, &f, &err), -1);
	cr_assert_str_eq(err.msg, "pulling 127.0.0.1:5000/x:t from 127.0.0.1:5000: boom");
	cr_assert(f.pull_tried);
	image_facts_release(&f);
	unsetenv("DOCKER_CONFIG");
	scratch_remove(cfg);
	engine_close(e);
}

/* --pull always of an image the engine had, the same ID after the pull:
 * pulled, and still the user's, not this tool's (issue 43's budget never
 * removes it). */
Test(docker_recorded, a_pull_always_that_finds_the_same_id_brought_nothing)
{
	struct engine *e = open_recorded();
	cleanup_free char *cfg = scratch_dir("pull-same");
	cleanup_free char *pull_req = NULL;
	struct image_facts f = { 0 };
	struct error err;

	setenv("DOCKER_CONFIG", cfg, 1);
	fake_engine_route_json(fe, "GET /v1.51/images/", 200, NULL,
			       "{\"Id\":\"sha256:aa\",\"RepoDigests\":[\"127.0.0.1:5000/x@sha256:11\"],"
			       "\"Config\":{\"Env\":[\"PATH=/usr/bin\"]}}");
	fake_engine_route_str(fe, "POST /v1.51/images/create",
			      "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n"
			      "{\"status\":\"Status: Image is up to date for 127.0.0.1:5000/x:t\"}\n");
	cr_assert_eq(image_ensure(e, "127.0.0.1:5000/x:t", PULL_ALWAYS, NULL, -1, &f, &err), 0,
		     "%s", err.msg);
	cr_assert(f.pull_tried, "--pull always pulls");
	cr_assert_str_eq(f.id, "sha256:aa");
	cr_assert_not(f.pulled, "the ID was on the engine before the pull");
	pull_req = fake_engine_find_request(fe, "POST /v1.51/images/create");
	cr_assert_not_null(pull_req);
	image_facts_release(&f);
	unsetenv("DOCKER_CONFIG");
	scratch_remove(cfg);
	engine_close(e);
}

Test(image_pulled, a_pull_brought_only_an_id_the_reference_did_not_name_before)
{
	cr_assert(image_pull_brought(NULL, "sha256:bb"), "absent before");
	cr_assert(image_pull_brought("sha256:aa", "sha256:bb"), "the tag moved: the new ID");
	cr_assert_not(image_pull_brought("sha256:aa", "sha256:aa"), "the user's, re-pulled");
	cr_assert_not(image_pull_brought("sha256:aa", NULL), "nothing after");
	cr_assert_not(image_pull_brought(NULL, NULL));
}

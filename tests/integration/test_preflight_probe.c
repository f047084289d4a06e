/* image_stack_probe against the real engine, on images/stack-a and
 * images/stack-b (FROM scratch: version files and library names only).
 * Shows the versions are read, the probe container is never started and
 * is always removed, and the cache answers without the engine. */
#include <criterion/criterion.h>

#include "tests/support/scratch.h"
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "orchestrator/containers/ours.h"
#include "docker/engine.h"
#include "common/fsutil.h"
#include "preflight/preflight.h"
#include "orchestrator/replay/stack_probe.h"
#include "tests/support/preflight_fixtures.h"

#define IMAGE_A test_image("stack-a")
#define IMAGE_B test_image("stack-b")
#define SDK_LIB "/opt/python/lib/python3.13/site-packages/_rocm_sdk_core/lib"

static struct engine *eng;
static char *tmp;

static void setup(void)
{
	struct error err = { 0 };

	cr_assert_eq(engine_open(&eng, NULL, &err), 0, "engine: %s", err.msg);
	tmp = scratch_dir("preflight-test");
}

static void teardown(void)
{
	engine_close(eng);
	eng = NULL;
	scratch_remove(tmp);
	free(tmp);
}

TestSuite(preflight_probe, .init = setup, .fini = teardown, .timeout = 60);

static char *image_id(const char *image)
{
	struct error err = { 0 };
	struct engine_image_info img;
	char *out;

	cr_assert_eq(engine_image_inspect(eng, image, &img, &err), 0,
		     "%s: %s (build it with `make images`)", image, err.msg);
	out = steal_pointer(&img.id);
	engine_image_info_release(&img);
	return out;
}

/* docs/cli.md's order for a rocm/vllm-style image: extra dir, /opt/rocm/lib,
 * then the image's own LD_LIBRARY_PATH. */
static void lib_dirs(struct strvec *v, bool with_sdk)
{
	if (with_sdk)
		strvec_push(v, SDK_LIB);
	strvec_push(v, "/opt/rocm/lib");
}

/* ---- what the engine saw, from its event log ---- */

struct seen {
	const char *image;
	char *owner;           /* this test process's owner label */
	struct strvec created; /* container ids */
	struct strvec started;
	struct strvec destroyed;
	struct strvec other;   /* any action but create, archive-path, destroy */
};

static int on_event(const struct engine_event *ev, void *ud)
{
	struct seen *s = ud;
	const char *action = ev->action, *id = ev->id;
	const char *img = engine_labels_get(&ev->attributes, LABEL_IMAGE);
	const char *owner = engine_labels_get(&ev->attributes, LABEL_OWNER);

	/* Only this test's probes: the one before it may have probed the same
	 * image within the window's first second. */
	if (!action || !id || !img || strcmp(img, s->image) || !owner || strcmp(owner, s->owner))
		return 0;
	if (!strcmp(action, "create"))
		strvec_push(&s->created, id);
	else if (!strcmp(action, "start"))
		strvec_push(&s->started, id);
	else if (!strcmp(action, "destroy"))
		strvec_push(&s->destroyed, id);
	else if (strcmp(action, "archive-path"))
		strvec_push(&s->other, action);
	return 0;
}

/* Every probe-container event for image since `since`. Event times have
 * nanoseconds but the bounds are whole seconds: until = the next second,
 * which the engine waits for before it closes the stream. */
static void probe_events(const char *image, long long since, struct seen *s)
{
	const char *filters = "{\"type\":[\"container\"],\"label\":[\"hrr-docker-replay.probe=1\"]}";
	long long until = (long long)time(NULL) + 1;
	struct engine_loop *loop = NULL;
	struct engine_stream *st = NULL;
	struct error err = { 0 };
	time_t deadline = time(NULL) + 20;

	s->image = image;
	s->owner = owner_label_self();
	strvec_init(&s->created);
	strvec_init(&s->started);
	strvec_init(&s->destroyed);
	strvec_init(&s->other);
	cr_assert_eq(engine_loop_new(&loop, &err), 0, "%s", err.msg);
	cr_assert_eq(engine_events_stream(eng, filters, since, until, on_event, s, &st, &err), 0,
		     "%s", err.msg);
	cr_assert_eq(engine_loop_add(loop, st, &err), 0, "%s", err.msg);
	while (!engine_stream_done(st)) {
		cr_assert(time(NULL) < deadline, "the events stream did not end");
		cr_assert_eq(engine_loop_poll(loop, 500, -1, &err), 0, "%s", err.msg);
	}
	cr_assert_eq(engine_stream_result(st, &err), 0, "events: %s", err.msg);
	engine_stream_free(st);
	engine_loop_free(loop);
}

static void seen_release(struct seen *s)
{
	free(s->owner);
	strvec_clear(&s->created);
	strvec_clear(&s->started);
	strvec_clear(&s->destroyed);
	strvec_clear(&s->other);
}

static bool contains(const struct strvec *v, const char *s)
{
	for (size_t i = 0; i < v->n; i++)
		if (!strcmp(v->v[i], s))
			return true;
	return false;
}

static void assert_never_started_and_removed(const char *image, long long since,
					     size_t want_created)
{
	struct seen s;

	/* An engine may deliver a container's events a moment after the call
	 * returned (a destroy on dockerd 28.5, a create on a loaded root
	 * Podman): poll the window again, for at most 3 s, until the probes
	 * expected are in it and every created one's removal too. */
	for (int tries = 0;; tries++) {
		bool all_destroyed = true;

		probe_events(image, since, &s);
		for (size_t i = 0; i < s.created.n; i++)
			all_destroyed &= contains(&s.destroyed, s.created.v[i]);
		if ((all_destroyed && s.created.n >= want_created) || tries == 15)
			break;
		seen_release(&s);
		usleep(200 * 1000);
	}
	cr_assert_eq(s.created.n, want_created, "probe containers created for %s: %zu", image,
		     s.created.n);
	cr_assert_eq(s.started.n, 0, "a probe container for %s was started", image);
	/* Only reads: no attach, die, kill, exec... */
	cr_assert_eq(s.other.n, 0, "unexpected probe container action %s", s.other.n ? s.other.v[0] : "");
	for (size_t i = 0; i < s.created.n; i++)
		cr_assert(contains(&s.destroyed, s.created.v[i]), "probe container %s not removed",
			  s.created.v[i]);
	seen_release(&s);
}

/* Nothing of this test process labelled as a probe of image is left,
 * whatever the events say. Only its own (owner label): another shard may
 * be probing the same image at this moment. */
static void assert_no_probe_left(const char *image)
{
	struct error err = { 0 };
	struct engine_containers list;
	char *filter = xasprintf("hrr-docker-replay.image=%s", image);
	char *owner = owner_label_self();

	cr_assert_eq(engine_container_list(eng, filter, &list, &err), 0, "%s", err.msg);
	for (size_t i = 0; i < list.n; i++) {
		const struct engine_labels *labels = &list.v[i].labels;
		const char *o = engine_labels_get(labels, LABEL_OWNER);

		if (!o || strcmp(o, owner))
			continue;
		cr_assert_null(engine_labels_get(labels, LABEL_PROBE),
			       "a probe container of %s is left over", image);
	}
	engine_containers_release(&list);
	free(filter);
	free(owner);
}

Test(preflight_probe, reads_stack_a_without_starting_it)
{
	struct strvec dirs = STRVEC_INIT;
	struct stack_info s;
	struct error err = { 0 };
	char *id = image_id(IMAGE_A);
	char *src = xasprintf("image %s (%s)", IMAGE_A, id);
	long long since = (long long)time(NULL);

	lib_dirs(&dirs, true);
	stack_info_init(&s);
	cr_assert_eq(image_stack_probe(eng, IMAGE_A, id, &dirs, NULL, &s, &err), 0, "%s", err.msg);
	cr_assert_str_eq(s.hip_version, "7.13.0");
	/* The engine resolves /opt/rocm -> /opt/rocm-7.13.0 and the chain. */
	cr_assert_str_eq(s.hip_evidence, "/opt/rocm-7.13.0/lib/libamdhip64.so.7.13.0-1a2b3c4d");
	cr_assert_str_eq(s.comgr_version, "2.8.60200");
	cr_assert_str_eq(s.comgr_evidence, "/opt/rocm-7.13.0/lib/libamd_comgr.so.2.8.60200");
	cr_assert_str_eq(s.rocm_release, "7.13.0-1234");
	cr_assert_str_eq(s.source, src);
	cr_assert_null(s.unknown_reason);
	cr_assert_null(s.comgr_unknown_reason);

	assert_never_started_and_removed(IMAGE_A, since, 1);
	assert_no_probe_left(IMAGE_A);
	stack_info_release(&s);
	strvec_clear(&dirs);
	free(src);
	free(id);
}

Test(preflight_probe, reads_stack_b_from_the_version_file_and_the_sdk_dir)
{
	struct strvec dirs = STRVEC_INIT;
	struct stack_info s;
	struct error err = { 0 };
	char *id = image_id(IMAGE_B);

	lib_dirs(&dirs, true);
	stack_info_init(&s);
	cr_assert_eq(image_stack_probe(eng, IMAGE_B, id, &dirs, NULL, &s, &err), 0, "%s", err.msg);
	cr_assert_str_eq(s.hip_version, "7.15.26291");
	cr_assert_str_eq(s.hip_evidence, "/opt/rocm/share/hip/version");
	/* Soname link only (no libamd_comgr.so); the file name decides. */
	cr_assert_str_eq(s.comgr_version, "3.0.70000");
	cr_assert_str_eq(s.comgr_evidence, SDK_LIB "/libamd_comgr.so.3.0.70000");
	cr_assert_null(s.rocm_release);
	stack_info_release(&s);

	/* Without the SDK dir in the library path, comgr is not there. */
	strvec_clear(&dirs);
	lib_dirs(&dirs, false);
	cr_assert_eq(image_stack_probe(eng, IMAGE_B, id, &dirs, NULL, &s, &err), 0, "%s", err.msg);
	cr_assert_str_eq(s.hip_version, "7.15.26291");
	cr_assert_null(s.comgr_version);
	cr_assert_str_eq(s.comgr_unknown_reason, "no libamd_comgr.so in /opt/rocm/lib");
	assert_no_probe_left(IMAGE_B);
	stack_info_release(&s);
	strvec_clear(&dirs);
	free(id);
}

Test(preflight_probe, the_cache_answers_without_the_engine)
{
	struct strvec dirs = STRVEC_INIT;
	struct stack_info s1, s2;
	struct error err = { 0 };
	char *id = image_id(IMAGE_A);
	char *cache = xasprintf("%s/cache/deeper", tmp);
	char *file = xasprintf("%s/image-stack-%s.json", cache, id + strlen("sha256:"));
	long long since = (long long)time(NULL);
	struct stat st;

	lib_dirs(&dirs, false);
	stack_info_init(&s1);
	stack_info_init(&s2);
	cr_assert_eq(image_stack_probe(eng, IMAGE_A, id, &dirs, cache, &s1, &err), 0, "%s", err.msg);
	cr_assert_eq(stat(file, &st), 0, "no cache file %s", file);
	cr_assert_eq(st.st_mode & 0777, 0600);
	/* No engine at all: only the cache can answer. */
	cr_assert_eq(image_stack_probe(NULL, "another-tag:of-the-same-image", id, &dirs, cache, &s2,
				       &err), 0, "%s", err.msg);
	cr_assert_str_eq(s2.hip_version, s1.hip_version);
	cr_assert_str_eq(s2.hip_evidence, s1.hip_evidence);
	cr_assert_str_eq(s2.comgr_version, s1.comgr_version);
	cr_assert_str_eq(s2.rocm_release, "7.13.0-1234");
	cr_assert(strstr(s2.source, "image another-tag:of-the-same-image ("), "%s", s2.source);
	/* One probe container over both calls. */
	assert_never_started_and_removed(IMAGE_A, since, 1);
	stack_info_release(&s1);
	stack_info_release(&s2);
	strvec_clear(&dirs);
	free(cache);
	free(file);
	free(id);
}

Test(preflight_probe, a_corrupt_cache_is_ignored_and_rewritten)
{
	struct strvec dirs = STRVEC_INIT;
	struct stack_info s;
	struct error err = { 0 };
	char *id = image_id(IMAGE_B);
	char *file = xasprintf("%s/image-stack-%s.json", tmp, id + strlen("sha256:"));
	struct strbuf text = STRBUF_INIT;
	cJSON *j;

	lib_dirs(&dirs, true);
	pft_writef(file, "{\"schema\":1,\"image_id\":\"%s\",\"lib_dirs\":[tr", id);
	stack_info_init(&s);
	cr_assert_eq(image_stack_probe(eng, IMAGE_B, id, &dirs, tmp, &s, &err), 0, "%s", err.msg);
	cr_assert_str_eq(s.hip_version, "7.15.26291");
	cr_assert_eq(fs_read_small_file(file, 1 << 16, &text, &err), 0, "%s", err.msg);
	j = cJSON_Parse(text.buf);
	cr_assert(cJSON_IsObject(j), "cache not rewritten: %s", text.buf);
	cr_assert_str_eq(cJSON_GetObjectItem(j, "hip_version")->valuestring, "7.15.26291");
	cJSON_Delete(j);
	stack_info_release(&s);
	cr_assert_eq(image_stack_probe(NULL, IMAGE_B, id, &dirs, tmp, &s, &err), 0, "%s", err.msg);
	cr_assert_str_eq(s.comgr_version, "3.0.70000");
	stack_info_release(&s);
	strbuf_release(&text);
	strvec_clear(&dirs);
	free(file);
	free(id);
}

Test(preflight_probe, the_container_is_removed_when_the_probe_fails)
{
	struct strvec dirs = STRVEC_INIT;
	struct stack_info s;
	struct error err = { 0 };
	char *id = image_id(IMAGE_A);
	struct strbuf longdir = STRBUF_INIT;
	long long since = (long long)time(NULL);

	/* dockerd answers 500 for a path longer than PATH_MAX: a hard error
	 * after the container exists. Podman answers 404 for any path it
	 * cannot stat, so no path forces that error there (docs/engines.md). */
	if (!strcmp(engine_name(eng), "podman")) {
		teardown(); /* Criterion runs no .fini after a skip */
		cr_skip_test("Podman has no path stat that fails with other than 404");
	}
	strbuf_addch(&longdir, '/');
	for (int i = 0; i < 5000; i++)
		strbuf_addch(&longdir, 'a');
	strvec_push(&dirs, longdir.buf);
	stack_info_init(&s);
	cr_assert_eq(image_stack_probe(eng, IMAGE_A, id, &dirs, tmp, &s, &err), -1);
	cr_assert_eq(err.kind, ERR_HTTP, "%d %s", err.kind, err.msg);
	{
		char *want = xasprintf("probing image %s: ", IMAGE_A);

		cr_assert(!strncmp(err.msg, want, strlen(want)), "%s", err.msg);
		free(want);
	}
	cr_assert_null(s.hip_version);
	assert_never_started_and_removed(IMAGE_A, since, 1);
	assert_no_probe_left(IMAGE_A);
	/* A failed probe is not cached. */
	cr_assert_eq(image_stack_probe(NULL, IMAGE_A, id, &dirs, tmp, &s, &err), -1);
	cr_assert_eq(err.kind, ERR_USAGE);
	strbuf_release(&longdir);
	strvec_clear(&dirs);
	free(id);
}

Test(preflight_probe, a_missing_image_is_a_clear_error)
{
	struct strvec dirs = STRVEC_INIT;
	struct stack_info s;
	struct error err = { 0 };

	lib_dirs(&dirs, false);
	stack_info_init(&s);
	cr_assert_eq(image_stack_probe(eng, "hrr-no-such-image:dev", NULL, &dirs, tmp, &s, &err), -1);
	cr_assert(!strncmp(err.msg, "probing image hrr-no-such-image:dev: ", 37), "%s", err.msg);
	cr_assert_null(s.hip_version);
	strvec_clear(&dirs);
}

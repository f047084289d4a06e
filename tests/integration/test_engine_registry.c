/* Pulls through the engine from the loopback registries that
 * tests/setup.sh starts: plain on 127.0.0.1:5000, htpasswd on :5001.
 * The test image is pushed there with the docker CLI (its own temporary
 * config, never ~/.docker), the local copy removed, then pulled back with
 * engine_pull_image(). */
#include <criterion/criterion.h>

#include "tests/support/scratch.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "common/xalloc.h"
#include "docker/internal.h"
#include "tests/support/engine_test.h"

/* One repository per test process: suites against other engines run at
 * the same time on the same registries and would re-tag each other's. */
static const char *repo(void)
{
	static char name[64];

	snprintf(name, sizeof(name), "hrr-engine-test/busybox-%ld", (long)getpid());
	return name;
}
#define REPO repo()

/* "<registry>/<repo>:<tag>" in a buffer that lives as long as the test. */
static const char *ref_of(const char *registry, const char *tag)
{
	static char refs[4][160];
	static int next;
	char *r = refs[next++ % 4];

	snprintf(r, sizeof(refs[0]), "%s/%s:%s", registry, REPO, tag);
	return r;
}
#define TAG "v1"

static char *cfg_dir;   /* the DOCKER_CONFIG engine_pull's auth lookup sees */
static char *old_config;

static void setup(void)
{
	et_suite_init();
	old_config = getenv("DOCKER_CONFIG") ? xstrdup(getenv("DOCKER_CONFIG")) : NULL;
	cfg_dir = scratch_dir("engine-test");
	setenv("DOCKER_CONFIG", cfg_dir, 1);
}

static void teardown(void)
{
	if (old_config)
		setenv("DOCKER_CONFIG", old_config, 1);
	else
		unsetenv("DOCKER_CONFIG");
	free(old_config);
	scratch_remove(cfg_dir);
	free(cfg_dir);
	et_suite_fini();
}

TestSuite(engine_registry, .init = setup, .fini = teardown, .timeout = 120);

/* Push ENGINE_TEST_IMAGE as docker/registry/REPO:TAG, then drop the local name. */
static void push_to(const char *registry, bool login)
{
	char *d = scratch_dir("engine-test");
	int login_rc = 0, push_rc;

	/* The CLI pushes with its own throwaway config, never ~/.docker. The
	 * credentials are written there rather than by `docker login`, which
	 * Podman's /auth refuses for a plain-HTTP registry whatever
	 * registries.conf says (docs/engines.md). */
	if (login)
		login_rc = et_sh("printf '{\"auths\":{\"%s\":{\"auth\":\"%%s\"}}}' "
				 "\"$(printf %s:%s | base64 -w0)\" >%s/config.json",
				 registry, ENGINE_TEST_REG_USER, ENGINE_TEST_REG_PASS, d);
	push_rc = login_rc ? -1
			   : et_sh("docker --config %s tag %s %s/%s:%s && "
				   "docker --config %s push -q %s/%s:%s >/dev/null && "
				   "docker --config %s rmi %s/%s:%s >/dev/null",
				   d, ENGINE_TEST_IMAGE, registry, REPO, TAG, d, registry, REPO, TAG,
				   d, registry, REPO, TAG);
	scratch_remove(d);
	free(d);
	cr_assert_eq(login_rc, 0, "docker login %s failed (is tests/setup.sh's registry up?)",
		     registry);
	cr_assert_eq(push_rc, 0, "pushing to %s failed (is tests/setup.sh's registry up?)",
		     registry);
}

static void drop_local(const char *ref)
{
	et_sh("docker rmi %s >/dev/null 2>&1", ref);
}

static void write_config(const char *user, const char *pass, const char *registry)
{
	char *up = xasprintf("%s:%s", user, pass);
	char *b = engine_base64_encode(up, strlen(up));
	char *json = xasprintf("{\"auths\":{\"%s\":{\"auth\":\"%s\"}}}", registry, b);
	char *path = xasprintf("%s/config.json", cfg_dir);

	et_write(path, json, 0600);
	free(path);
	free(json);
	free(b);
	free(up);
}

struct progress {
	int events;
	int with_status;
};

static void on_progress(const struct engine_pull_event *ev, void *ud)
{
	struct progress *p = ud;

	p->events++;
	p->with_status += ev->status != NULL;
}

/* Auth header lookup + pull, as the orchestrator does it. */
static int pull(struct engine *e, const char *ref_s, struct progress *p, struct error *err)
{
	struct image_ref ref;
	char *auth = NULL;
	int rc;

	cr_assert_eq(image_ref_parse(&ref, ref_s, err), 0, "%s", err->msg);
	cr_assert_eq(registry_auth_header(&ref, &auth, err), 0, "%s", err->msg);
	rc = engine_pull_image(e, ref_s, auth, on_progress, p, err);
	free(auth);
	image_ref_release(&ref);
	return rc;
}

/* "<registry>/<repo>@sha256:…" as the registry itself names the tag's
 * manifest (its Docker-Content-Digest header). */
static char *registry_digest_ref(const char *registry, const char *tag)
{
	char *cmd = xasprintf("curl -sfI -H 'Accept: application/vnd.docker.distribution.manifest.v2+json' "
			      "http://%s/v2/%s/manifests/%s", registry, REPO, tag);
	FILE *f = popen(cmd, "r");
	char line[512], *ref = NULL;

	cr_assert(f, "popen %s", cmd);
	while (fgets(line, sizeof(line), f)) {
		if (!strncasecmp(line, "Docker-Content-Digest: ", 23)) {
			line[strcspn(line, "\r\n")] = '\0';
			ref = xasprintf("%s/%s@%s", registry, REPO, line + 23);
		}
	}
	pclose(f);
	free(cmd);
	cr_assert(ref, "the registry names no digest for %s:%s", REPO, tag);
	return ref;
}

static bool has_string(const struct strvec *v, const char *want)
{
	for (size_t i = 0; i < v->n; i++)
		if (!strcmp(v->v[i], want))
			return true;
	return false;
}

Test(engine_registry, pull_from_plain_registry_then_by_digest)
{
	struct engine *e = et_engine();
	const char *ref = ref_of(ENGINE_TEST_REGISTRY, TAG);
	struct progress p = { 0 };
	struct engine_image_info img;
	struct error err;
	char *by_digest;

	push_to(ENGINE_TEST_REGISTRY, false);
	cr_assert_eq(engine_image_inspect(e, ref, &img, &err), -1, "local copy still there");
	cr_assert_eq(pull(e, ref, &p, &err), 0, "%s", err.msg);
	cr_assert_gt(p.events, 0, "the progress callback saw events");
	cr_assert_eq(p.with_status, p.events);
	cr_assert_eq(engine_image_inspect(e, ref, &img, &err), 0, "%s", err.msg);
	cr_assert_gt(img.repo_digests.n, 0);
	/* The registry's own digest: Podman lists every digest it knows under
	 * every name (docs/engines.md), so RepoDigests[0] may name another
	 * repository's manifest. The engine must list the registry's. */
	by_digest = registry_digest_ref(ENGINE_TEST_REGISTRY, TAG);
	cr_assert(has_string(&img.repo_digests, by_digest), "RepoDigests lacks %s", by_digest);
	engine_image_info_release(&img);

	drop_local(ref);
	/* Podman keeps the digest reference while another tag holds the image
	 * (docs/engines.md); dockerd forgets it with the tag. */
	if (strcmp(engine_name(e), "podman"))
		cr_assert_eq(engine_image_inspect(e, by_digest, &img, &err), -1,
			     "digest ref still there");
	memset(&p, 0, sizeof(p));
	cr_assert_eq(pull(e, by_digest, &p, &err), 0, "%s", err.msg);
	cr_assert_gt(p.events, 0);
	cr_assert_eq(engine_image_inspect(e, by_digest, &img, &err), 0, "%s", err.msg);
	engine_image_info_release(&img);
	drop_local(by_digest);
	free(by_digest);
	engine_close(e);
}

Test(engine_registry, missing_image_is_a_404_with_the_engines_message)
{
	struct engine *e = et_engine();
	struct progress p = { 0 };
	struct error err;

	cr_assert_eq(pull(e, ref_of(ENGINE_TEST_REGISTRY, "no-such-tag"), &p, &err), -1);
	cr_assert_eq(err.kind, ERR_HTTP);
	cr_assert_eq(err.status, 404);
	cr_assert(strstr(err.msg, "not found"), "%s", err.msg);
	cr_assert(strstr(err.msg, ENGINE_TEST_REGISTRY), "%s", err.msg);
	engine_close(e);
}

Test(engine_registry, auth_registry_without_credentials_names_the_registry)
{
	struct engine *e = et_engine();
	struct progress p = { 0 };
	struct error err;

	push_to(ENGINE_TEST_AUTH_REGISTRY, true);
	cr_assert_eq(pull(e, ref_of(ENGINE_TEST_AUTH_REGISTRY, TAG), &p, &err), -1);
	cr_assert_eq(err.kind, ERR_HTTP);
	cr_assert(strstr(err.msg, ENGINE_TEST_AUTH_REGISTRY), "%s", err.msg);
	/* dockerd's words, then Podman's (inside its 200 stream) */
	cr_assert(strstr(err.msg, "no basic auth credentials") ||
		  strstr(err.msg, "authentication required"), "%s", err.msg);
	engine_close(e);
}

Test(engine_registry, auth_registry_with_wrong_credentials_names_the_registry)
{
	struct engine *e = et_engine();
	struct progress p = { 0 };
	struct error err;

	push_to(ENGINE_TEST_AUTH_REGISTRY, true);
	write_config(ENGINE_TEST_REG_USER, "not-the-password", ENGINE_TEST_AUTH_REGISTRY);
	cr_assert_eq(pull(e, ref_of(ENGINE_TEST_AUTH_REGISTRY, TAG), &p, &err), -1);
	cr_assert_eq(err.kind, ERR_HTTP);
	cr_assert(strstr(err.msg, ENGINE_TEST_AUTH_REGISTRY), "%s", err.msg);
	cr_assert(strstr(err.msg, "unauthorized") || strstr(err.msg, "authentication"), "%s",
		  err.msg);
	engine_close(e);
}

Test(engine_registry, auth_registry_with_right_credentials_pulls)
{
	struct engine *e = et_engine();
	const char *ref = ref_of(ENGINE_TEST_AUTH_REGISTRY, TAG);
	struct progress p = { 0 };
	struct engine_image_info img;
	struct error err;

	push_to(ENGINE_TEST_AUTH_REGISTRY, true);
	write_config(ENGINE_TEST_REG_USER, ENGINE_TEST_REG_PASS,
		     "https://" ENGINE_TEST_AUTH_REGISTRY "/v2/");
	cr_assert_eq(pull(e, ref, &p, &err), 0, "%s", err.msg);
	cr_assert_gt(p.events, 0);
	cr_assert_eq(engine_image_inspect(e, ref, &img, &err), 0, "%s", err.msg);
	engine_image_info_release(&img);
	drop_local(ref);
	engine_close(e);
}

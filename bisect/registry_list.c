/* The candidates from the registry: good's repository's tags through the
 * registry client (registry/), authenticated as `pull` is, each tag's
 * config read for its created time. */
#include "bisect/candidates.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "docker/engine.h"
#include "registry/registry.h"

/* Docker Hub's API host is not its name. */
static const char *api_host(const char *registry)
{
	return !strcmp(registry, "docker.io") ? "registry-1.docker.io" : registry;
}

static int same_repository(const struct image_ref *g, const struct image_ref *b, struct error *err)
{
	if (g->digest || b->digest)
		return error_set(err, ERR_USAGE, 0,
				 "bisect: --good and --bad name tags of a registry repository; "
				 "for digests list the candidates with --images FILE");
	if (strcmp(g->registry, b->registry) || strcmp(g->repository, b->repository))
		return error_set(err, ERR_USAGE, 0,
				 "bisect: --good %s and --bad %s are not of one repository; list the "
				 "candidates with --images FILE", g->name, b->name);
	return 0;
}

static int list_tags(struct bisect_candidates *c, struct registry_client *rc,
		     const struct image_ref *g, const struct image_ref *b, const char *pattern,
		     struct error *err)
{
	cleanup_strvec struct strvec tags = STRVEC_INIT;

	if (registry_tags(rc, g->repository, &tags, err) < 0)
		return -1;
	for (size_t i = 0; i < tags.n; i++) {
		const char *t = tags.v[i];
		struct registry_image im;
		cleanup_free char *ref = NULL;

		if (pattern && fnmatch(pattern, t, 0) && strcmp(t, g->tag) && strcmp(t, b->tag))
			continue;
		if (registry_image_info(rc, g->repository, t, &im, err) < 0)
			return error_prefix(err, "bisect: listing %s: ", g->name);
		ref = xasprintf("%s:%s", g->name, t);
		bisect_candidates_push(c, ref, t, im.created);
		registry_image_release(&im);
	}
	return 0;
}

int bisect_candidates_from_registry(struct bisect_candidates *c, const char *good,
				    const char *bad, const char *pattern, struct error *err)
{
	struct image_ref g = { 0 }, b = { 0 };
	struct registry_client *rc = NULL;
	cleanup_free char *user = NULL, *pass = NULL, *gref = NULL, *bref = NULL;
	int r = -1;

	if (image_ref_parse(&g, good, err) < 0 || image_ref_parse(&b, bad, err) < 0) {
		error_prefix(err, "bisect: ");
		goto out;
	}
	if (same_repository(&g, &b, err) < 0 || registry_credentials(&g, &user, &pass, err) < 0 ||
	    registry_open(&rc, api_host(g.registry), user, pass, err) < 0)
		goto out;
	if (list_tags(c, rc, &g, &b, pattern, err) < 0)
		goto out;
	c->registry_requests = registry_requests(rc);
	bisect_candidates_sort(c);
	gref = xasprintf("%s:%s", g.name, g.tag);
	bref = xasprintf("%s:%s", b.name, b.tag);
	r = bisect_candidates_between(c, gref, bref, err);
out:
	if (pass)
		explicit_bzero(pass, strlen(pass));
	registry_close(rc);
	image_ref_release(&g);
	image_ref_release(&b);
	return r;
}

/* The registry's candidates: good's repository's tags through the
 * registry client (docker/registry/), authenticated as `pull` is, each tag's
 * config read for its created time. */
#include "orchestrator/bisect/candidates.h"

#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "docker/engine.h"
#include "docker/registry/registry.h"

const char *bisect_registry_api_host(const char *registry)
{
	return registry_api_host(registry);
}

/* The tags/list failure that the engine's tags can stand in for: the
 * registry could not be reached, or has no such repository. Refused
 * credentials or a broken answer are not (its tags would be missing
 * silently), nor is a tag's manifest failing once the list came. */
static bool registry_absent(const struct error *e)
{
	return e->kind == ERR_CONNECT || e->kind == ERR_TIMEOUT || e->kind == ERR_NOT_FOUND;
}

static int list_tags(struct bisect_candidates *c, struct registry_client *rc,
		     const struct image_ref *g, const struct image_ref *b, const char *pattern,
		     bool *absent, struct error *err)
{
	cleanup_strvec struct strvec tags = STRVEC_INIT;

	if (registry_tags(rc, g->repository, &tags, err) < 0) {
		*absent = registry_absent(err);
		return -1;
	}
	for (size_t i = 0; i < tags.n; i++) {
		const char *t = tags.v[i];
		struct registry_image im;
		cleanup_free char *ref = NULL;

		if (!bisect_tag_wanted(pattern, t, g->tag, b->tag))
			continue;
		if (registry_image_info(rc, g->repository, t, &im, err) < 0)
			return error_prefix(err, "bisect: listing %s: ", g->name);
		ref = xasprintf("%s:%s", g->name, t);
		bisect_candidates_push(c, ref, t, im.created);
		registry_image_release(&im);
	}
	return 0;
}

int bisect_candidates_registry(struct bisect_candidates *c, const struct image_ref *good,
			       const struct image_ref *bad, const char *pattern, bool *absent,
			       struct error *err)
{
	struct registry_client *rc = NULL;
	cleanup_free char *user = NULL, *pass = NULL;
	int r = -1;

	*absent = false;
	if (registry_credentials(good, &user, &pass, err) < 0 ||
	    registry_open(&rc, bisect_registry_api_host(good->registry), user, pass, err) < 0)
		goto out;
	r = list_tags(c, rc, good, bad, pattern, absent, err);
	c->registry_requests = registry_requests(rc);
out:
	if (pass)
		explicit_bzero(pass, strlen(pass));
	registry_close(rc);
	return r;
}

#include "orchestrator/sweep/sweep_pin.h"

#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "docker/registry/registry.h"

/* The digest the registry names for ref's tag (or digest), as a
 * reference the engine pulls: "name@sha256:...". */
static int from_registry(const struct image_ref *ref, struct sweep_image *im, struct error *err)
{
	struct registry_client *rc = NULL;
	struct registry_image ri = { 0 };
	cleanup_free char *user = NULL, *pass = NULL;
	int r = -1;

	if (registry_credentials(ref, &user, &pass, err) < 0 ||
	    registry_open(&rc, registry_api_host(ref->registry), user, pass, err) < 0)
		goto out;
	if (registry_image_info(rc, ref->repository, ref->digest ? ref->digest : ref->tag, &ri,
				err) < 0)
		goto out;
	if (!ri.manifest_digest) {
		error_set(err, ERR_PROTOCOL, 0, "registry %s named no digest for %s", ref->registry,
			  im->ref);
		goto out;
	}
	im->digest = xasprintf("%s@%s", ref->name, ref->digest ? ref->digest : ri.manifest_digest);
	im->manifest_size = ri.layers_size;
	r = 0;
out:
	if (pass)
		explicit_bzero(pass, strlen(pass));
	registry_image_release(&ri);
	registry_close(rc);
	return r;
}

/* The engine's ID of im->ref: 1 found, 0 not there (err says so as
 * --pull never does), < 0 the engine failed. */
static int from_engine(struct engine *e, struct sweep_image *im, struct error *err)
{
	struct image_facts f = { 0 };
	int r;

	if (!e)
		return error_set(err, ERR_NOT_FOUND, 0, "image %s: no engine to look in", im->ref), 0;
	r = image_ensure(e, im->ref, PULL_NEVER, NULL, -1, &f, err);
	if (r == 0)
		im->id = steal_pointer(&f.id);
	image_facts_release(&f);
	if (r < 0)
		return err->kind == ERR_NOT_FOUND ? 0 : -1;
	return 1;
}

int sweep_pin_resolve(struct engine *e, enum pull_policy pull, struct sweep_image *im,
		      struct error *err)
{
	struct image_ref ref = { 0 };
	int r = -1, here = 0;

	if (image_ref_parse(&ref, im->ref, err) < 0) {
		error_prefix(err, "--image: ");
		err->kind = ERR_USAGE;
		return -1;
	}
	if (pull != PULL_ALWAYS)
		here = from_engine(e, im, err);
	if (here != 0 || pull == PULL_NEVER) {
		r = here > 0 ? 0 : -1;
	} else {
		r = from_registry(&ref, im, err);
		if (r < 0)
			error_prefix(err, "resolving %s: ", im->ref);
	}
	image_ref_release(&ref);
	return r;
}

const char *sweep_pin_name(const struct sweep_image *im)
{
	return im->id ? im->id : im->digest;
}

/* A tag's manifest and its config's `created`: an image manifest (Docker
 * v2 schema 2 or OCI) names its config blob; a manifest list / OCI index
 * names one manifest per platform, of which linux/amd64 is chosen (the
 * GPUs this tool drives sit in x86-64 hosts), else the first. */
#include "docker/registry/internal.h"

#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/json.h"
#include "common/xalloc.h"

#define ACCEPT_MANIFESTS                                                             \
	"application/vnd.oci.image.index.v1+json, "                                  \
	"application/vnd.docker.distribution.manifest.list.v2+json, "                \
	"application/vnd.oci.image.manifest.v1+json, "                               \
	"application/vnd.docker.distribution.manifest.v2+json"

void registry_image_release(struct registry_image *im)
{
	free(im->manifest_digest);
	free(im->config_digest);
	memset(im, 0, sizeof(*im));
	im->created = -1;
	im->layers_size = -1;
}

/* The layers' compressed sizes summed; -1 when one is missing. */
static long long layers_size(const cJSON *manifest)
{
	const cJSON *l;
	long long sum = 0;

	cJSON_ArrayForEach(l, json_arr(manifest, "layers")) {
		long long sz = json_int(l, "size", 0, 1LL << 50, -1);

		if (sz < 0)
			return -1;
		sum += sz;
	}
	return sum;
}

/* Digests go into URLs: only "algo:hex". */
static bool digest_ok(const char *d)
{
	return d && strlen(d) < 160 && strchr(d, ':') &&
	       strspn(d, "abcdefghijklmnopqrstuvwxyz0123456789:+.-_") == strlen(d);
}

static int get_json(struct registry_client *c, const char *path, const char *accept,
		    const char *what, cJSON **out, char **digest, struct error *err)
{
	struct registry_response r = { 0 };
	int rc = registry_get(c, path, accept, &r, err);

	*out = NULL;
	if (rc == 0 && r.status == 404)
		rc = error_set(err, ERR_NOT_FOUND, 404, "registry %s has no %s", registry_base(c),
			       what);
	else if (rc == 0 && r.status != 200)
		rc = error_set(err, ERR_HTTP, (int)r.status, "registry %s: %s: HTTP %ld",
			       registry_base(c), what, r.status);
	if (rc == 0 && !(*out = cJSON_ParseWithLength(r.body.buf ? r.body.buf : "", r.body.len)))
		rc = error_set(err, ERR_PROTOCOL, 0, "registry %s: %s is not JSON", registry_base(c),
			       what);
	if (rc == 0 && digest)
		*digest = xstrdup_or_null(r.digest);
	registry_response_release(&r);
	return rc;
}

/* An index's linux/amd64 entry, else its first. */
static const char *index_pick(const cJSON *index)
{
	const cJSON *m;
	const char *first = NULL;

	cJSON_ArrayForEach(m, json_arr(index, "manifests")) {
		const cJSON *p = json_obj(m, "platform");
		const char *os = json_str(p, "os"), *arch = json_str(p, "architecture");
		const char *d = json_str(m, "digest");

		if (!digest_ok(d))
			continue;
		if (!first)
			first = d;
		if (os && arch && !strcmp(os, "linux") && !strcmp(arch, "amd64"))
			return d;
	}
	return first;
}

int registry_image_info(struct registry_client *c, const char *repository, const char *tag,
			struct registry_image *out, struct error *err)
{
	cleanup_free char *path = xasprintf("/v2/%s/manifests/%s", repository, tag);
	cleanup_free char *what = xasprintf("manifest %s:%s", repository, tag);
	cleanup_cjson cJSON *m = NULL;
	cleanup_cjson cJSON *cfg = NULL;
	const cJSON *config;
	const char *cd;

	memset(out, 0, sizeof(*out));
	out->created = -1;
	out->layers_size = -1;
	if (get_json(c, path, ACCEPT_MANIFESTS, what, &m, &out->manifest_digest, err) < 0)
		goto fail;
	if (json_get(m, "manifests")) {
		const char *d = index_pick(m);
		cleanup_free char *sub = NULL;

		if (!d) {
			error_set(err, ERR_PROTOCOL, 0, "registry: %s: an index without manifests", what);
			goto fail;
		}
		sub = xasprintf("/v2/%s/manifests/%s", repository, d);
		cJSON_Delete(m);
		if (get_json(c, sub, ACCEPT_MANIFESTS, what, &m, NULL, err) < 0)
			goto fail;
	}
	config = json_obj(m, "config");
	cd = json_str(config, "digest");
	if (!digest_ok(cd)) {
		error_set(err, ERR_PROTOCOL, 0, "registry: %s names no config blob", what);
		goto fail;
	}
	out->config_digest = xstrdup(cd);
	out->layers_size = layers_size(m);
	free(path);
	path = xasprintf("/v2/%s/blobs/%s", repository, cd);
	if (get_json(c, path, "application/json, */*", what, &cfg, NULL, err) < 0)
		goto fail;
	out->created = registry_time_parse(json_str(cfg, "created"));
	return 0;
fail:
	registry_image_release(out);
	return -1;
}

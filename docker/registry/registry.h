/* A small client of the Registry HTTP API v2 (the OCI distribution
 * spec): a repository's tags (tags/list, paginated by the Link header),
 * a tag's manifest (an image manifest, or a manifest list / OCI index
 * resolved to one platform) and its config blob's `created` time. The
 * engine lists no remote tags, so `bisect` asks the registry itself.
 *
 * Auth: anonymous first; a 401 answers with a challenge (WWW-Authenticate):
 * Basic is answered with the credentials given, Bearer by fetching a token
 * from the challenge's realm (with those credentials, when any) for its
 * service and scope, then retrying. http for a loopback host, https
 * otherwise. Knows nothing of HRR or of the engine. */
#ifndef HRR_REGISTRY_REGISTRY_H
#define HRR_REGISTRY_REGISTRY_H

#include <stdbool.h>

#include "common/error.h"
#include "common/strvec.h"

struct registry_client;

/* host: "127.0.0.1:5000", "registry.example.com". username/password may be
 * NULL (anonymous). */
int registry_open(struct registry_client **out, const char *host, const char *username,
		  const char *password, struct error *err) __attribute__((warn_unused_result));
void registry_close(struct registry_client *c);
/* How many HTTP requests the client made (tests count them). */
unsigned registry_requests(const struct registry_client *c);

/* Every tag of repository ("team/image"), in the registry's order. */
int registry_tags(struct registry_client *c, const char *repository, struct strvec *tags,
		  struct error *err) __attribute__((warn_unused_result));

struct registry_image {
	char *manifest_digest; /* Docker-Content-Digest of the tag's manifest (or index) */
	char *config_digest;   /* the chosen image's config blob */
	long long created;     /* epoch seconds of the config's `created`, -1 unknown */
	long long layers_size; /* the chosen manifest's layers, compressed (a lower bound
				* of the image's size on an engine); -1 unknown */
};
void registry_image_release(struct registry_image *im);

/* The manifest of repository:tag and its config's created time; an index
 * resolves to linux/amd64 (else its first manifest). */
int registry_image_info(struct registry_client *c, const char *repository, const char *tag,
			struct registry_image *out, struct error *err)
	__attribute__((warn_unused_result));

/* ---- pure parts (docker/registry/parse.c), unit-tested alone ---- */

struct registry_challenge {
	bool bearer;        /* else Basic */
	char *realm, *service, *scope;
};
void registry_challenge_release(struct registry_challenge *ch);
/* One WWW-Authenticate value: `Bearer realm="...",service="...",scope="..."`
 * or `Basic realm="..."`. < 0 when it is neither. */
int registry_challenge_parse(const char *value, struct registry_challenge *out);
/* The target of a `Link: </v2/...?n=..&last=..>; rel="next"` header, or
 * NULL when there is no next page. Caller frees. */
char *registry_link_next(const char *value);
/* RFC 3339 ("2026-12-01T21:41:54.123456789Z", "+02:00" offsets) to epoch
 * seconds; -1 when it is not one. */
long long registry_time_parse(const char *s);
/* Whether host (with an optional :port) is loopback: plain http is used. */
bool registry_host_is_loopback(const char *host);
/* The host the registry API of registry ("docker.io", "127.0.0.1:5000")
 * is on: Docker Hub's is not its name. */
const char *registry_api_host(const char *registry);

#endif

/* Inside the registry client: the GET its requests share. */
#ifndef HRR_REGISTRY_INTERNAL_H
#define HRR_REGISTRY_INTERNAL_H

#include <curl/curl.h>
#include <cjson/cJSON.h>

#include "common/strbuf.h"
#include "docker/registry/registry.h"

struct registry_response {
	long status;
	struct strbuf body;
	char *www_authenticate, *link, *digest, *content_type;
	bool too_big;
};
void registry_response_release(struct registry_response *r);

/* GET path ("/v2/...", or an absolute URL from a Link header) answering
 * the auth challenges; r->status is the final HTTP status (any: the
 * caller decides). */
int registry_get(struct registry_client *c, const char *path, const char *accept,
		 struct registry_response *r, struct error *err)
	__attribute__((warn_unused_result));
const char *registry_base(const struct registry_client *c);

#endif

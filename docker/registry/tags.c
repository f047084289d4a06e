/* tags/list, page by page: the Link header names the next page (the
 * distribution spec's pagination); a registry that never ends is cut off. */
#include "docker/registry/internal.h"

#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/json.h"
#include "common/xalloc.h"

#define PAGE_SIZE 100
#define MAX_PAGES 1000

static int add_page(const struct registry_response *r, const char *repository,
		    struct strvec *tags, struct error *err)
{
	cleanup_cjson cJSON *j = cJSON_ParseWithLength(r->body.buf ? r->body.buf : "", r->body.len);
	const cJSON *list = json_get(j, "tags"), *t;

	if (!cJSON_IsObject(j))
		return error_set(err, ERR_PROTOCOL, 0, "registry: tags of %s: not a JSON object",
				 repository);
	/* "tags": null is how a repository without tags answers. */
	if (cJSON_IsNull(list) || !list)
		return 0;
	if (!cJSON_IsArray(list))
		return error_set(err, ERR_PROTOCOL, 0, "registry: tags of %s: \"tags\" is not a list",
				 repository);
	cJSON_ArrayForEach(t, list) {
		const char *tag = json_str_of(t);

		if (tag && *tag)
			strvec_push(tags, tag);
	}
	return 0;
}

/* The next page's path: relative, or absolute on this registry only (a
 * Link to another host would carry the token there). */
static int next_path(const struct registry_client *c, const struct registry_response *r,
		     char **next, struct error *err)
{
	const char *base = registry_base(c);

	*next = r->link ? registry_link_next(r->link) : NULL;
	if (!*next || (*next)[0] == '/')
		return 0;
	if (!strncmp(*next, base, strlen(base)) && (*next)[strlen(base)] == '/')
		return 0;
	error_set(err, ERR_PROTOCOL, 0, "registry %s: the next page of tags is on another host (%s)",
		  base, *next);
	free(*next);
	*next = NULL;
	return -1;
}

int registry_tags(struct registry_client *c, const char *repository, struct strvec *tags,
		  struct error *err)
{
	char *path = xasprintf("/v2/%s/tags/list?n=%d", repository, PAGE_SIZE);
	int pages = 0;

	while (path) {
		struct registry_response r = { 0 };
		char *next = NULL;
		int rc = registry_get(c, path, "application/json", &r, err);

		if (rc == 0 && r.status == 404)
			rc = error_set(err, ERR_NOT_FOUND, 404, "registry %s has no repository %s",
				       registry_base(c), repository);
		else if (rc == 0 && r.status != 200)
			rc = error_set(err, ERR_HTTP, (int)r.status,
				       "registry %s: tags of %s: HTTP %ld", registry_base(c),
				       repository, r.status);
		if (rc == 0)
			rc = add_page(&r, repository, tags, err);
		if (rc == 0)
			rc = next_path(c, &r, &next, err);
		if (rc == 0 && next && ++pages >= MAX_PAGES)
			rc = error_set(err, ERR_LIMIT, 0, "registry %s: tags of %s: more than %d pages",
				       registry_base(c), repository, MAX_PAGES);
		registry_response_release(&r);
		free(path);
		path = rc == 0 ? next : (free(next), NULL);
		if (rc < 0)
			return -1;
	}
	return 0;
}

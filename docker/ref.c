/* Image references, after the distribution/reference grammar:
 *   [domain[:port]/]path[:tag][@algorithm:hex]
 * The first component is a registry only when it looks like a host (has
 * '.' or ':' or is "localhost"): "rocm/vllm" is a Docker Hub repository. */
#include "docker/internal.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/xalloc.h"

#define REF_NAME_MAX 255
#define REF_TAG_MAX 128
#define DOCKER_HUB "docker.io"
#define DOCKER_HUB_AUTH_KEY "https://index.docker.io/v1/"

static bool ref_is_lower_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

/* path-component := [a-z0-9]+ ((\.|_|__|-+)[a-z0-9]+)* */
static bool ref_valid_component(const char *s, size_t len)
{
	size_t i = 0;

	if (!len || !ref_is_lower_alnum(s[0]) || !ref_is_lower_alnum(s[len - 1]))
		return false;
	while (i < len) {
		if (ref_is_lower_alnum(s[i])) {
			i++;
			continue;
		}
		if (s[i] == '.' || (s[i] == '_' && s[i + 1] != '_')) {
			i++;
		} else if (s[i] == '_' && s[i + 1] == '_') {
			i += 2;
		} else if (s[i] == '-') {
			while (i < len && s[i] == '-')
				i++;
		} else {
			return false;
		}
		if (i >= len || !ref_is_lower_alnum(s[i]))
			return false;
	}
	return true;
}

static bool ref_valid_path(const char *s)
{
	const char *p = s;

	for (;;) {
		const char *slash = strchr(p, '/');
		size_t len = slash ? (size_t)(slash - p) : strlen(p);

		if (!ref_valid_component(p, len))
			return false;
		if (!slash)
			return true;
		p = slash + 1;
	}
}

/* host[:port], host made of alnum, '.', '-' (or a bracketed IPv6 address). */
static bool ref_valid_domain(const char *s, size_t len)
{
	size_t i = 0;

	if (!len)
		return false;
	if (s[0] == '[') {
		while (i < len && s[i] != ']') {
			if (!isxdigit((unsigned char)s[i]) && s[i] != ':' && s[i] != '[')
				return false;
			i++;
		}
		if (i >= len)
			return false;
		i++;
	} else {
		if (!isalnum((unsigned char)s[0]))
			return false;
		while (i < len && (isalnum((unsigned char)s[i]) || s[i] == '.' || s[i] == '-'))
			i++;
	}
	if (i == len)
		return true;
	if (s[i] != ':' || i + 1 == len)
		return false;
	for (i++; i < len; i++)
		if (!isdigit((unsigned char)s[i]))
			return false;
	return true;
}

static bool ref_valid_tag(const char *t)
{
	size_t len = strlen(t);

	if (!len || len > REF_TAG_MAX || !(isalnum((unsigned char)t[0]) || t[0] == '_'))
		return false;
	for (size_t i = 1; i < len; i++)
		if (!(isalnum((unsigned char)t[i]) || t[i] == '_' || t[i] == '.' || t[i] == '-'))
			return false;
	return true;
}

/* algorithm ":" hex{32,} */
static bool ref_valid_digest(const char *d)
{
	const char *colon = strchr(d, ':');
	size_t n = 0;

	if (!colon || colon == d || !isalpha((unsigned char)d[0]))
		return false;
	for (const char *p = d; p < colon; p++)
		if (!isalnum((unsigned char)*p) && !strchr("+.-_", *p))
			return false;
	for (const char *p = colon + 1; *p; p++, n++)
		if (!isxdigit((unsigned char)*p) || isupper((unsigned char)*p))
			return false;
	return n >= 32;
}

void image_ref_release(struct image_ref *ref)
{
	free(ref->registry);
	free(ref->repository);
	free(ref->name);
	free(ref->tag);
	free(ref->digest);
	memset(ref, 0, sizeof(*ref));
}

int image_ref_parse(struct image_ref *ref, const char *s, struct error *err)
{
	cleanup_free char *rest = NULL;
	char *at, *slash, *colon, *path;
	struct image_ref r = { 0 };

	memset(ref, 0, sizeof(*ref));
	if (!s || !*s)
		return error_set(err, ERR_USAGE, 0, "empty image reference");
	rest = xstrdup(s);
	at = strchr(rest, '@');
	if (at) {
		*at = '\0';
		if (!ref_valid_digest(at + 1)) {
			error_set(err, ERR_USAGE, 0,
				  "invalid image reference \"%s\": bad digest \"%s\" (want sha256:<64 hex>)",
				  s, at + 1);
			goto fail;
		}
		r.digest = xstrdup(at + 1);
	}
	slash = strrchr(rest, '/');
	colon = strrchr(rest, ':');
	if (colon && (!slash || colon > slash)) {
		*colon = '\0';
		if (!ref_valid_tag(colon + 1)) {
			error_set(err, ERR_USAGE, 0,
				  "invalid image reference \"%s\": bad tag \"%s\"", s, colon + 1);
			goto fail;
		}
		r.tag = xstrdup(colon + 1);
	}
	if (!*rest || strlen(rest) > REF_NAME_MAX) {
		error_set(err, ERR_USAGE, 0, "invalid image reference \"%s\": %s", s,
			  *rest ? "name longer than 255 characters" : "no name");
		goto fail;
	}
	r.name = xstrdup(rest);
	slash = strchr(rest, '/');
	path = rest;
	if (slash && (memchr(rest, '.', (size_t)(slash - rest)) ||
		      memchr(rest, ':', (size_t)(slash - rest)) ||
		      (slash - rest == 9 && !strncmp(rest, "localhost", 9)))) {
		if (!ref_valid_domain(rest, (size_t)(slash - rest))) {
			error_set(err, ERR_USAGE, 0,
				  "invalid image reference \"%s\": bad registry \"%.*s\"",
				  s, (int)(slash - rest), rest);
			goto fail;
		}
		r.registry = xstrndup(rest, (size_t)(slash - rest));
		path = slash + 1;
	}
	if (!ref_valid_path(path)) {
		error_set(err, ERR_USAGE, 0,
			  "invalid image reference \"%s\": repository \"%s\" must be lowercase letters, digits and separators (. _ __ -) between '/'",
			  s, path);
		goto fail;
	}
	if (r.registry && !strcmp(r.registry, "index.docker.io")) {
		free(r.registry);
		r.registry = NULL;
	}
	if (!r.registry) {
		r.registry = xstrdup(DOCKER_HUB);
		r.repository = strchr(path, '/') ? xstrdup(path) : xasprintf("library/%s", path);
	} else {
		r.repository = xstrdup(path);
	}
	if (!r.tag && !r.digest)
		r.tag = xstrdup("latest");
	*ref = r;
	return 0;
fail:
	image_ref_release(&r);
	return -1;
}

const char *image_ref_auth_key(const struct image_ref *ref)
{
	if (!ref->registry || !strcmp(ref->registry, DOCKER_HUB))
		return DOCKER_HUB_AUTH_KEY;
	return ref->registry;
}

const char *image_ref_hub_short(const char *repository)
{
	if (!strncmp(repository, "library/", 8) && !strchr(repository + 8, '/'))
		return repository + 8;
	return repository;
}

char *image_ref_familiar_name(const struct image_ref *ref)
{
	if (ref->registry && strcmp(ref->registry, DOCKER_HUB))
		return xasprintf("%s/%s", ref->registry, ref->repository);
	return xstrdup(image_ref_hub_short(ref->repository));
}

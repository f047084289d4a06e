#include "orchestrator/bisect/candidates.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/fsutil.h"
#include "common/xalloc.h"
#include "docker/engine.h"

#define IMAGES_FILE_MAX (4u << 20)

void bisect_candidates_release(struct bisect_candidates *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->v[i].ref);
		free(c->v[i].tag);
	}
	free(c->v);
	free(c->note);
	memset(c, 0, sizeof(*c));
}

void bisect_candidates_push(struct bisect_candidates *c, const char *ref, const char *tag,
			    long long created)
{
	if (c->n == c->alloc) {
		c->alloc = c->alloc ? c->alloc * 2 : 16;
		c->v = xrealloc(c->v, c->alloc * sizeof(*c->v));
	}
	c->v[c->n++] = (struct bisect_candidate){ xstrdup(ref), xstrdup_or_null(tag), created };
}

int bisect_candidates_parse(struct bisect_candidates *c, const char *text, const char *path,
			    struct error *err)
{
	const char *p = text;
	int line = 0;

	while (*p) {
		size_t len = strcspn(p, "\n");
		cleanup_free char *l = xstrndup(p, len);
		char *s = l, *e;
		struct image_ref ref;

		line++;
		p += len + (p[len] == '\n');
		while (*s == ' ' || *s == '\t')
			s++;
		e = s + strlen(s);
		while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
			*--e = '\0';
		if (!*s || *s == '#')
			continue;
		if (image_ref_parse(&ref, s, err) < 0)
			return error_set(err, ERR_DATA, 0,
					 "--images %s line %d: '%.200s' is not an image reference; "
					 "write one name[:tag] or name@sha256:... a line", path, line, s);
		bisect_candidates_push(c, s, ref.digest ? NULL : ref.tag, -1);
		image_ref_release(&ref);
	}
	return 0;
}

static int by_created(const void *a, const void *b)
{
	const struct bisect_candidate *x = a, *y = b;

	if (x->created != y->created)
		return x->created < y->created ? -1 : 1;
	if (x->tag && y->tag)
		return strverscmp(x->tag, y->tag);
	return 0;
}

void bisect_candidates_sort(struct bisect_candidates *c)
{
	/* Stable (ties past the tag keep their listed order), which qsort is
	 * not; n is one repository's tags. */
	for (size_t i = 1; i < c->n; i++) {
		struct bisect_candidate t = c->v[i];
		size_t j = i;

		while (j > 0 && by_created(&c->v[j - 1], &t) > 0) {
			c->v[j] = c->v[j - 1];
			j--;
		}
		c->v[j] = t;
	}
}

bool bisect_tag_wanted(const char *pattern, const char *tag, const char *good_tag,
		       const char *bad_tag)
{
	return !pattern || !fnmatch(pattern, tag, 0) || !strcmp(tag, good_tag) ||
	       !strcmp(tag, bad_tag);
}

bool bisect_candidates_have_tag(const struct bisect_candidates *c, const char *tag)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->v[i].tag && !strcmp(c->v[i].tag, tag))
			return true;
	return false;
}

void bisect_candidates_add_local(struct bisect_candidates *c, const struct engine_image_tags *tags,
				 const struct image_ref *good, const struct image_ref *bad,
				 const char *pattern)
{
	for (size_t i = 0; i < tags->n; i++) {
		struct image_ref r;
		cleanup_free char *ref = NULL;

		/* "ubuntu:22.04" is docker.io/library/ubuntu: compared parsed */
		if (image_ref_parse(&r, tags->v[i].ref, ERROR_DISCARD) < 0)
			continue;
		if (!r.digest && !strcmp(r.registry, good->registry) &&
		    !strcmp(r.repository, good->repository) &&
		    bisect_tag_wanted(pattern, r.tag, good->tag, bad->tag) &&
		    !bisect_candidates_have_tag(c, r.tag)) {
			ref = xasprintf("%s:%s", good->name, r.tag);
			bisect_candidates_push(c, ref, r.tag, tags->v[i].created);
		}
		image_ref_release(&r);
	}
}

void bisect_candidates_merge(struct bisect_candidates *c, const struct bisect_candidates *local)
{
	for (size_t i = 0; i < local->n; i++) {
		const struct bisect_candidate *l = &local->v[i];

		if (l->tag && bisect_candidates_have_tag(c, l->tag))
			continue;
		bisect_candidates_push(c, l->ref, l->tag, l->created);
		c->local_only++;
	}
	bisect_candidates_sort(c);
}

static long find(const struct bisect_candidates *c, const char *want)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->v[i].ref, want))
			return (long)i;
	return -1;
}

int bisect_candidates_between(struct bisect_candidates *c, const char *good, const char *bad,
			      struct error *err)
{
	long g = find(c, good), b = find(c, bad);

	if (g < 0 || b < 0)
		return error_set(err, ERR_USAGE, 0,
				 "bisect: %s %s is not among the %zu candidate images; list it "
				 "(--images) or check --tag-pattern", g < 0 ? "--good" : "--bad",
				 g < 0 ? good : bad, c->n);
	if (g >= b)
		return error_set(err, ERR_USAGE, 0,
				 "bisect: --good %s is not older than --bad %s among the candidates; "
				 "swap them or check the order", good, bad);
	for (long i = 0; i < (long)c->n; i++)
		if (i < g || i > b) {
			free(c->v[i].ref);
			free(c->v[i].tag);
		}
	memmove(c->v, c->v + g, (size_t)(b - g + 1) * sizeof(*c->v));
	c->n = (size_t)(b - g + 1);
	return 0;
}

int bisect_candidates_from_file(struct bisect_candidates *c, const char *path, const char *good,
				const char *bad, struct error *err)
{
	cleanup_strbuf struct strbuf text = STRBUF_INIT;

	if (fs_read_small_file(path, IMAGES_FILE_MAX, &text, err) < 0)
		return error_prefix(err, "--images %s: ", path);
	if (bisect_candidates_parse(c, text.buf ? text.buf : "", path, err) < 0)
		return -1;
	return bisect_candidates_between(c, good, bad, err);
}

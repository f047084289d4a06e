/* The candidates of a repository: its tags on the registry and on this
 * engine, merged. A nightly image pulled earlier keeps its tag here after
 * the registry dropped it, and an image built here was never pushed: both
 * are candidates too. The engine's list comes through docker/. */
#include "orchestrator/bisect/candidates.h"

#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/xalloc.h"

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

static int engine_tags(struct bisect_candidates *local, struct engine *e,
		       const struct image_ref *g, const struct image_ref *b, const char *pattern,
		       struct error *err)
{
	struct engine_image_tags tags = { 0 };
	cleanup_free char *name = image_ref_familiar_name(g);

	/* the engine's filter narrows the answer; add_local still matches */
	if (engine_image_list(e, name, &tags, err) < 0)
		return error_prefix(err, "bisect: ");
	bisect_candidates_add_local(local, &tags, g, b, pattern);
	engine_image_tags_release(&tags);
	return 0;
}

/* Neither the registry nor the engine has an end: one message naming both. */
static int ends_missing(const struct bisect_candidates *c, const struct image_ref *g,
			const struct image_ref *b, const struct error *reg, struct error *err)
{
	const struct image_ref *end = bisect_candidates_have_tag(c, g->tag) ? b : g;
	const char *which = end == g ? "--good" : "--bad";

	if (reg)
		return error_set(err, reg->kind, reg->status,
				 "bisect: %s; and this engine has no %s %s:%s either (it has %zu tag(s) of "
				 "%s)", reg->msg, which, end->name, end->tag, c->n, g->name);
	return error_set(err, ERR_USAGE, 0,
			 "bisect: %s %s:%s is neither a tag on registry %s nor on this engine "
			 "(%zu tag(s) of %s between them); check the tag", which, end->name,
			 end->tag, g->registry, c->n, g->name);
}

static void note_engine_only(struct bisect_candidates *c, const struct image_ref *g,
			     const struct error *reg)
{
	const char *host = bisect_registry_api_host(g->registry);

	if (reg->kind == ERR_NOT_FOUND)
		c->note = xasprintf("bisect: registry %s has no repository %s: the candidates are "
				    "this engine's tags of %s only", host, g->repository, g->name);
	else
		c->note = xasprintf("bisect: registry %s cannot be reached (%s): the candidates are "
				    "this engine's tags of %s only", host, reg->msg, g->name);
}

static int merge_and_cut(struct bisect_candidates *c, struct engine *e, const struct image_ref *g,
			 const struct image_ref *b, const char *pattern, struct error *err)
{
	cleanup_free char *gref = NULL, *bref = NULL;
	struct bisect_candidates local = { 0 };
	struct error reg = { 0 };
	bool absent;
	int listed = bisect_candidates_registry(c, g, b, pattern, &absent, &reg);

	if (listed < 0 && !absent) {
		*err = reg;
		return -1;
	}
	if (engine_tags(&local, e, g, b, pattern, err) < 0)
		return -1;
	bisect_candidates_merge(c, &local);
	bisect_candidates_release(&local);
	if (!bisect_candidates_have_tag(c, g->tag) || !bisect_candidates_have_tag(c, b->tag))
		return ends_missing(c, g, b, listed < 0 ? &reg : NULL, err);
	if (listed < 0)
		note_engine_only(c, g, &reg);
	gref = xasprintf("%s:%s", g->name, g->tag);
	bref = xasprintf("%s:%s", b->name, b->tag);
	return bisect_candidates_between(c, gref, bref, err);
}

int bisect_candidates_from_tags(struct bisect_candidates *c, struct engine *e, const char *good,
				const char *bad, const char *pattern, struct error *err)
{
	struct image_ref g = { 0 }, b = { 0 };
	int r = -1;

	if (image_ref_parse(&g, good, err) < 0 || image_ref_parse(&b, bad, err) < 0)
		error_prefix(err, "bisect: ");
	else if (same_repository(&g, &b, err) == 0)
		r = merge_and_cut(c, e, &g, &b, pattern, err);
	image_ref_release(&g);
	image_ref_release(&b);
	return r;
}

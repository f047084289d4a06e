/* The images a bisection chooses among, oldest first: an --images file's
 * lines, or the --good repository's tags (the registry's and this
 * engine's) ordered by their image's `created` time; cut to the span from
 * --good to --bad. */
#ifndef HRR_BISECT_CANDIDATES_H
#define HRR_BISECT_CANDIDATES_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"
#include "docker/engine.h"

struct bisect_candidate {
	char *ref;          /* what is pulled and replayed: "reg/repo:tag" */
	char *tag;          /* the tag, or NULL (a file's digest reference) */
	long long created;  /* epoch seconds, -1 unknown */
};

struct bisect_candidates {
	struct bisect_candidate *v;
	size_t n, alloc;
	unsigned registry_requests; /* HTTP requests the listing took */
	size_t local_only;          /* tags the engine has and the registry does not */
	char *note;                 /* why the registry gave none (one line), or NULL */
};

void bisect_candidates_release(struct bisect_candidates *c);
void bisect_candidates_push(struct bisect_candidates *c, const char *ref, const char *tag,
			    long long created);

/* Pure: one reference a line; blank lines and '#' comments skipped.
 * A line that is not a reference: ERR_DATA naming path and line. */
int bisect_candidates_parse(struct bisect_candidates *c, const char *text, const char *path,
			    struct error *err) __attribute__((warn_unused_result));
/* Pure: ordered by created time, ties by tag in version order (t9 < t10),
 * then as listed. */
void bisect_candidates_sort(struct bisect_candidates *c);
/* Pure: whether tag is a candidate under --tag-pattern (NULL: every tag);
 * the ends always are. */
bool bisect_tag_wanted(const char *pattern, const char *tag, const char *good_tag,
		       const char *bad_tag);
/* Pure: the engine's tags of good's repository (same registry and
 * repository, whatever spelling the engine lists them in) that
 * bisect_tag_wanted, as "<good's name>:<tag>", once each. */
void bisect_candidates_add_local(struct bisect_candidates *c, const struct engine_image_tags *tags,
				 const struct image_ref *good, const struct image_ref *bad,
				 const char *pattern);
/* Pure: the union of the registry's tags (*c) and the engine's (local): a
 * tag in both is one candidate with the registry's created time (the same
 * image has the same), a tag only the engine has is added with its own
 * (counted in c->local_only); then sorted. */
void bisect_candidates_merge(struct bisect_candidates *c, const struct bisect_candidates *local);
/* Pure: whether tag is among the candidates. */
bool bisect_candidates_have_tag(const struct bisect_candidates *c, const char *tag);
/* Pure: keep good .. bad inclusive (matched by reference, or by tag when
 * the candidates are tags). Missing or in the wrong order: ERR_USAGE. */
int bisect_candidates_between(struct bisect_candidates *c, const char *good, const char *bad,
			      struct error *err) __attribute__((warn_unused_result));

/* --images FILE: its lines, cut to good..bad. */
int bisect_candidates_from_file(struct bisect_candidates *c, const char *path, const char *good,
				const char *bad, struct error *err)
	__attribute__((warn_unused_result));
/* The host the registry API of registry is on: Docker Hub's is not its
 * name. */
const char *bisect_registry_api_host(const char *registry);
/* The registry's tags of good's repository that bisect_tag_wanted, with
 * the credentials `pull` uses, each with its config's created time, in the
 * registry's order (orchestrator/bisect/registry_list.c). On failure *absent says
 * whether the registry could not be reached or has no such repository
 * (its tag list failed so), which the engine's tags may stand in for. */
int bisect_candidates_registry(struct bisect_candidates *c, const struct image_ref *good,
			       const struct image_ref *bad, const char *pattern, bool *absent,
			       struct error *err) __attribute__((warn_unused_result));
/* The tags of good's repository (bad must be of the same one) matching
 * pattern: the registry's and engine e's, merged, ordered and cut. A
 * registry that cannot be reached or has no such repository leaves the
 * engine's tags alone, with c->note saying so, when the engine has both
 * ends; else its error stands, naming the engine too. */
int bisect_candidates_from_tags(struct bisect_candidates *c, struct engine *e, const char *good,
				const char *bad, const char *pattern, struct error *err)
	__attribute__((warn_unused_result));

#endif

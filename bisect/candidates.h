/* The images a bisection chooses among, oldest first: an --images file's
 * lines, or the --good repository's registry tags ordered by their config's
 * `created` time; cut to the span from --good to --bad. */
#ifndef HRR_BISECT_CANDIDATES_H
#define HRR_BISECT_CANDIDATES_H

#include <stddef.h>

#include "common/error.h"

struct bisect_candidate {
	char *ref;          /* what is pulled and replayed: "reg/repo:tag" */
	char *tag;          /* the tag, or NULL (a file's digest reference) */
	long long created;  /* epoch seconds, -1 unknown */
};

struct bisect_candidates {
	struct bisect_candidate *v;
	size_t n, alloc;
	unsigned registry_requests; /* HTTP requests the listing took */
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
/* Pure: keep good .. bad inclusive (matched by reference, or by tag when
 * the candidates are tags). Missing or in the wrong order: ERR_USAGE. */
int bisect_candidates_between(struct bisect_candidates *c, const char *good, const char *bad,
			      struct error *err) __attribute__((warn_unused_result));

/* --images FILE: its lines, cut to good..bad. */
int bisect_candidates_from_file(struct bisect_candidates *c, const char *path, const char *good,
				const char *bad, struct error *err)
	__attribute__((warn_unused_result));
/* The registry tags of good's repository (bad must be of the same one)
 * matching pattern (NULL: every tag; the ends are kept whatever it says),
 * with the credentials `pull` uses, ordered and cut. */
int bisect_candidates_from_registry(struct bisect_candidates *c, const char *good,
				    const char *bad, const char *pattern, struct error *err)
	__attribute__((warn_unused_result));

#endif

/* The candidates of a repository from its registry tags and this engine's
 * (orchestrator/bisect/candidates.c): which of the engine's tags are of the repository,
 * the union, its order. */
#include <criterion/criterion.h>
#include <string.h>

#include "orchestrator/bisect/candidates.h"
#include "common/xalloc.h"

static void tag(struct engine_image_tags *t, const char *ref, long long created)
{
	t->v = xrealloc(t->v, (t->n + 1) * sizeof(*t->v));
	t->v[t->n++] = (struct engine_image_tag){ xstrdup(ref), xstrdup("sha256:x"), created };
}

static void refs(const struct bisect_candidates *c, const char *want)
{
	char got[512] = "";

	for (size_t i = 0; i < c->n; i++) {
		strcat(got, i ? " " : "");
		strcat(got, c->v[i].tag);
	}
	cr_assert_str_eq(got, want);
}

Test(bisect_tags, the_engines_tags_of_the_repository_only_whatever_their_spelling)
{
	struct image_ref g, b;
	struct engine_image_tags t = { 0 };
	struct bisect_candidates c = { 0 };
	struct error err;

	cr_assert_eq(image_ref_parse(&g, "docker.io/library/nightly:t01", &err), 0);
	cr_assert_eq(image_ref_parse(&b, "docker.io/library/nightly:t09", &err), 0);
	tag(&t, "nightly:t01", 100);          /* dockerd's familiar name */
	tag(&t, "other:t02", 150);             /* the same image, another repository */
	tag(&t, "nightly:t05", 200);
	tag(&t, "nightly:t05", 200);           /* listed twice: once */
	tag(&t, "127.0.0.1:5000/nightly:t06", 250);
	tag(&t, "nightly:rc-1", 260);
	tag(&t, "nightly:t09", 300);
	bisect_candidates_add_local(&c, &t, &g, &b, "t*");
	refs(&c, "t01 t05 t09");
	cr_expect_str_eq(c.v[0].ref, "docker.io/library/nightly:t01", "named as --good is");
	cr_expect_eq(c.v[1].created, 200);
	bisect_candidates_release(&c);

	/* the pattern never drops an end */
	bisect_candidates_add_local(&c, &t, &g, &b, "rc-*");
	refs(&c, "t01 rc-1 t09");
	bisect_candidates_release(&c);
	engine_image_tags_release(&t);
	image_ref_release(&g);
	image_ref_release(&b);
}

Test(bisect_tags, the_union_is_one_candidate_a_tag_in_created_order)
{
	struct bisect_candidates reg = { 0 }, local = { 0 };
	struct error err;

	/* the registry dropped t02; t05 was built here and never pushed */
	bisect_candidates_push(&reg, "r/n:t01", "t01", 100);
	bisect_candidates_push(&reg, "r/n:t04", "t04", 400);
	bisect_candidates_push(&reg, "r/n:t03", "t03", 300);
	bisect_candidates_push(&local, "r/n:t03", "t03", 300);
	bisect_candidates_push(&local, "r/n:t02", "t02", 200);
	bisect_candidates_push(&local, "r/n:t05", "t05", 500);
	bisect_candidates_merge(&reg, &local);
	refs(&reg, "t01 t02 t03 t04 t05");
	cr_expect_eq(reg.local_only, 2);
	cr_assert_eq(bisect_candidates_between(&reg, "r/n:t02", "r/n:t05", &err), 0, "%s", err.msg);
	refs(&reg, "t02 t03 t04 t05");
	bisect_candidates_release(&reg);
	bisect_candidates_release(&local);

	/* no registry: the engine's alone, ties by version */
	bisect_candidates_push(&local, "n:t10", "t10", 100);
	bisect_candidates_push(&local, "n:t9", "t9", 100);
	bisect_candidates_merge(&reg, &local);
	refs(&reg, "t9 t10");
	cr_expect_eq(reg.local_only, 2);
	cr_expect(bisect_candidates_have_tag(&reg, "t9"));
	cr_expect_not(bisect_candidates_have_tag(&reg, "t11"));
	bisect_candidates_release(&reg);
	bisect_candidates_release(&local);
}

Test(bisect_tags, the_registry_keeps_its_created_time_for_a_shared_tag)
{
	struct bisect_candidates reg = { 0 }, local = { 0 };

	bisect_candidates_push(&reg, "r/n:a", "a", 100);
	bisect_candidates_push(&local, "r/n:a", "a", -1);
	bisect_candidates_merge(&reg, &local);
	cr_expect_eq(reg.n, 1);
	cr_expect_eq(reg.v[0].created, 100);
	cr_expect_eq(reg.local_only, 0);
	bisect_candidates_release(&reg);
	bisect_candidates_release(&local);
}

Test(bisect_tags, patterns_keep_the_ends)
{
	cr_expect(bisect_tag_wanted(NULL, "x", "a", "b"));
	cr_expect(bisect_tag_wanted("nightly-*", "nightly-1", "a", "b"));
	cr_expect_not(bisect_tag_wanted("nightly-*", "rc-1", "a", "b"));
	cr_expect(bisect_tag_wanted("nightly-*", "a", "a", "b"));
	cr_expect(bisect_tag_wanted("nightly-*", "b", "a", "b"));
}

/* The change points the history found, on the site's GPU-time charts and
 * in its index (orchestrator/site/site_perf.h). Pure. */
#include "orchestrator/site/site_perf.h"

#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"

static const char *keep(struct strvec *sv, const char *s)
{
	strvec_push(sv, s ? s : "");
	return sv->v[sv->n - 1];
}

/* cp with its strings in sv, appended to *v. */
static void push(struct site_perf_cp **v, size_t *n, size_t *alloc, struct strvec *sv,
		 const struct site_perf_cp *cp)
{
	struct site_perf_cp *c;

	if (*n == *alloc)
		*v = xrealloc(*v, (*alloc = *alloc ? 2 * *alloc : 16) * sizeof(**v));
	c = &(*v)[(*n)++];
	*c = *cp;
	c->label = cp->label ? keep(sv, cp->label) : NULL;
	c->case_name = keep(sv, cp->case_name);
	c->case_page = cp->case_page ? keep(sv, cp->case_page) : NULL;
	c->image = keep(sv, cp->image);
	c->gfx = keep(sv, cp->gfx);
	c->sweep = keep(sv, cp->sweep);
	c->found = keep(sv, cp->found);
	c->image_id_before = keep(sv, cp->image_id_before);
	c->image_id_after = keep(sv, cp->image_id_after);
}

void site_perf_cps_add(struct site_perf_cps *x, const struct site_perf_cp *cp)
{
	push(&x->v, &x->n, &x->alloc, &x->keep, cp);
}

void site_perf_cps_release(struct site_perf_cps *x)
{
	free(x->v);
	strvec_clear(&x->keep);
	memset(x, 0, sizeof(*x));
}

static bool same_series(const struct site_perf_cp *cp, const struct site_perf_series *s)
{
	return !strcmp(cp->image, s->image ? s->image : "") &&
	       !strcmp(cp->gfx, s->gfx ? s->gfx : "") &&
	       cp->device_id == (s->device_id > 0 ? s->device_id : -1);
}

static void mark_one(struct site_perf_case *c, const struct site_perf_cp *cp)
{
	for (size_t i = 0; i < c->n; i++) {
		struct site_perf_series *s = &c->v[i];

		if (!same_series(cp, s))
			continue;
		for (size_t k = 0; k < s->n; k++)
			if (s->v[k].sweep_id && !strcmp(s->v[k].sweep_id, cp->sweep))
				s->v[k].cp = cp;
	}
}

void site_perf_case_mark(struct site_perf_case *c, struct site_perf_cps *x,
			 const char *case_name, const char *tonight, const char *label,
			 const char *case_page, struct site_perf_changes *changes)
{
	/* Both orders are SQLite's BINARY collation, strcmp's. */
	while (x->next < x->n && strcmp(x->v[x->next].case_name, case_name) < 0)
		x->next++;
	for (; x->next < x->n && !strcmp(x->v[x->next].case_name, case_name); x->next++) {
		struct site_perf_cp cp = x->v[x->next];

		mark_one(c, &x->v[x->next]);
		if (!tonight || strcmp(cp.found, tonight) || cp.accepted)
			continue;
		cp.label = label;
		cp.case_page = case_page;
		push(&changes->cps, &changes->n_cps, &changes->alloc_cps, &changes->keep, &cp);
	}
}

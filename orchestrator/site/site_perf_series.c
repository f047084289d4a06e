/* The site's GPU-time model from the history's nightly summaries, pure
 * (orchestrator/site/site_perf.h): series per image and GPU product,
 * each night's median and interval, comparisons, the last sweep's changes
 * sorted by size. */
#include "orchestrator/site/site_perf.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "orchestrator/perf/perf_stats.h"

static bool same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

static void night_release(struct site_perf_night *n)
{
	free(n->sweep_id);
	free(n->image_id);
	free(n->digest);
	free(n->driver);
	free(n->ms);
}

void site_perf_case_reset(struct site_perf_case *c)
{
	for (size_t i = 0; i < c->n; i++) {
		struct site_perf_series *s = &c->v[i];

		for (size_t k = 0; k < s->n; k++)
			night_release(&s->v[k]);
		free(s->v);
		free(s->image);
		free(s->gfx);
	}
	c->n = 0;
}

void site_perf_case_release(struct site_perf_case *c)
{
	site_perf_case_reset(c);
	free(c->v);
	memset(c, 0, sizeof(*c));
}

static struct site_perf_series *series_of(struct site_perf_case *c,
					  const struct site_perf_row *r)
{
	for (size_t i = 0; i < c->n; i++)
		if (same(c->v[i].image, r->image) && same(c->v[i].gfx, r->gfx) &&
		    c->v[i].device_id == r->device_id)
			return &c->v[i];
	if (c->n == c->alloc)
		c->v = xrealloc(c->v, (c->alloc = c->alloc ? 2 * c->alloc : 4) * sizeof(*c->v));
	c->v[c->n] = (struct site_perf_series){ .image = xstrdup_or_null(r->image),
						.gfx = xstrdup_or_null(r->gfx),
						.device_id = r->device_id };
	return &c->v[c->n++];
}

void site_perf_case_add(struct site_perf_case *c, const struct site_perf_row *r)
{
	struct site_perf_series *se;
	struct site_perf_night *n;

	if (!r->sum.n)
		return;
	se = series_of(c, r);
	n = se->n ? &se->v[se->n - 1] : NULL;
	if (n && n->col == r->col && r->attempt < n->attempt)
		return;
	if (n && n->col == r->col) {
		night_release(n);
		se->n--;
	}
	if (se->n == se->alloc)
		se->v = xrealloc(se->v, (se->alloc = se->alloc ? 2 * se->alloc : 16) * sizeof(*se->v));
	se->v[se->n++] = (struct site_perf_night){
		.sweep_id = xstrdup_or_null(r->sweep_id), .image_id = xstrdup_or_null(r->image_id),
		.digest = xstrdup_or_null(r->digest), .driver = xstrdup_or_null(r->driver),
		.started = r->started, .col = r->col, .attempt = r->attempt, .sum = r->sum,
	};
}

static int cmp_double(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	return a < b ? -1 : a > b;
}

/* n's kernel times, sorted (as the charts always compared them), once. */
static int samples_of(const struct site_perf_series *s, struct site_perf_night *n,
		      site_perf_load_fn load, void *ctx, struct error *err)
{
	if (n->read)
		return 0;
	if (load(ctx, s, n, err) < 0)
		return -1;
	n->read = true;
	if (n->n_ms)
		qsort(n->ms, n->n_ms, sizeof(double), cmp_double);
	return 0;
}

/* LNT's rule, as docs/perf.md "Across nights" has it: the image, the
 * archive and the driver (both unknown: the same) all the night before's. */
static bool same_build(const struct site_perf_night *a, const struct site_perf_night *b)
{
	return a->image_id && b->image_id && !strcmp(a->image_id, b->image_id) && a->digest &&
	       b->digest && !strcmp(a->digest, b->digest) && same(a->driver, b->driver);
}

static bool is_change(enum perf_status s)
{
	return s == PERF_SLOWER || s == PERF_FASTER || s == PERF_SAME_BUILD;
}

int site_perf_case_finish(struct site_perf_case *c, const struct perf_rule *rule,
			  site_perf_load_fn load, void *ctx, struct error *err)
{
	for (size_t i = 0; i < c->n; i++) {
		struct site_perf_series *s = &c->v[i];

		for (size_t k = 0; k < s->n; k++) {
			struct site_perf_night *n = &s->v[k], *b = k ? &s->v[k - 1] : NULL;
			bool sb;

			n->cmp = (struct perf_comparison){ .status = PERF_NONE, .ratio = NAN,
							   .ci_lo = NAN, .ci_hi = NAN, .p = NAN };
			if (!b || b->col + 1 != n->col)
				continue;
			sb = same_build(b, n);
			if (perf_compare_summary(&b->sum, &n->sum, rule, sb, &n->cmp) == 0)
				continue;
			/* Only a night beyond the threshold needs its samples:
			 * a handful of a thousand cases' nights. */
			if (samples_of(s, b, load, ctx, err) < 0 ||
			    samples_of(s, n, load, ctx, err) < 0 ||
			    perf_compare_status(b->ms, b->n_ms, n->ms, n->n_ms, rule, sb, &n->cmp,
						err) < 0)
				return -1;
			/* The index shows the last sweep's changes with their
			 * interval and p: only those pay for the bootstrap. */
			if (n->col == c->last_col && is_change(n->cmp.status) &&
			    perf_compare(b->ms, b->n_ms, n->ms, n->n_ms, rule, sb, &n->cmp, err) < 0)
				return -1;
		}
	}
	return 0;
}

void site_perf_changes_add(struct site_perf_changes *x, const char *label,
			   const char *case_name, const char *case_page,
			   const struct site_perf_case *c)
{
	for (size_t i = 0; i < c->n; i++) {
		const struct site_perf_series *s = &c->v[i];
		const struct site_perf_night *n = s->n ? &s->v[s->n - 1] : NULL, *b;
		size_t k0 = x->keep.n;

		if (!n || n->col != c->last_col ||
		    (n->cmp.status != PERF_SLOWER && n->cmp.status != PERF_FASTER))
			continue;
		b = &s->v[s->n - 2]; /* compared: the night before exists */
		for (const char *const *t = (const char *const[]){ label, case_name, case_page,
								     s->image ? s->image : "-",
								     s->gfx ? s->gfx : "-",
								     n->sweep_id ? n->sweep_id : "-",
								     b->sweep_id ? b->sweep_id : "-",
								     n->image_id ? n->image_id : "-",
								     b->image_id ? b->image_id : "-",
								     NULL };
		     *t; t++)
			strvec_push(&x->keep, *t);
		if (x->n == x->alloc)
			x->v = xrealloc(x->v, (x->alloc = x->alloc ? 2 * x->alloc : 16) *
						      sizeof(*x->v));
		/* Indexes into keep: strvec may move its strings' array, not
		 * the strings; resolved now, they stay valid. */
		x->v[x->n++] = (struct site_perf_change){
			.label = x->keep.v[k0], .case_name = x->keep.v[k0 + 1],
			.case_page = x->keep.v[k0 + 2], .image = x->keep.v[k0 + 3],
			.gfx = x->keep.v[k0 + 4], .sweep_id = x->keep.v[k0 + 5],
			.baseline_sweep = x->keep.v[k0 + 6], .image_id = x->keep.v[k0 + 7],
			.baseline_image_id = x->keep.v[k0 + 8], .device_id = s->device_id,
			.cmp = n->cmp,
		};
	}
}

static int by_size(const void *pa, const void *pb)
{
	const struct site_perf_change *a = pa, *b = pb;
	double da = fabs(a->cmp.ratio - 1), db = fabs(b->cmp.ratio - 1);
	int c;

	if (da != db)
		return da > db ? -1 : 1;
	if (a->cmp.status != b->cmp.status)
		return a->cmp.status == PERF_SLOWER ? -1 : b->cmp.status == PERF_SLOWER ? 1 : 0;
	if ((c = strcmp(a->label, b->label)) || (c = strcmp(a->case_name, b->case_name)))
		return c;
	return strcmp(a->image, b->image);
}

void site_perf_changes_sort(struct site_perf_changes *x)
{
	x->n_slower = x->n_faster = 0;
	for (size_t i = 0; i < x->n; i++) {
		x->n_slower += x->v[i].cmp.status == PERF_SLOWER;
		x->n_faster += x->v[i].cmp.status == PERF_FASTER;
	}
	if (x->n)
		qsort(x->v, x->n, sizeof(*x->v), by_size);
}

void site_perf_changes_release(struct site_perf_changes *x)
{
	free(x->v);
	free(x->cps);
	strvec_clear(&x->keep);
	memset(x, 0, sizeof(*x));
}

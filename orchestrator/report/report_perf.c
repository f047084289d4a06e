/* GPU-time change detection within one sweep (docs/perf.md "Comparisons"). */
#include "orchestrator/report/report_perf.h"

#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

static struct report_perf_side *find(const struct report_perf_set *s, const char *case_name,
				     const char *image)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->v[i].case_name, case_name) && !strcmp(s->v[i].image, image))
			return &s->v[i];
	return NULL;
}

void report_perf_collect(struct report_perf_set *s, const struct sweep_results *rs)
{
	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < rs->n; i++) {
		const struct sweep_result *r = &rs->v[i];
		struct report_perf_side *x;

		if (!r->perf)
			continue;
		x = find(s, r->case_name, r->image);
		if (x && x->attempt >= r->attempt)
			continue;
		if (!x) {
			if (s->n == s->alloc) {
				s->alloc = s->alloc ? 2 * s->alloc : 16;
				s->v = xrealloc(s->v, s->alloc * sizeof(*s->v));
			}
			x = &s->v[s->n++];
			memset(x, 0, sizeof(*x));
			x->case_name = xstrdup(r->case_name);
			x->image = xstrdup(r->image);
		} else {
			free(x->image_id);
			free(x->digest);
			free(x->gfx);
			free(x->note);
		}
		x->image_id = dup_or_null(r->image_id);
		x->digest = dup_or_null(r->digest);
		x->gfx = dup_or_null(r->gfx);
		x->note = dup_or_null(r->perf->note);
		x->device_id = r->device_id;
		x->attempt = r->attempt;
		x->n = perf_samples_kernel_ms(r->perf, x->ms);
	}
}

void report_perf_release(struct report_perf_set *s)
{
	for (size_t i = 0; i < s->n; i++) {
		struct report_perf_side *x = &s->v[i];

		free(x->case_name);
		free(x->image);
		free(x->image_id);
		free(x->digest);
		free(x->gfx);
		free(x->note);
	}
	free(s->v);
	memset(s, 0, sizeof(*s));
}

static bool same(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

bool report_perf_compare(const struct report_perf_set *s, const char *case_name,
			 const char *image, const char *baseline_image,
			 const struct perf_rule *rule, struct report_perf *out)
{
	const struct report_perf_side *b, *a;

	memset(out, 0, sizeof(*out));
	if (!baseline_image || !strcmp(image, baseline_image))
		return false;
	b = find(s, case_name, image);
	a = find(s, case_name, baseline_image);
	if (!b || !a)
		return false;
	/* Never compare different products: a MI300X with a MI250. */
	if (!same(a->gfx, b->gfx) || a->device_id != b->device_id)
		return false;
	out->baseline_image = a->image;
	out->gfx = b->gfx;
	out->note = b->note;
	out->device_id = b->device_id;
	/* Within one sweep the host and its driver are the same: the same
	 * image ID and archive are the same build (docs/perf.md). */
	bool same_build = same(a->image_id, b->image_id) && same(a->digest, b->digest);

	if (perf_compare(a->ms, a->n, b->ms, b->n, rule, same_build, &out->cmp,
			 &(struct error){ 0 }) < 0)
		out->cmp.status = PERF_INSUFFICIENT;
	out->status = out->cmp.status;
	return true;
}

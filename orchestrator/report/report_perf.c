/* GPU-time change detection (docs/perf.md "Comparisons"). */
#include "orchestrator/report/report_perf.h"

#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "orchestrator/perf/perf_nights.h"
#include "orchestrator/perf/perf_stats.h"

static bool same(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

/* Equal or both unknown: a host that exposes no driver version says
 * nothing changed in it. */
static bool same_or_both_unknown(const char *a, const char *b)
{
	return (!a && !b) || same(a, b);
}

static const char *keep(struct report_perf_set *s, const char *text)
{
	return intern(s->shared ? s->shared : &s->strings, text);
}

static void side_of(struct report_perf_set *s, struct report_perf_side *x,
		    const struct case_result *r)
{
	*x = (struct report_perf_side){
		.case_name = keep(s, r->case_name), .image = keep(s, r->image),
		.image_id = keep(s, r->image_id), .digest = keep(s, r->digest),
		.gfx = keep(s, r->gfx), .driver = keep(s, r->driver), .note = keep(s, r->perf->note),
		.device_id = r->device_id, .attempt = r->attempt,
	};
	x->ms = xcalloc(r->perf->n + 1, sizeof(*x->ms));
	x->n = perf_samples_kernel_ms(r->perf, x->ms);
	x->alloc = r->perf->n + 1;
	strvec_init(&x->sweeps);
}

static void side_release(struct report_perf_side *x)
{
	free(x->ms);
	free(x->medians);
	strvec_clear(&x->sweeps);
}

void report_perf_reserve(struct report_perf_set *s, size_t n)
{
	if (n <= s->alloc)
		return;
	s->v = xrealloc(s->v, n * sizeof(*s->v));
	s->alloc = n;
}

bool report_perf_has_side(const struct case_result *r)
{
	return r->perf && r->case_name && r->image;
}

void report_perf_add_results(struct report_perf_set *s, const struct sweep_results *rs)
{
	for (size_t i = 0; i < rs->n; i++) {
		if (!report_perf_has_side(&rs->v[i]))
			continue;
		if (s->n == s->alloc) /* past the reserve: a little more */
			report_perf_reserve(s, s->alloc + s->alloc / 4 + 16);
		side_of(s, &s->v[s->n++], &rs->v[i]);
	}
}

int report_perf_add_row(struct report_perf_set *s, const struct history_perf_row *row)
{
	struct report_perf_side *x = s->n ? &s->v[s->n - 1] : NULL;

	if (!x || strcmp(x->case_name, row->case_name) || strcmp(x->image, row->image)) {
		if (s->n == s->alloc)
			report_perf_reserve(s, s->alloc + s->alloc / 4 + 16);
		x = &s->v[s->n++];
		*x = (struct report_perf_side){
			.case_name = keep(s, row->case_name), .image = keep(s, row->image),
			.image_id = keep(s, row->image_id), .digest = keep(s, row->digest),
			.gfx = keep(s, row->gfx), .driver = keep(s, row->driver),
			.note = keep(s, row->note), .device_id = row->device_id,
			.attempt = row->attempt,
		};
		x->ms = xcalloc(8, sizeof(*x->ms));
		x->alloc = 8;
		strvec_init(&x->sweeps);
	}
	/* As perf_samples_kernel_ms: a sample without a kernel time is none. */
	if (!row->sample || row->kernel_ms < 0)
		return 0;
	if (x->n == x->alloc) {
		x->alloc *= 2;
		x->ms = xrealloc(x->ms, x->alloc * sizeof(*x->ms));
	}
	x->ms[x->n++] = row->kernel_ms;
	return 0;
}

/* By case, image and attempt; the same attempt twice in the order added. */
static int by_case_image(const void *pa, const void *pb, void *set)
{
	const struct report_perf_side *v = ((const struct report_perf_set *)set)->v;
	size_t ia = *(const size_t *)pa, ib = *(const size_t *)pb;
	const struct report_perf_side *a = &v[ia], *b = &v[ib];
	int c = strcmp(a->case_name, b->case_name);

	if (!c)
		c = strcmp(a->image, b->image);
	if (!c)
		c = (a->attempt > b->attempt) - (a->attempt < b->attempt);
	return c ? c : (ia > ib) - (ia < ib);
}

/* v[j] = the side at order[j], for every j, in place: each cycle of the
 * permutation is followed once (no second array of sides). */
static void permute(struct report_perf_side *v, size_t *order, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct report_perf_side first = v[i];
		size_t j = i;

		if (order[i] == i)
			continue;
		for (;;) {
			size_t k = order[j];

			order[j] = j;
			if (k == i) {
				v[j] = first;
				break;
			}
			v[j] = v[k];
			j = k;
		}
	}
}

/* The sides sorted by case, image and attempt: each case and image's last
 * is its side, and the sides come out sorted. */
void report_perf_finish(struct report_perf_set *s)
{
	size_t *order = xcalloc(s->n + 1, sizeof(*order));
	size_t n = 0;

	for (size_t i = 0; i < s->n; i++)
		order[i] = i;
	qsort_r(order, s->n, sizeof(*order), by_case_image, s);
	permute(s->v, order, s->n);
	free(order);
	for (size_t k = 0; k < s->n; k++) {
		struct report_perf_side *x = &s->v[k];

		if (k + 1 < s->n && !strcmp(s->v[k + 1].case_name, x->case_name) &&
		    !strcmp(s->v[k + 1].image, x->image))
			side_release(x); /* a later attempt follows */
		else
			s->v[n++] = *x;
	}
	if (n)
		s->v = xrealloc(s->v, n * sizeof(*s->v));
	s->n = s->alloc = n;
}

void report_perf_collect(struct report_perf_set *s, const struct sweep_results *rs)
{
	memset(s, 0, sizeof(*s));
	report_perf_add_results(s, rs);
	report_perf_finish(s);
}

void report_perf_release(struct report_perf_set *s)
{
	for (size_t i = 0; i < s->n; i++)
		side_release(&s->v[i]);
	free(s->v);
	intern_release(&s->strings);
	memset(s, 0, sizeof(*s));
}

void report_perf_drop(struct report_perf_set *s, bool sides)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->v[i].ms);
		s->v[i].ms = NULL;
		s->v[i].n = s->v[i].alloc = 0;
		if (sides)
			strvec_clear(&s->v[i].sweeps);
	}
	if (!sides)
		return;
	free(s->v);
	s->v = NULL;
	s->n = s->alloc = 0;
}

static long index_of(const struct report_perf_set *s, const char *case_name, const char *image)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(s->v[mid].case_name, case_name);

		if (!c)
			c = strcmp(s->v[mid].image, image);
		if (!c)
			return (long)mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

static const struct report_perf_side *find(const struct report_perf_set *s,
					   const char *case_name, const char *image)
{
	long i = index_of(s, case_name, image);

	return i < 0 ? NULL : &s->v[i];
}

void report_perf_nights_init(struct report_perf_set *nights, const struct report_perf_set *now,
			     size_t window)
{
	nights->window = window ? window : 1;
	nights->n = now->n;
	nights->v = xcalloc(now->n + 1, sizeof(*nights->v));
	for (size_t i = 0; i < now->n; i++)
		strvec_init(&nights->v[i].sweeps);
}

/* The first row of a night side sets its identity; a later one that
 * differs marks it mixed (it is then never the same build). */
static void night_identity(struct report_perf_set *nights, struct report_perf_side *a,
			   const struct history_perf_row *row)
{
	if (!a->sweeps.n) {
		a->image_id = keep(nights, row->image_id);
		a->digest = keep(nights, row->digest);
		a->driver = keep(nights, row->driver);
		a->gfx = keep(nights, row->gfx);
		a->device_id = row->device_id;
	} else if (!same(a->image_id, row->image_id) || !same(a->digest, row->digest) ||
		   !same_or_both_unknown(a->driver, row->driver)) {
		a->mixed = true;
	}
	strvec_push(&a->sweeps, row->sweep_id);
}

/* The night read into a->ms ends: its median is one observation, unless
 * half or more of its times are 0 ms (unmeasurable: no median). */
static void night_close(struct report_perf_side *a)
{
	size_t m;

	if (!a->night || !a->n)
		return;
	m = perf_measured(a->ms, a->n, a->ms);
	if (2 * m > a->n) {
		if (a->n_medians == a->alloc_medians) {
			a->alloc_medians = a->alloc_medians ? 2 * a->alloc_medians : 8;
			a->medians = xrealloc(a->medians, a->alloc_medians * sizeof(*a->medians));
		}
		if (!a->n_medians) {
			a->within_cv = perf_cv(a->ms, m);
			a->within_n = m;
		}
		a->medians[a->n_medians++] = perf_median(a->ms, m);
	}
	a->n = 0;
}

void report_perf_nights_finish(struct report_perf_set *nights)
{
	for (size_t i = 0; i < nights->n; i++)
		night_close(&nights->v[i]);
}

int report_perf_add_night(struct report_perf_set *nights, const struct report_perf_set *now,
			  const struct history_perf_row *row)
{
	long i = index_of(now, row->case_name, row->image);
	struct report_perf_side *a;

	/* Never across GPU products: a MI300X's night with a MI250's. */
	if (i < 0 || !same(now->v[i].gfx, row->gfx) || now->v[i].device_id != row->device_id ||
	    !(row->kernel_ms >= 0))
		return 0;
	a = &nights->v[i];
	if (row->started_us < a->restart_us)
		return 0;
	if (!a->night || strcmp(a->night, row->sweep_id)) {
		night_close(a);
		a->night = keep(nights, row->sweep_id);
		/* The newest nights are the level: their sweeps and identity. */
		if (a->sweeps.n < nights->window)
			night_identity(nights, a, row);
	}
	if (a->n == PERF_SAMPLES_MAX)
		return 0;
	if (a->n == a->alloc) {
		a->alloc = a->alloc ? 2 * a->alloc : 16;
		a->ms = xrealloc(a->ms, a->alloc * sizeof(*a->ms));
	}
	a->ms[a->n++] = row->kernel_ms;
	return 0;
}

static void compare_sides(const struct report_perf_side *a, const struct report_perf_side *b,
			  bool same_build, const struct perf_rule *rule, struct report_perf *out)
{
	out->gfx = b->gfx;
	out->note = b->note;
	out->device_id = b->device_id;
	if (perf_compare(a->ms, a->n, b->ms, b->n, rule, same_build, &out->cmp,
			 &(struct error){ 0 }) < 0)
		out->cmp.status = PERF_INSUFFICIENT;
	out->status = out->cmp.status;
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
	/* Within one sweep the host and its driver are the same: the same
	 * image ID and archive are the same build (docs/perf.md). */
	compare_sides(a, b, same(a->image_id, b->image_id) && same(a->digest, b->digest), rule,
		      out);
	return true;
}

bool report_perf_compare_nights(const struct report_perf_set *now,
				const struct report_perf_set *nights, const char *case_name,
				const char *image, const struct perf_rule *rule,
				const struct perf_family *family, struct report_perf *out)
{
	long i = index_of(now, case_name, image);
	const struct report_perf_side *a, *b;

	memset(out, 0, sizeof(*out));
	if (i < 0 || (size_t)i >= nights->n || !nights->v[i].n_medians)
		return false;
	a = &nights->v[i];
	b = &now->v[i];
	out->baseline_image = b->image;
	out->baseline_sweeps = &a->sweeps;
	out->gfx = b->gfx;
	out->note = b->note;
	out->device_id = b->device_id;
	/* LNT's rule: nothing that could change speed changed — the image,
	 * the archive and the host's driver all the nights'. */
	struct perf_night_series s = {
		a->medians, a->n_medians, nights->window, (size_t)family->noise_nights,
		a->within_cv, a->within_n,
	};

	if (perf_compare_nights(&s, b->ms, b->n, rule,
				!a->mixed && same(a->image_id, b->image_id) &&
					same(a->digest, b->digest) &&
					same_or_both_unknown(a->driver, b->driver),
				&out->cmp, &(struct error){ 0 }) < 0)
		out->cmp.status = PERF_INSUFFICIENT;
	out->status = out->cmp.status;
	return true;
}

void report_perf_baseline_text(const struct report_perf *p, struct strbuf *out)
{
	const struct strvec *w = p->baseline_sweeps;

	if (!w) {
		strbuf_addstr(out, p->baseline_image ? p->baseline_image : "-");
		return;
	}
	if (w->n == 1) {
		strbuf_addf(out, "sweep %s", w->v[0]);
		return;
	}
	strbuf_addf(out, "%zu sweeps:", w->n);
	for (size_t i = 0; i < w->n; i++)
		strbuf_addf(out, "%s %s", i ? "," : "", w->v[i]);
}

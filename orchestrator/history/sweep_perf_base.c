/* The planned cases' GPU-time baselines (sweep_perf_base.h). */
#include "orchestrator/history/sweep_perf_base.h"

#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "orchestrator/history/history_perf.h"
#include "orchestrator/perf/perf_stats.h"

struct load {
	const struct sweep_plan *plan;
	size_t *order; /* plan indexes by case name, then image */
	struct perf_adaptive_base *out;
};

static int cmp_case(const struct sweep_case *c, const char *name, const char *image)
{
	int r = strcmp(c->name, name);

	return r ? r : strcmp(c->image, image);
}

static int by_name_image(const void *a, const void *b, void *plan)
{
	const struct sweep_case *v = ((const struct sweep_plan *)plan)->cases;

	return cmp_case(&v[*(const size_t *)a], v[*(const size_t *)b].name,
			v[*(const size_t *)b].image);
}

/* The plan index of (name, image), or -1. */
static long find(const struct load *l, const char *name, const char *image)
{
	size_t lo = 0, hi = l->plan->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = cmp_case(&l->plan->cases[l->order[mid]], name, image);

		if (!c)
			return (long)l->order[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* Rows come newest sweep first: the first row of a case sets its GPU
 * product, rows of another are left out, as the report leaves them. */
static int take_row(void *ctx, const struct history_perf_row *row)
{
	struct load *l = ctx;
	long i = find(l, row->case_name, row->image);
	struct perf_adaptive_base *b;

	if (i < 0 || !row->gfx || row->kernel_ms < 0)
		return 0;
	b = &l->out[i];
	if (!b->gfx) {
		b->gfx = xstrdup(row->gfx);
		b->device_id = row->device_id;
	} else if (strcmp(b->gfx, row->gfx) || b->device_id != row->device_id) {
		return 0;
	}
	if (b->n >= PERF_SAMPLES_MAX)
		return 0;
	b->ms = xrealloc(b->ms, (b->n + 1) * sizeof(*b->ms));
	b->ms[b->n++] = row->kernel_ms;
	return 0;
}

static void base_clear(struct perf_adaptive_base *b)
{
	free(b->ms);
	free(b->gfx);
	memset(b, 0, sizeof(*b));
}

/* Within one sweep, --perf-baseline's image compares the others: only its
 * own cases are compared across nights. */
static void drop_compared_within(const struct sweep_meta *meta, struct perf_adaptive_base *v)
{
	for (size_t i = 0; meta->perf_baseline && i < meta->plan.n; i++)
		if (strcmp(meta->plan.cases[i].image, meta->perf_baseline))
			base_clear(&v[i]);
}

struct perf_adaptive_base *sweep_perf_base_load(struct history_db *db,
						const struct sweep_meta *meta,
						struct error *err)
{
	struct history_perf_query q = { .newest_first = true, .last = (int)meta->perf_window };
	cleanup_free char *baseline = NULL;
	cleanup_free size_t *order = xcalloc(meta->plan.n + 1, sizeof(*order));
	struct load l = { &meta->plan, order, xcalloc(meta->plan.n + 1, sizeof(*l.out)) };

	if (meta->perf_window <= 1) {
		if (meta->baseline)
			baseline = xstrdup(meta->baseline);
		else if (history_db_previous(db, meta->label, meta->id, &baseline, err) < 0)
			goto fail;
		if (!baseline)
			return l.out;
		q.sweep = baseline;
		q.last = 1;
	} else {
		q.label = meta->label;
		q.before = meta->id;
	}
	for (size_t i = 0; i < meta->plan.n; i++)
		order[i] = i;
	qsort_r(order, meta->plan.n, sizeof(*order), by_name_image, (void *)&meta->plan);
	if (history_perf_samples(db, &q, take_row, &l, err) < 0)
		goto fail;
	drop_compared_within(meta, l.out);
	return l.out;
fail:
	sweep_perf_base_free(l.out, meta->plan.n);
	return NULL;
}

void sweep_perf_base_free(struct perf_adaptive_base *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		base_clear(&v[i]);
	free(v);
}

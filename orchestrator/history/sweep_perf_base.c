/* The planned cases' GPU-time baselines (sweep_perf_base.h). */
#include "orchestrator/history/sweep_perf_base.h"

#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "orchestrator/history/history_changes.h"
#include "orchestrator/history/history_perf.h"
#include "orchestrator/perf/perf_change.h"
#include "orchestrator/perf/perf_stats.h"

/* A case's night being read: its samples, and the start of each night
 * whose median is kept (to cut the series at its restart). */
struct night_read {
	char *night;
	double *ms;
	size_t n, alloc;
	long long *started;
};

struct load {
	const struct sweep_plan *plan;
	size_t *order; /* plan indexes by case name, then image */
	struct perf_adaptive_base *out;
	struct night_read *reading;
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

/* The night read ends: its median is one observation unless half or
 * more of its times are 0 ms (as the report closes a night). */
static void night_close(struct perf_adaptive_base *b, struct night_read *r)
{
	size_t m;

	if (!r->night || !r->n)
		return;
	m = perf_measured(r->ms, r->n, r->ms);
	if (2 * m > r->n) {
		if (!b->n) {
			b->within_cv = perf_cv(r->ms, m);
			b->within_n = m;
		}
		b->medians = xrealloc(b->medians, (b->n + 1) * sizeof(*b->medians));
		r->started = xrealloc(r->started, (b->n + 1) * sizeof(*r->started));
		b->medians[b->n] = perf_median(r->ms, m);
		b->n++;
	}
	r->n = 0;
}

/* Rows come newest sweep first: the first row of a case sets its GPU
 * product, rows of another are left out, as the report leaves them. */
static int take_row(void *ctx, const struct history_perf_row *row)
{
	struct load *l = ctx;
	long i = find(l, row->case_name, row->image);
	struct perf_adaptive_base *b;
	struct night_read *r;

	if (i < 0 || !row->gfx || !(row->kernel_ms >= 0))
		return 0;
	b = &l->out[i];
	r = &l->reading[i];
	if (!b->gfx) {
		b->gfx = xstrdup(row->gfx);
		b->device_id = row->device_id;
	} else if (strcmp(b->gfx, row->gfx) || b->device_id != row->device_id) {
		return 0;
	}
	if (!r->night || strcmp(r->night, row->sweep_id)) {
		night_close(b, r);
		free(r->night);
		r->night = xstrdup(row->sweep_id);
		r->started = xrealloc(r->started, (b->n + 1) * sizeof(*r->started));
		r->started[b->n] = row->started_us;
	}
	if (r->n >= PERF_SAMPLES_MAX)
		return 0;
	if (r->n == r->alloc) {
		r->alloc = r->alloc ? 2 * r->alloc : 16;
		r->ms = xrealloc(r->ms, r->alloc * sizeof(*r->ms));
	}
	r->ms[r->n++] = row->kernel_ms;
	return 0;
}

static void base_clear(struct perf_adaptive_base *b)
{
	free(b->medians);
	free(b->gfx);
	memset(b, 0, sizeof(*b));
}

/* Each case's series ends (newest first) at its restart, its last change
 * point or accepted change (docs/perf.md "Change points"), as the
 * report's nights do: neither its level nor its spread spans a step. */
static int finish(struct history_db *db, const struct sweep_meta *meta, struct load *l,
		  struct error *err)
{
	for (size_t i = 0; i < meta->plan.n; i++) {
		struct perf_adaptive_base *b = &l->out[i];
		struct night_read *r = &l->reading[i];
		cleanup_free char *night = NULL;
		long long restart = 0;

		night_close(b, r);
		if (b->gfx && history_changes_restart(db, meta->label, meta->plan.cases[i].name,
						      meta->plan.cases[i].image, b->gfx,
						      b->device_id, &night, &restart, err) < 0)
			return -1;
		while (b->n && r->started[b->n - 1] < restart)
			b->n--;
		b->window = meta->perf_window > 1 ? (size_t)meta->perf_window : 1;
		b->noise = (size_t)meta->perf_family.noise_nights;
		if (!b->n)
			base_clear(b);
	}
	return 0;
}

static void reading_free(struct night_read *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++) {
		free(v[i].night);
		free(v[i].ms);
		free(v[i].started);
	}
	free(v);
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
	long noise = meta->perf_family.noise_nights;
	/* As the report's nights (load_nights): the label's finished sweeps
	 * before this one, as many as the level or the spread takes; with a
	 * window of 1 the newest is the sweep's baseline. */
	struct history_perf_query q = {
		.newest_first = true, .label = meta->label, .before = meta->id,
		.last = (int)(meta->perf_window > noise ? meta->perf_window : noise),
	};
	cleanup_free char *baseline = NULL;
	cleanup_free size_t *order = xcalloc(meta->plan.n + 1, sizeof(*order));
	struct load l = { &meta->plan, order, xcalloc(meta->plan.n + 1, sizeof(*l.out)),
			  xcalloc(meta->plan.n + 1, sizeof(*l.reading)) };

	if (meta->perf_window <= 1) {
		if (meta->baseline)
			baseline = xstrdup(meta->baseline);
		else if (history_db_previous(db, meta->label, meta->id, &baseline, err) < 0)
			goto fail;
		if (!baseline)
			goto done;
		q.until = baseline;
	}
	for (size_t i = 0; i < meta->plan.n; i++)
		order[i] = i;
	qsort_r(order, meta->plan.n, sizeof(*order), by_name_image, (void *)&meta->plan);
	if (history_perf_samples(db, &q, take_row, &l, err) < 0 || finish(db, meta, &l, err) < 0)
		goto fail;
	drop_compared_within(meta, l.out);
done:
	reading_free(l.reading, meta->plan.n);
	return l.out;
fail:
	reading_free(l.reading, meta->plan.n);
	sweep_perf_base_free(l.out, meta->plan.n);
	return NULL;
}

void sweep_perf_base_free(struct perf_adaptive_base *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		base_clear(&v[i]);
	free(v);
}

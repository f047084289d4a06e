#include "orchestrator/jobs/sweep_attempts.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "common/intern.h"
#include "preflight/topology.h"

static const char *keep(struct sweep_attempts *a, const char *s)
{
	return intern(a->shared ? a->shared : &a->strings, s);
}

static int key_cmp(const char *case_a, const char *image_a, const char *case_b,
		   const char *image_b)
{
	int c = strcmp(case_a, case_b);

	return c ? c : strcmp(image_a, image_b);
}

/* By case and image; a case's results stay in file order (their place in
 * the array), as "the last written of the highest attempt" needs. */
static int by_key(const void *x, const void *y)
{
	const struct sweep_result *a = *(const struct sweep_result *const *)x;
	const struct sweep_result *b = *(const struct sweep_result *const *)y;
	int c = key_cmp(a->case_name, a->image, b->case_name, b->image);

	return c ? c : (a > b) - (a < b);
}

static void add_failed(struct sweep_attempts *a, struct sweep_case_attempts *e,
		       const struct sweep_result *r)
{
	cleanup_strbuf struct strbuf gpus = STRBUF_INIT;

	gpu_list_format(&gpus, r->gpus, r->n_gpus);
	e->failed = xrealloc(e->failed, (e->n_failed + 1) * sizeof(*e->failed));
	e->failed[e->n_failed++] = (struct report_attempt){
		.attempt = r->attempt, .state = keep(a, sweep_result_state_name(r->state)),
		.outcome = keep(a, sweep_result_outcome_name(r)),
		.fault_class = keep(a, sweep_result_class_name(r)), .kernel = keep(a, r->kernel),
		.kind = keep(a, sweep_result_kind_name(sweep_result_kind(r))), .gpus = keep(a, gpus.buf ? gpus.buf : ""),
		.gpu_uids = keep(a, r->gpu_uids), .host = keep(a, r->host),
		.run_dir = keep(a, r->run_dir), .message = keep(a, r->message),
	};
}

void sweep_attempts_reserve(struct sweep_attempts *a, size_t n)
{
	if (n <= a->alloc)
		return;
	a->v = xrealloc(a->v, n * sizeof(*a->v));
	a->alloc = n;
}

/* One case and image: results [0, n) of p. */
static void add_case(struct sweep_attempts *a, const struct sweep_result *const *p, size_t n)
{
	const struct sweep_result *fin = NULL;
	struct sweep_case_attempts *e;
	size_t final = SIZE_MAX;

	for (size_t i = 0; i < n; i++)
		if (!fin || p[i]->attempt >= fin->attempt)
			fin = p[i];
	if (a->n == a->alloc) /* past the reserve (a retry in a later chunk): a little more */
		sweep_attempts_reserve(a, a->alloc + a->alloc / 4 + 64);
	e = &a->v[a->n++];
	*e = (struct sweep_case_attempts){
		.case_name = keep(a, fin->case_name), .image = keep(a, fin->image),
		.kind = keep(a, sweep_result_kind_name(sweep_result_kind(fin))), .gpu_uids = keep(a, fin->gpu_uids),
		.host = keep(a, fin->host), .final_attempt = fin->attempt, .seq = a->n - 1,
	};
	for (size_t i = 0; i < n; i++) {
		if (sweep_result_passed(p[i]))
			continue;
		if (p[i] == fin)
			final = e->n_failed;
		add_failed(a, e, p[i]);
	}
	e->final = final == SIZE_MAX ? e->n_failed : final;
}

void sweep_attempts_add(struct sweep_attempts *a, const struct sweep_results *rs)
{
	const struct sweep_result **p = xcalloc(rs->n + 1, sizeof(*p));

	for (size_t i = 0; i < rs->n; i++)
		p[i] = &rs->v[i];
	qsort(p, rs->n, sizeof(*p), by_key);
	for (size_t i = 0, j; i < rs->n; i = j) {
		for (j = i + 1; j < rs->n && !key_cmp(p[i]->case_name, p[i]->image,
						       p[j]->case_name, p[j]->image); j++)
			;
		add_case(a, p + i, j - i);
	}
	free(p);
}

/* By case and image, then in the order the chunks came. */
static int by_entry(const void *x, const void *y)
{
	const struct sweep_case_attempts *a = x, *b = y;
	int c = key_cmp(a->case_name, a->image, b->case_name, b->image);

	return c ? c : (a->seq > b->seq) - (a->seq < b->seq);
}

/* later (from a later chunk) into e: the failed attempts one after the
 * other, in file order; the final attempt the highest, the last written
 * of equals (as add_case chooses within a chunk). */
static void merge_entry(struct sweep_case_attempts *e, struct sweep_case_attempts *later)
{
	size_t n = e->n_failed + later->n_failed;
	bool later_final = later->final_attempt >= e->final_attempt;
	size_t final = later_final ? (later->final < later->n_failed ? e->n_failed + later->final : n)
				   : (e->final < e->n_failed ? e->final : n);

	if (later->n_failed) {
		e->failed = xrealloc(e->failed, n * sizeof(*e->failed));
		memcpy(e->failed + e->n_failed, later->failed, later->n_failed * sizeof(*e->failed));
	}
	if (later_final) {
		e->kind = later->kind;
		e->gpu_uids = later->gpu_uids;
		e->host = later->host;
		e->final_attempt = later->final_attempt;
	}
	e->n_failed = n;
	e->final = final;
	free(later->failed);
}

void sweep_attempts_finish(struct sweep_attempts *a)
{
	size_t n = 0;

	if (a->n) /* no results at all: v is NULL, which qsort must not get */
		qsort(a->v, a->n, sizeof(*a->v), by_entry);
	for (size_t i = 0; i < a->n; i++) {
		if (n && !key_cmp(a->v[n - 1].case_name, a->v[n - 1].image, a->v[i].case_name,
				  a->v[i].image))
			merge_entry(&a->v[n - 1], &a->v[i]);
		else
			a->v[n++] = a->v[i];
	}
	a->n = n;
}

void sweep_attempts_build(struct sweep_attempts *a, const struct sweep_results *rs)
{
	memset(a, 0, sizeof(*a));
	sweep_attempts_add(a, rs);
	sweep_attempts_finish(a);
}

const struct sweep_case_attempts *sweep_attempts_find(const struct sweep_attempts *a,
						      const char *case_name, const char *image)
{
	size_t lo = 0, hi = a->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = key_cmp(case_name, image, a->v[mid].case_name, a->v[mid].image);

		if (!c)
			return &a->v[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

void sweep_attempts_release(struct sweep_attempts *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->v[i].failed);
	free(a->v);
	intern_release(&a->strings);
	memset(a, 0, sizeof(*a));
}

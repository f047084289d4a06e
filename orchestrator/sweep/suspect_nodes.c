#include "orchestrator/sweep/suspect_nodes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"

#define UNKNOWN_HOST "unknown"

/* The GPUs of the results, each an index of orchestrator/sweep/suspect.h's. */
struct gpu_table {
	struct sweep_gpu_note id[GPU_MAX]; /* host, ordinal, unique_id */
	char name[GPU_MAX][96];            /* "node7 GPU 0" */
	size_t n;
};

static const char *keep(struct sweep_suspect_inputs *in, const char *s)
{
	return intern(in->shared ? in->shared : &in->strings, s);
}

void sweep_suspect_inputs_add(struct sweep_suspect_inputs *in, const struct sweep_results *rs)
{
	for (size_t i = 0; i < rs->n; i++) {
		const struct case_result *r = &rs->v[i];
		struct sweep_suspect_input *x;

		if (in->n == in->alloc) {
			in->alloc += in->alloc / 2 + 16;
			in->v = xrealloc(in->v, in->alloc * sizeof(*in->v));
		}
		x = &in->v[in->n];
		*x = (struct sweep_suspect_input){
			.case_name = keep(in, r->case_name), .image = keep(in, r->image),
			.verdict = { r->outcome, r->has_class ? r->fault_class : FAULT_UNKNOWN },
			.gpu_uids = keep(in, r->gpu_uids), .host = keep(in, r->host),
			.finished = r->finished, .attempt = r->attempt, .seq = in->n,
			.replayed = r->state == RESULT_DONE && r->has_outcome,
			.n_gpus = r->n_gpus,
			.gpus = r->n_gpus ? xcalloc(r->n_gpus, sizeof(int)) : NULL,
		};
		if (r->n_gpus)
			memcpy(x->gpus, r->gpus, r->n_gpus * sizeof(int));
		in->n++;
	}
}

void sweep_suspect_inputs_release(struct sweep_suspect_inputs *in)
{
	for (size_t i = 0; i < in->n; i++)
		free(in->v[i].gpus);
	free(in->v);
	intern_release(&in->strings);
	memset(in, 0, sizeof(*in));
}

/* Finish order; a tie by attempt, then by place in the files (qsort is
 * not stable and the order decides which case a reason calls the last). */
static int by_finished(const void *a, const void *b)
{
	const struct sweep_suspect_input *x = a, *y = b;

	if (x->finished != y->finished)
		return x->finished < y->finished ? -1 : 1;
	if (x->attempt != y->attempt)
		return x->attempt - y->attempt;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* A case's index: the position of its case and image in keys (n of
 * them, room for one per input). */
static size_t case_index(const struct sweep_suspect_input **keys, size_t *n,
			 const struct sweep_suspect_input *r)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp(keys[i]->case_name, r->case_name) && !strcmp(keys[i]->image, r->image))
			return i;
	keys[*n] = r;
	return (*n)++;
}

/* The i-th of a result's comma-separated unique_ids, 0 unknown. */
static unsigned long long uid_at(const char *uids, size_t i)
{
	const char *p = uids;

	while (p && i--) {
		p = strchr(p, ',');
		p = p ? p + 1 : NULL;
	}
	return p ? strtoull(p, NULL, 10) : 0;
}

/* The index of r's i-th GPU; a GPU not yet seen gets one when add (and
 * one is left), else -1. */
static int gpu_index(struct gpu_table *t, const struct sweep_suspect_input *r, size_t i, bool add)
{
	const char *host = r->host && *r->host ? r->host : UNKNOWN_HOST;
	unsigned long long uid = uid_at(r->gpu_uids, i);
	struct sweep_gpu_note *n;

	for (size_t k = 0; k < t->n; k++)
		if (sweep_gpu_is(&t->id[k], host, r->gpus[i], uid))
			return (int)k;
	if (!add || t->n == GPU_MAX)
		return -1;
	n = &t->id[t->n];
	memset(n, 0, sizeof(*n));
	n->gpu = r->gpus[i];
	n->unique_id = uid;
	snprintf(n->host, sizeof(n->host), "%s", host);
	snprintf(t->name[t->n], sizeof(t->name[t->n]), "%s GPU %d", host, r->gpus[i]);
	return (int)t->n++;
}

/* Indexes for the GPUs of the replays that passed (or did not). */
static void index_gpus(struct gpu_table *t, const struct sweep_suspect_input *v, size_t n,
		       bool passed)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].replayed && (v[i].verdict.outcome == OUTCOME_PASS) == passed)
			for (size_t g = 0; g < v[i].n_gpus; g++)
				gpu_index(t, &v[i], g, true);
}

size_t sweep_suspects_of_inputs(struct sweep_suspect_inputs *in,
				struct sweep_gpu_note notes[GPU_MAX])
{
	struct sweep_suspect_input *v = in->v;
	struct gpu_table *t = xcalloc(1, sizeof(*t));
	const struct sweep_suspect_input **keys = xcalloc(in->n + 1, sizeof(*keys));
	struct gpu_suspects s;
	size_t found = 0, n_keys = 0;

	if (in->n) /* none: v is NULL, which qsort must not get */
		qsort(v, in->n, sizeof(*v), by_finished);
	/* Only a GPU something failed on can become suspect: those first. */
	index_gpus(t, v, in->n, false);
	index_gpus(t, v, in->n, true);
	gpu_suspects_init(&s, in->n);
	for (size_t k = 0; k < t->n; k++)
		s.names[k] = t->name[k];
	for (size_t i = 0; i < in->n; i++) {
		int gpus[GPU_MAX];

		if (!v[i].replayed)
			continue;
		for (size_t g = 0; g < v[i].n_gpus; g++)
			gpus[g] = gpu_index(t, &v[i], g, false);
		gpu_suspects_note(&s, case_index(keys, &n_keys, &v[i]), v[i].case_name, gpus,
				  v[i].n_gpus, &v[i].verdict);
	}
	for (size_t k = 0; k < t->n; k++)
		if (s.suspect[k]) {
			notes[found] = t->id[k];
			snprintf(notes[found].reason, sizeof(notes[found].reason), "%s", s.reason[k]);
			found++;
		}
	gpu_suspects_release(&s);
	free(keys);
	free(t);
	return found;
}

size_t sweep_suspects_of_results(const struct sweep_results *rs,
				 struct sweep_gpu_note notes[GPU_MAX])
{
	struct sweep_suspect_inputs in = { 0 };
	size_t found;

	sweep_suspect_inputs_add(&in, rs);
	found = sweep_suspects_of_inputs(&in, notes);
	sweep_suspect_inputs_release(&in);
	return found;
}

static bool listed(const struct strvec *sv, const char *s)
{
	for (size_t i = 0; i < sv->n; i++)
		if (!strcmp(sv->v[i], s))
			return true;
	return false;
}

void sweep_suspect_nodes(const struct sweep_results *rs, struct strvec *hosts,
			 struct strvec *reasons)
{
	struct sweep_gpu_note *notes = xcalloc(GPU_MAX, sizeof(*notes));
	size_t n = sweep_suspects_of_results(rs, notes);

	for (size_t i = 0; i < n; i++) {
		/* A result that named no host names no node to leave out. */
		if (strcmp(notes[i].host, UNKNOWN_HOST) && !listed(hosts, notes[i].host))
			strvec_push(hosts, notes[i].host);
		strvec_push(reasons, notes[i].reason);
	}
	free(notes);
}

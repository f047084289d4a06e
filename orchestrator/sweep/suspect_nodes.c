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

/* Finish order; a tie by attempt, then by place in the files (qsort is
 * not stable and the order decides which case a reason calls the last). */
static int by_finished(const void *a, const void *b)
{
	const struct sweep_result *x = *(const struct sweep_result *const *)a;
	const struct sweep_result *y = *(const struct sweep_result *const *)b;

	if (x->finished != y->finished)
		return x->finished < y->finished ? -1 : 1;
	if (x->attempt != y->attempt)
		return x->attempt - y->attempt;
	return x < y ? -1 : x > y;
}

/* A case's index: its "case\nimage" key's position in keys. */
static size_t case_index(struct strvec *keys, const struct sweep_result *r)
{
	char *k = xasprintf("%s\n%s", r->case_name, r->image);

	for (size_t i = 0; i < keys->n; i++)
		if (!strcmp(keys->v[i], k)) {
			free(k);
			return i;
		}
	strvec_push_nodup(keys, k);
	return keys->n - 1;
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
static int gpu_index(struct gpu_table *t, const struct sweep_result *r, size_t i, bool add)
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

static bool replayed(const struct sweep_result *r)
{
	return !strcmp(r->state, RESULT_DONE) && r->outcome;
}

/* Indexes for the GPUs of the replays that passed (or did not). */
static void index_gpus(struct gpu_table *t, const struct sweep_result **v, size_t n, bool passed)
{
	for (size_t i = 0; i < n; i++)
		if (replayed(v[i]) && (strcmp(v[i]->outcome, "PASS") == 0) == passed)
			for (size_t g = 0; g < v[i]->n_gpus; g++)
				gpu_index(t, v[i], g, true);
}

size_t sweep_suspects_of_results(const struct sweep_results *rs,
				 struct sweep_gpu_note notes[GPU_MAX])
{
	const struct sweep_result **v = xcalloc(rs->n + 1, sizeof(*v));
	struct gpu_table *t = xcalloc(1, sizeof(*t));
	struct strvec keys = STRVEC_INIT;
	struct gpu_suspects s;
	size_t found = 0;

	for (size_t i = 0; i < rs->n; i++)
		v[i] = &rs->v[i];
	qsort(v, rs->n, sizeof(*v), by_finished);
	/* Only a GPU something failed on can become suspect: those first. */
	index_gpus(t, v, rs->n, false);
	index_gpus(t, v, rs->n, true);
	gpu_suspects_init(&s, rs->n);
	for (size_t k = 0; k < t->n; k++)
		s.names[k] = t->name[k];
	for (size_t i = 0; i < rs->n; i++) {
		int gpus[GPU_MAX];

		if (!replayed(v[i]))
			continue;
		for (size_t g = 0; g < v[i]->n_gpus; g++)
			gpus[g] = gpu_index(t, v[i], g, false);
		gpu_suspects_note(&s, case_index(&keys, v[i]), v[i]->case_name, gpus, v[i]->n_gpus,
				  v[i]->outcome, v[i]->fault_class);
	}
	for (size_t k = 0; k < t->n; k++)
		if (s.suspect[k]) {
			notes[found] = t->id[k];
			snprintf(notes[found].reason, sizeof(notes[found].reason), "%s", s.reason[k]);
			found++;
		}
	gpu_suspects_release(&s);
	strvec_clear(&keys);
	free(t);
	free(v);
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

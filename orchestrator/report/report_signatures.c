/* The failures of a sweep grouped for triage (docs/sweep.md "Reports"):
 * untriaged ones by signature, known ones by issue, each group with how
 * many results, cases and images it covers. Pure. */
#include "orchestrator/report/report.h"

#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"

static bool counted(const struct report_case *c)
{
	return c->status != ST_GONE && c->sig_id;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static size_t distinct(const char **v, size_t n)
{
	size_t d = 0;

	qsort(v, n, sizeof(*v), cmp_str);
	for (size_t i = 0; i < n; i++)
		d += !i || strcmp(v[i], v[i - 1]);
	return d;
}

/* The cases, images and signatures of one group (its key in *key_of). */
static void group_counts(const struct report *r, struct report_failure_group *g, bool known)
{
	const char **cases = xcalloc(g->results ? g->results : 1, sizeof(*cases));
	const char **images = xcalloc(g->results ? g->results : 1, sizeof(*images));
	const char **sigs = xcalloc(g->results ? g->results : 1, sizeof(*sigs));
	size_t n = 0;

	for (size_t i = 0; i < r->n; i++) {
		const struct report_case *c = &r->cases[i];

		if (!counted(c) || (known ? !c->known_id || strcmp(c->known_id, g->key)
					  : c->known_id || strcmp(c->sig_id, g->key)))
			continue;
		cases[n] = c->case_name;
		images[n] = c->image;
		sigs[n++] = c->sig_id;
	}
	g->cases = distinct(cases, n);
	g->images = distinct(images, n);
	g->signatures = distinct(sigs, n);
	free(cases);
	free(images);
	free(sigs);
}

void report_failure_groups(const struct report *r, struct report_failure_groups *out)
{
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < r->n; i++) {
		const struct report_case *c = &r->cases[i];
		bool known;
		const char *key;
		struct report_failure_group **v;
		size_t *n, k;

		if (!counted(c))
			continue;
		known = c->known_id != NULL;
		key = known ? c->known_id : c->sig_id;
		v = known ? &out->known : &out->untriaged;
		n = known ? &out->n_known : &out->n_untriaged;
		for (k = 0; k < *n && strcmp((*v)[k].key, key); k++)
			;
		if (k == *n) {
			*v = xrealloc(*v, (*n + 1) * sizeof(**v));
			(*v)[k] = (struct report_failure_group){ .key = key, .first = c };
			(*n)++;
		}
		(*v)[k].results++;
	}
	for (size_t k = 0; k < out->n_untriaged; k++)
		group_counts(r, &out->untriaged[k], false);
	for (size_t k = 0; k < out->n_known; k++)
		group_counts(r, &out->known[k], true);
}

void report_failure_groups_release(struct report_failure_groups *g)
{
	free(g->untriaged);
	free(g->known);
	memset(g, 0, sizeof(*g));
}

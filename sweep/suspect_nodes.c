#include "sweep/suspect_nodes.h"

#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "sweep/suspect.h"

static int by_finished(const void *a, const void *b)
{
	const struct sweep_result *x = *(const struct sweep_result *const *)a;
	const struct sweep_result *y = *(const struct sweep_result *const *)b;

	if (x->finished != y->finished)
		return x->finished < y->finished ? -1 : 1;
	return x->attempt - y->attempt;
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

static void one_host(const struct sweep_result **v, size_t n, const char *host,
		     struct strvec *hosts, struct strvec *reasons)
{
	struct strvec keys = STRVEC_INIT;
	struct gpu_suspects s;
	bool any = false;

	gpu_suspects_init(&s, n);
	for (size_t i = 0; i < n; i++) {
		const struct sweep_result *r = v[i];

		if (!r->host || strcmp(r->host, host) || strcmp(r->state, RESULT_DONE))
			continue;
		gpu_suspects_note(&s, case_index(&keys, r), r->case_name, r->gpus, r->n_gpus,
				  r->outcome, r->fault_class);
	}
	for (int g = 0; g < SUSPECT_MAX_GPUS; g++)
		if (s.suspect[g]) {
			any = true;
			strvec_pushf(reasons, "%s GPU %d: %s", host, g, s.reason[g]);
		}
	if (any)
		strvec_push(hosts, host);
	gpu_suspects_release(&s);
	strvec_clear(&keys);
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
	const struct sweep_result **v = xcalloc(rs->n + 1, sizeof(*v));
	struct strvec seen = STRVEC_INIT;

	for (size_t i = 0; i < rs->n; i++)
		v[i] = &rs->v[i];
	qsort(v, rs->n, sizeof(*v), by_finished);
	for (size_t i = 0; i < rs->n; i++) {
		if (!v[i]->host || listed(&seen, v[i]->host))
			continue;
		strvec_push(&seen, v[i]->host);
		one_host(v, rs->n, v[i]->host, hosts, reasons);
	}
	strvec_clear(&seen);
	free(v);
}

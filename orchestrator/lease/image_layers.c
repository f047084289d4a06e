#include "orchestrator/lease/image_layers.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"

void image_layers_release(struct image_layers *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].diff_id);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

void image_layers_add(struct image_layers *l, const char *diff_id, long long size)
{
	l->v = xrealloc(l->v, (l->n + 1) * sizeof(*l->v));
	l->v[l->n++] = (struct image_layer){ xstrdup(diff_id), size };
}

void image_layers_copy(struct image_layers *to, const struct image_layers *from)
{
	memset(to, 0, sizeof(*to));
	for (size_t i = 0; from && i < from->n; i++)
		image_layers_add(to, from->v[i].diff_id, from->v[i].size);
}

int image_layers_pair(const struct strvec *diff_ids, const long long *sizes, size_t n_sizes,
		      struct image_layers *out)
{
	size_t k = 0;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < diff_ids->n; i++) {
		if (!strcmp(diff_ids->v[i], IMAGE_LAYER_EMPTY)) {
			image_layers_add(out, diff_ids->v[i], 0);
			continue;
		}
		while (k < n_sizes && sizes[k] == 0)
			k++;
		if (k == n_sizes || sizes[k] < 0)
			break;
		image_layers_add(out, diff_ids->v[i], sizes[k++]);
	}
	while (k < n_sizes && sizes[k] == 0)
		k++;
	if (out->n == diff_ids->n && k == n_sizes && out->n)
		return 0;
	image_layers_release(out);
	return -1;
}

void layer_tally_init(struct layer_tally *t)
{
	strvec_init(&t->seen);
	t->bytes = 0;
}

static bool seen(const struct layer_tally *t, const char *diff_id)
{
	for (size_t i = 0; i < t->seen.n; i++)
		if (!strcmp(t->seen.v[i], diff_id))
			return true;
	return false;
}

void layer_tally_add(struct layer_tally *t, const struct image_layers *l, long long whole)
{
	if (!l || !l->n) {
		t->bytes += whole > 0 ? whole : 0;
		return;
	}
	for (size_t i = 0; i < l->n; i++)
		if (!seen(t, l->v[i].diff_id)) {
			strvec_push(&t->seen, l->v[i].diff_id);
			t->bytes += l->v[i].size;
		}
}

void layer_tally_release(struct layer_tally *t)
{
	strvec_clear(&t->seen);
	t->bytes = 0;
}

/* The GPU-time samples' JSON, as a results line carries them
 * (perf_samples_json.h). */
#include "orchestrator/perf/perf_samples_json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"

static void add_ms(cJSON *o, const char *k, double v)
{
	if (v >= 0 && isfinite(v))
		cJSON_AddNumberToObject(o, k, v);
	else
		cJSON_AddNullToObject(o, k);
}

cJSON *perf_samples_to_json(const struct perf_samples *s)
{
	cJSON *o = cJSON_CreateObject();
	cJSON *a = cJSON_AddArrayToObject(o, "samples");

	for (size_t i = 0; i < s->n; i++) {
		cJSON *x = cJSON_CreateObject();

		add_ms(x, "kernel_ms", s->v[i].kernel_ms);
		add_ms(x, "graph_ms", s->v[i].graph_ms);
		add_ms(x, "total_ms", s->v[i].total_ms);
		add_ms(x, "wall_ms", s->v[i].wall_ms);
		cJSON_AddItemToArray(a, x);
	}
	cJSON_AddNumberToObject(o, "warmup", s->warmup);
	if (s->adaptive > 0)
		cJSON_AddNumberToObject(o, "adaptive", s->adaptive);
	if (s->note)
		cJSON_AddStringToObject(o, "note", s->note);
	else
		cJSON_AddNullToObject(o, "note");
	return o;
}

static double ms(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsNumber(v) && isfinite(v->valuedouble) && v->valuedouble >= 0
		? v->valuedouble : -1;
}

void perf_samples_from_json(struct perf_samples *s, const cJSON *o)
{
	const cJSON *it, *w = cJSON_GetObjectItemCaseSensitive(o, "warmup");
	const cJSON *ad = cJSON_GetObjectItemCaseSensitive(o, "adaptive");
	const char *note = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, "note"));

	memset(s, 0, sizeof(*s));
	if (!cJSON_IsObject(o))
		return;
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(o, "samples")) {
		if (!cJSON_IsObject(it))
			continue;
		struct perf_sample x = { ms(it, "kernel_ms"), ms(it, "graph_ms"),
					 ms(it, "total_ms"), ms(it, "wall_ms") };

		perf_samples_add(s, &x);
	}
	if (cJSON_IsNumber(w) && w->valuedouble >= 0 && w->valuedouble <= 1e6)
		s->warmup = (int)w->valuedouble;
	if (cJSON_IsNumber(ad) && ad->valuedouble > 0 && ad->valuedouble <= (double)s->n)
		s->adaptive = (int)ad->valuedouble;
	if (note)
		s->note = xstrdup(note);
}

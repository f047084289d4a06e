/* The GPU-time samples of one case (docs/perf.md "Samples"). */
#include "orchestrator/perf/perf_samples.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"

void perf_samples_release(struct perf_samples *s)
{
	free(s->v);
	free(s->note);
	memset(s, 0, sizeof(*s));
}

void perf_samples_add(struct perf_samples *s, const struct perf_sample *x)
{
	if (s->n >= PERF_RUNS_MAX)
		return;
	if (s->n == s->alloc) {
		s->alloc = s->alloc ? 2 * s->alloc : 8;
		s->v = xrealloc(s->v, s->alloc * sizeof(*s->v));
	}
	s->v[s->n++] = *x;
}

void perf_samples_note(struct perf_samples *s, const char *note)
{
	free(s->note);
	s->note = xstrdup_or_null(note);
}

size_t perf_samples_kernel_ms(const struct perf_samples *s, double *out)
{
	size_t k = 0;

	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].kernel_ms >= 0)
			out[k++] = s->v[i].kernel_ms;
	return k;
}

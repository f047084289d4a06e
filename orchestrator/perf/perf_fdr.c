/* Benjamini-Hochberg over a sweep's p-values (docs/perf.md "A thousand
 * cases a night"). */
#include "orchestrator/perf/perf_fdr.h"

#include <math.h>
#include <stdlib.h>

#include "common/xalloc.h"

struct ranked {
	double p;
	size_t i;
};

static int by_p(const void *pa, const void *pb)
{
	const struct ranked *a = pa, *b = pb;

	if (a->p != b->p)
		return (a->p > b->p) - (a->p < b->p);
	return (a->i > b->i) - (a->i < b->i);
}

void perf_fdr_adjust(const double *p, size_t n, double *adj)
{
	struct ranked *r = xcalloc(n + 1, sizeof(*r));
	size_t m = 0;
	double run = 1;

	for (size_t i = 0; i < n; i++)
		if (isfinite(p[i]))
			r[m++] = (struct ranked){ p[i], i };
	for (size_t i = 0; i < n; i++)
		if (!isfinite(p[i]))
			adj[i] = NAN;
	qsort(r, m, sizeof(*r), by_p);
	/* From the largest down: the running minimum makes the adjusted
	 * values monotone in p (the step-up of the procedure). */
	for (size_t k = m; k > 0; k--) {
		double v = r[k - 1].p * (double)m / (double)k;

		run = v < run ? v : run;
		adj[r[k - 1].i] = run;
	}
	free(r);
}

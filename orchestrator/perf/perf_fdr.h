/* The false discovery rate over a sweep's comparisons, pure
 * (docs/perf.md "A thousand cases a night"): the Benjamini-Hochberg
 * adjusted p-values of a family of tests. */
#ifndef HRR_PERF_FDR_H
#define HRR_PERF_FDR_H

#include <stddef.h>

/* The default of --perf-fdr: the expected share of false findings among
 * a sweep's `slower` and `faster` cases. */
#define PERF_FDR_DEFAULT 0.05

/* adj[i] = the Benjamini-Hochberg adjusted p-value of p[i] (R's
 * p.adjust(p, "BH")): over the m finite p-values sorted ascending,
 * min over j >= i of m p_(j) / j, capped at 1. A p that is not finite
 * (a comparison that made no test) is no member of the family: its adj
 * is NaN and it is not counted in m. adj may be p. A case is a discovery
 * at level q exactly when adj <= q. */
void perf_fdr_adjust(const double *p, size_t n, double *adj);

#endif

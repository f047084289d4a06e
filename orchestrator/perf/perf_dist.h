/* Distribution functions the GPU-time statistics need, pure: Student's
 * t tail, the digamma and trigamma functions and the trigamma's inverse
 * (docs/perf.md "Nights as units"). */
#ifndef HRR_PERF_DIST_H
#define HRR_PERF_DIST_H

/* P(|T| >= |t|) for Student's t with df degrees of freedom (df > 0; an
 * infinite df is the normal distribution). */
double perf_t_two_sided(double t, double df);
/* P(F >= f) for Fisher's F with d1 and d2 degrees of freedom. */
double perf_f_upper(double f, double d1, double d2);
/* The digamma and trigamma functions for x > 0. */
double perf_digamma(double x);
double perf_trigamma(double x);
/* The y > 0 with trigamma(y) = x, for x > 0. */
double perf_trigamma_inverse(double x);

#endif

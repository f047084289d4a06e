/* Distribution functions (perf_dist.h). */
#include "orchestrator/perf/perf_dist.h"

#include <math.h>

/* The continued fraction of the regularized incomplete beta function
 * (the modified Lentz method), for x < (a + 1) / (a + b + 2). */
static double beta_fraction(double a, double b, double x)
{
	const double tiny = 1e-300;
	double c = 1, d = 1 - (a + b) * x / (a + 1), h;

	d = 1 / (fabs(d) < tiny ? tiny : d);
	h = d;
	for (int m = 1; m <= 300; m++) {
		for (int odd = 0; odd < 2; odd++) {
			double num = odd ? -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))
					 : m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));

			d = 1 + num * d;
			d = 1 / (fabs(d) < tiny ? tiny : d);
			c = 1 + num / c;
			c = fabs(c) < tiny ? tiny : c;
			h *= d * c;
		}
		if (fabs(d * c - 1) < 1e-15)
			break;
	}
	return h;
}

/* I_x(a, b), the regularized incomplete beta function. */
static double incomplete_beta(double a, double b, double x)
{
	double front;

	if (x <= 0 || x >= 1)
		return x <= 0 ? 0 : 1;
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return front * beta_fraction(a, b, x) / a;
	return 1 - front * beta_fraction(b, a, 1 - x) / b;
}

double perf_t_two_sided(double t, double df)
{
	if (isinf(df))
		return erfc(fabs(t) / M_SQRT2);
	return incomplete_beta(df / 2, 0.5, df / (df + t * t));
}

double perf_f_upper(double f, double d1, double d2)
{
	if (!(f > 0))
		return 1;
	return incomplete_beta(d2 / 2, d1 / 2, d2 / (d2 + d1 * f));
}

/* Below 6 by the recurrence psi(x) = psi(x + 1) - 1/x, above by the
 * asymptotic series. */
double perf_digamma(double x)
{
	double r = 0, f;

	for (; x < 6; x += 1)
		r -= 1 / x;
	f = 1 / (x * x);
	return r + log(x) - 0.5 / x -
	       f * (1.0 / 12 - f * (1.0 / 120 - f * (1.0 / 252 - f * (1.0 / 240 - f / 132))));
}

double perf_trigamma(double x)
{
	double r = 0, f;

	for (; x < 6; x += 1)
		r += 1 / (x * x);
	f = 1 / (x * x);
	return r + 1 / x + f / 2 +
	       f / x * (1.0 / 6 - f * (1.0 / 30 - f * (1.0 / 42 - f * (1.0 / 30 - f * 5.0 / 66))));
}

/* trigamma decreases from infinity to 0: bisection on the log scale. */
double perf_trigamma_inverse(double x)
{
	double lo = -30, hi = 30;

	for (int i = 0; i < 200; i++) {
		double mid = (lo + hi) / 2;

		if (perf_trigamma(exp(mid)) > x)
			lo = mid;
		else
			hi = mid;
	}
	return exp((lo + hi) / 2);
}

// SPDX-License-Identifier: GPL-2.0-only
/* Descriptive statistics and the median's order-statistic interval. */
#include <errno.h>
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdlib.h>

#include "stats.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void stats__sort(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
}

double stats__median(const double *sorted, size_t n)
{
	if (!n)
		return NAN;
	if (n % 2)
		return sorted[n / 2];
	return (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

double stats__mean(const double *v, size_t n)
{
	double sum = 0;
	size_t i;

	if (!n)
		return NAN;
	for (i = 0; i < n; i++)
		sum += v[i];
	return sum / n;
}

double stats__stddev(const double *v, size_t n, double mean)
{
	double ss = 0;
	size_t i;

	if (n < 2)
		return 0;
	for (i = 0; i < n; i++)
		ss += (v[i] - mean) * (v[i] - mean);
	return sqrt(ss / (n - 1));
}

size_t stats__min_n_for_ci(double conf)
{
	/* The widest interval, [min, max], misses with 2 * 2^-n. */
	return (size_t)ceil(log2(2 / (1 - conf)) - 1e-9);
}

/* P(Binomial(n, 1/2) <= k) */
static double binom_half_cdf(size_t k, size_t n)
{
	return gsl_cdf_binomial_P((unsigned int)k, 0.5, (unsigned int)n);
}

int stats__median_ci(const double *sorted, size_t n, double conf, double *lo,
		     double *hi, double *level)
{
	double tail = (1 - conf) / 2, z;
	long k;

	*lo = *hi = *level = NAN;
	if (!n || binom_half_cdf(0, n) > tail)
		return -EDOM;
	/*
	 * Start from the normal approximation, then walk to the exact k:
	 * a few CDF calls rather than n/2 of them for a large sample.
	 */
	z = gsl_cdf_ugaussian_Qinv(tail);
	k = (long)floor(n / 2.0 - z * sqrt((double)n) / 2);
	if (k < 1)
		k = 1;
	if (k > (long)(n + 1) / 2)
		k = (n + 1) / 2;
	while (k > 1 && binom_half_cdf(k - 1, n) > tail)
		k--;
	while (k + 1 <= (long)(n + 1) / 2 && binom_half_cdf(k, n) <= tail)
		k++;
	*lo = sorted[k - 1];
	*hi = sorted[n - k];
	*level = 1 - 2 * binom_half_cdf(k - 1, n);
	return 0;
}

void stats__summarize(double *v, size_t n, double conf, struct stats_summary *s)
{
	stats__sort(v, n);
	s->n = n;
	s->median = stats__median(v, n);
	s->mean = stats__mean(v, n);
	s->stddev = stats__stddev(v, n, s->mean);
	s->cv = n && s->mean != 0 ? s->stddev / fabs(s->mean) : NAN;
	s->min = n ? v[0] : NAN;
	s->max = n ? v[n - 1] : NAN;
	stats__median_ci(v, n, conf, &s->ci_lo, &s->ci_hi, &s->ci_level);
}

double stats__geomean(const double *v, size_t n)
{
	double sum = 0;
	size_t i;

	if (!n)
		return NAN;
	for (i = 0; i < n; i++) {
		if (!(v[i] > 0))
			return NAN;
		sum += log(v[i]);
	}
	return exp(sum / n);
}

double stats__welch_p(double mean1, double var1, size_t n1, double mean2,
		      double var2, size_t n2)
{
	double se2, t, df, a, b;

	if (n1 < 2 || n2 < 2)
		return 1;
	a = var1 / n1;
	b = var2 / n2;
	se2 = a + b;
	if (se2 <= 0)
		return mean1 == mean2 ? 1 : 0;
	t = (mean2 - mean1) / sqrt(se2);
	/* Welch-Satterthwaite; a zero-variance side contributes nothing. */
	df = se2 * se2 /
	     ((a > 0 ? a * a / (n1 - 1) : 0) + (b > 0 ? b * b / (n2 - 1) : 0));
	return 2 * gsl_cdf_tdist_Q(fabs(t), df);
}

double stats__student_p(double mean1, double var1, size_t n1, double mean2,
			double var2, size_t n2)
{
	double df = (double)n1 + n2 - 2, pooled, t;

	if (n1 < 1 || n2 < 1 || df < 1)
		return 1;
	pooled = ((n1 - 1) * var1 + (n2 - 1) * var2) / df;
	if (pooled <= 0)
		return mean1 == mean2 ? 1 : 0;
	t = (mean2 - mean1) / sqrt(pooled * (1.0 / n1 + 1.0 / n2));
	return 2 * gsl_cdf_tdist_Q(fabs(t), df);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * What a gate of m comparisons with n trials a side can detect, before
 * any trial runs: whether any change can reach significance at all, and
 * the shift it detects 8 times in 10, in standard deviations of a trial
 * (normal noise; Mann-Whitney at Holm's first step, alpha / m, the
 * strictest). Below 41 trials a side the power is simulated (a fixed
 * seed: plan prints the same figure every time); above, the normal
 * approximation of U is close enough.
 */
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>

#include "power.h"
#include "stats.h"
#include "util.h"

#define POWER_WANTED 0.8
#define POWER_SIMS 2000
#define POWER_SIM_MAX_N 40
#define POWER_SEED 20241202UL

/*
 * The largest c with 2 P(U <= c) < alpha; -1 when there is none. Exact
 * where simulated; the normal approximation above, where the exact
 * distribution would cost O(n^4).
 */
static long critical_u(size_t n, double alpha)
{
	double mn = (double)n * n, *pmf, tail = 0;
	long c = -1;

	if (n > POWER_SIM_MAX_N)
		return (long)floor(mn / 2 - 0.5 -
				   gsl_cdf_ugaussian_Qinv(alpha / 2) *
					   sqrt(mn * (2.0 * n + 1) / 12));
	pmf = stats__mw_pmf(n, n);
	while ((size_t)(c + 1) <= n * n && 2 * (tail + pmf[c + 1]) < alpha)
		tail += pmf[++c];
	free(pmf);
	return c;
}

size_t stats__min_trials(size_t m, double alpha)
{
	size_t n;

	for (n = 1; n < 1000; n++)
		if (stats__mw_min_p(n, n) * (double)(m ? m : 1) < alpha)
			return n;
	return n;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* #{(i, j): y[j] > x[i]} of two sorted samples. */
static size_t count_u(const double *x, const double *y, size_t n)
{
	size_t i, j = 0, u = 0;

	for (i = 0; i < n; i++) {
		while (j < n && y[j] <= x[i])
			j++;
		u += n - j;
	}
	return u;
}

static double simulated(gsl_rng *rng, size_t n, long c, double shift)
{
	double *x = xmalloc(n * sizeof(*x)), *y = xmalloc(n * sizeof(*y));
	size_t s, i, hits = 0, u;

	gsl_rng_set(rng, POWER_SEED);
	for (s = 0; s < POWER_SIMS; s++) {
		for (i = 0; i < n; i++) {
			x[i] = gsl_ran_gaussian(rng, 1);
			y[i] = gsl_ran_gaussian(rng, 1) + shift;
		}
		qsort(x, n, sizeof(*x), cmp_double);
		qsort(y, n, sizeof(*y), cmp_double);
		u = count_u(x, y, n);
		hits += u <= (size_t)c || u >= n * n - (size_t)c;
	}
	free(x);
	free(y);
	return (double)hits / POWER_SIMS;
}

static double normal(size_t n, long c, double shift)
{
	double mn = (double)n * n, p1 = gsl_cdf_ugaussian_P(shift / M_SQRT2);
	double sd = sqrt(mn * (2.0 * n + 1) / 12);

	return gsl_cdf_ugaussian_Q((mn - c - 0.5 - mn * p1) / sd);
}

void stats__power(size_t m, size_t n, double alpha, struct stats_power *pw)
{
	gsl_rng *rng = NULL;
	double lo = 0, hi = 20, mid;
	long c;
	int i;

	pw->comparisons = m ? m : 1;
	pw->trials = n;
	pw->min_p = stats__mw_min_p(n, n);
	pw->first_alpha = alpha / pw->comparisons;
	pw->trials_needed = stats__min_trials(pw->comparisons, alpha);
	pw->can_detect = n >= 1 && pw->min_p < pw->first_alpha;
	pw->smallest_sd = NAN;
	if (!pw->can_detect)
		return;
	c = critical_u(n, pw->first_alpha);
	if (n <= POWER_SIM_MAX_N)
		rng = gsl_rng_alloc(gsl_rng_mt19937);
	/* Power grows with the shift: bisect for where it reaches 80%. */
	for (i = 0; i < 24; i++) {
		mid = (lo + hi) / 2;
		if ((rng ? simulated(rng, n, c, mid) : normal(n, c, mid)) >=
		    POWER_WANTED)
			hi = mid;
		else
			lo = mid;
	}
	pw->smallest_sd = hi;
	if (rng)
		gsl_rng_free(rng);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * Mann-Whitney U. The exact null distribution comes from the recursion
 * on the largest of the m + n values: it is an x with probability
 * m / (m + n), and then beats all n y's, or a y, and beats nobody:
 *
 *   P(U = u; m, n) = m/(m+n) P(U = u - n; m-1, n) + n/(m+n) P(U = u; m, n-1)
 *
 * Carried as probabilities, every step adds non-negative terms, so no
 * precision is lost even where the counts (C(98, 49) ~ 2.5e28) would
 * overflow a 64-bit integer or cancel in a generating-function division.
 */
#include <errno.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sf_gamma.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "util.h"

/* Below this many values per sample and without ties, U is exact. */
#define MW_EXACT_MAX 50

/* The whole null distribution of U for sizes @m, @n: m*n + 1 values. */
double *stats__mw_pmf(size_t m, size_t n)
{
	size_t width = m * n + 1, i, j, u;
	double *prev, *cur, *out, *tmp;

	/* Layer i holds P(U = u; i, j) at [j * width + u]. */
	prev = xcalloc((n + 1) * width, sizeof(*prev));
	cur = xcalloc((n + 1) * width, sizeof(*cur));
	for (j = 0; j <= n; j++)
		prev[j * width] = 1; /* no x: U is 0 */
	for (i = 1; i <= m; i++) {
		memset(cur, 0, (n + 1) * width * sizeof(*cur));
		cur[0] = 1; /* no y: U is 0 */
		for (j = 1; j <= n; j++) {
			double px = (double)i / (i + j), py = 1 - px;
			double *c = cur + j * width;
			const double *left = prev + j * width;
			const double *down = cur + (j - 1) * width;

			for (u = 0; u <= i * j; u++) {
				c[u] = py * (u <= i * (j - 1) ? down[u] : 0);
				if (u >= j)
					c[u] += px * left[u - j];
			}
		}
		tmp = prev;
		prev = cur;
		cur = tmp;
	}
	out = xmalloc(width * sizeof(*out));
	memcpy(out, prev + n * width, width * sizeof(*out));
	free(prev);
	free(cur);
	return out;
}

/* P(U <= u) and P(U >= u), from one pass of the recursion. */
static void mw_tails(size_t m, size_t n, double u, double *lower, double *upper)
{
	double *pmf = stats__mw_pmf(m, n);
	size_t k;

	*lower = *upper = 0;
	for (k = 0; k <= m * n; k++) {
		if (k <= u)
			*lower += pmf[k];
		if (k >= u)
			*upper += pmf[k];
	}
	free(pmf);
	*lower = fmin(1, *lower);
	*upper = fmin(1, *upper);
}

double stats__mw_cdf(size_t m, size_t n, double u)
{
	double lower, upper;

	if (u < 0)
		return 0;
	if (u >= (double)(m * n))
		return 1;
	mw_tails(m, n, u, &lower, &upper);
	return lower;
}

double stats__mw_min_p(size_t nx, size_t ny)
{
	double p;

	if (!nx || !ny)
		return 1;
	/* 2 / C(nx + ny, nx), in logs: the binomial overflows early. */
	p = 2 *
	    exp(-gsl_sf_lnchoose((unsigned int)(nx + ny), (unsigned int)nx));
	return p > 1 ? 1 : p;
}

/*
 * Rank sum of x and the tie term sum(t^3 - t), from the two sorted
 * samples merged: each run of equal values gets its average rank.
 */
static void rank_sum(const double *x, size_t nx, const double *y, size_t ny,
		     double *rx, double *ties)
{
	size_t i = 0, j = 0, rank = 0, a, b;
	double v, t;

	*rx = 0;
	*ties = 0;
	while (i < nx || j < ny) {
		if (j >= ny || (i < nx && x[i] <= y[j]))
			v = x[i];
		else
			v = y[j];
		for (a = 0; i < nx && x[i] == v; i++)
			a++;
		for (b = 0; j < ny && y[j] == v; j++)
			b++;
		t = (double)(a + b);
		*rx += a * (rank + (t + 1) / 2);
		*ties += t * t * t - t;
		rank += a + b;
	}
}

int stats__mann_whitney(const double *x, size_t nx, const double *y, size_t ny,
			struct stats_mw *r)
{
	double rx, ties, mu, sigma2, d, lower, upper;
	double N = (double)(nx + ny);

	memset(r, 0, sizeof(*r));
	r->p = NAN;
	if (!nx || !ny)
		return -EDOM;
	rank_sum(x, nx, y, ny, &rx, &ties);
	r->u = rx - nx * (nx + 1) / 2.0;
	r->ties = ties > 0;
	mu = nx * (double)ny / 2;
	if (!r->ties && nx < MW_EXACT_MAX && ny < MW_EXACT_MAX) {
		mw_tails(nx, ny, r->u, &lower, &upper);
		r->p = fmin(1, 2 * fmin(lower, upper));
		r->exact = true;
		return 0;
	}
	sigma2 = nx * (double)ny / 12 * ((N + 1) - ties / (N * (N - 1)));
	if (sigma2 <= 0) {
		/* Every value equal: no evidence of any difference. */
		r->p = 1;
		return 0;
	}
	d = r->u - mu;
	/* Continuity correction towards the mean, as R does. */
	d -= d > 0 ? 0.5 : d < 0 ? -0.5 : 0;
	r->z = d / sqrt(sigma2);
	r->p = fmin(1, 2 * gsl_cdf_ugaussian_Q(fabs(r->z)));
	return 0;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * The interval for median(y) / median(x). A percentile bootstrap makes
 * no assumption about the shape of either sample; its fixed seed makes a
 * report reproducible to the last digit. Each comparison reseeds, so a
 * result does not depend on which comparisons ran before it.
 */
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "util.h"

/*
 * The median of a resample of @sorted. The values are sorted, so the
 * order of drawn indices is the order of drawn values: counting the
 * indices finds the middle ones in O(n), no sort per resample.
 */
static double resample_median(gsl_rng *rng, const double *sorted, size_t n,
			      unsigned int *count)
{
	size_t i, seen = 0, want_lo = (n - 1) / 2, want_hi = n / 2;
	double lo = NAN;

	memset(count, 0, n * sizeof(*count));
	for (i = 0; i < n; i++)
		count[gsl_rng_uniform_int(rng, n)]++;
	for (i = 0; i < n; i++) {
		if (!count[i])
			continue;
		if (isnan(lo) && seen + count[i] > want_lo)
			lo = sorted[i];
		seen += count[i];
		if (seen > want_hi)
			return (lo + sorted[i]) / 2;
	}
	return lo;
}

/* The @p quantile of sorted @v, interpolated (R's type 7). */
static double quantile(const double *v, size_t n, double p)
{
	double h = (n - 1) * p;
	size_t i = (size_t)floor(h);

	if (i + 1 >= n)
		return v[n - 1];
	return v[i] + (h - i) * (v[i + 1] - v[i]);
}

static void bootstrap(const double *x, size_t nx, const double *y, size_t ny,
		      double conf, struct stats_ratio *r)
{
	unsigned int *count = xmalloc((nx > ny ? nx : ny) * sizeof(*count));
	double *ratios = xmalloc(STATS_BOOTSTRAP_B * sizeof(*ratios));
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	size_t b, nr = 0;
	double mx, my;

	gsl_rng_set(rng, STATS_BOOTSTRAP_SEED);
	for (b = 0; b < STATS_BOOTSTRAP_B; b++) {
		mx = resample_median(rng, x, nx, count);
		my = resample_median(rng, y, ny, count);
		if (mx > 0)
			ratios[nr++] = my / mx;
	}
	gsl_rng_free(rng);
	free(count);
	if (nr == STATS_BOOTSTRAP_B) {
		stats__sort(ratios, nr);
		r->lo = quantile(ratios, nr, (1 - conf) / 2);
		r->hi = quantile(ratios, nr, 1 - (1 - conf) / 2);
		r->method = "bootstrap";
	}
	free(ratios);
}

/*
 * Large samples: log(median) is close to normal, and the median's own
 * order-statistic interval gives its spread.
 */
static void delta(const double *x, size_t nx, const double *y, size_t ny,
		  double conf, struct stats_ratio *r)
{
	double lx, hx, levx, ly, hy, levy, sx, sy, z;

	if (stats__median_ci(x, nx, conf, &lx, &hx, &levx) ||
	    stats__median_ci(y, ny, conf, &ly, &hy, &levy) || !(lx > 0) ||
	    !(ly > 0))
		return;
	sx = (log(hx) - log(lx)) / (2 * gsl_cdf_ugaussian_Qinv((1 - levx) / 2));
	sy = (log(hy) - log(ly)) / (2 * gsl_cdf_ugaussian_Qinv((1 - levy) / 2));
	z = gsl_cdf_ugaussian_Qinv((1 - conf) / 2) * sqrt(sx * sx + sy * sy);
	r->lo = r->ratio * exp(-z);
	r->hi = r->ratio * exp(z);
	r->method = "delta";
}

void stats__ratio_ci(const double *x, size_t nx, const double *y, size_t ny,
		     double conf, struct stats_ratio *r)
{
	double mx = stats__median(x, nx), my = stats__median(y, ny);
	size_t min_n = stats__min_n_for_ci(conf);

	memset(r, 0, sizeof(*r));
	r->ratio = mx != 0 ? my / mx : NAN;
	r->lo = r->hi = NAN;
	/* Below the median's own minimum an interval would only mislead. */
	if (nx < min_n || ny < min_n || !(mx > 0) || !(my > 0))
		return;
	if (nx + ny <= STATS_BOOTSTRAP_MAX_N)
		bootstrap(x, nx, y, ny, conf, r);
	else
		delta(x, nx, y, ny, conf, r);
}

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The statistics behind compare, report and regress.
 *
 * Benchmark samples are small (5-30 trials), often skewed and sometimes
 * bimodal, so everything here is distribution-free where it can be: the
 * median with an order-statistic confidence interval, the Mann-Whitney U
 * test, and the Hodges-Lehmann shift (a ratio, on log values) with the
 * interval that inverts that same test, so that an interval and a
 * verdict can never disagree. Means and standard deviations are
 * reported for the coefficient of variation (how noisy a cell is), not
 * for inference. The change-point t-test is the one parametric
 * exception, as in Apache Otava. GSL provides the distribution
 * functions; what no library does (the exact U distribution, the
 * order-statistic interval, the inverted test, E-divisive) is written
 * here. Nothing is random: the same database always gives the same
 * report.
 *
 * Arrays documented as "sorted" must be sorted ascending and hold no
 * NaN; stats__sort() makes them so.
 */
#ifndef IOMMU_BENCH_STATS_STATS_H
#define IOMMU_BENCH_STATS_STATS_H

#include <stdbool.h>
#include <stddef.h>

void stats__sort(double *v, size_t n);
double stats__median(const double *sorted, size_t n);
double stats__mean(const double *v, size_t n);
/* Sample standard deviation (n - 1); 0 for fewer than two values. */
double stats__stddev(const double *v, size_t n, double mean);

/*
 * The distribution-free interval for the median: [x(k), x(n-k+1)] with
 * the largest k such that P(Binomial(n, 1/2) < k) <= (1 - @conf) / 2.
 * Its real coverage, at least @conf, goes to @level. -EDOM when @n is too
 * small for any interval at @conf (n < 6 at 95%): benchstat's rule too.
 */
int stats__median_ci(const double *sorted, size_t n, double conf, double *lo,
		     double *hi, double *level);
/* The smallest n that has a median interval at @conf. */
size_t stats__min_n_for_ci(double conf);

struct stats_summary {
	size_t n;
	double median, mean, stddev;
	double cv; /* stddev / |mean|; NAN when the mean is 0 */
	double min, max;
	double ci_lo, ci_hi; /* NAN when n is too small */
	double ci_level;     /* real coverage of [ci_lo, ci_hi] */
};

/* Describe @v, which this sorts in place. */
void stats__summarize(double *v, size_t n, double conf,
		      struct stats_summary *s);

/* exp(mean(log v)); NAN when @n is 0 or any value is not positive. */
double stats__geomean(const double *v, size_t n);

/* ---- Mann-Whitney U (Wilcoxon rank-sum), two-sided ---- */

struct stats_mw {
	double u;   /* pairs with x > y, ties counted one half */
	double p;   /* two-sided */
	double z;   /* the normal score; 0 when exact */
	bool exact; /* from the exact distribution, not the normal one */
	bool ties;
};

/*
 * Exact when both samples have fewer than 50 values and there are no
 * ties (R's wilcox.test rule); otherwise the normal approximation with
 * the tie correction of the variance and a continuity correction.
 * -EDOM when either sample is empty.
 */
int stats__mann_whitney(const double *x_sorted, size_t nx,
			const double *y_sorted, size_t ny, struct stats_mw *r);
/* P(U <= u) under the null hypothesis, for sizes @m and @n (exact). */
double stats__mw_cdf(size_t m, size_t n, double u);
/*
 * The smallest two-sided p-value samples of these sizes can give,
 * 2 / C(nx + ny, nx): when it exceeds alpha, no difference, however
 * large, can be significant ("need more samples").
 */
double stats__mw_min_p(size_t nx, size_t ny);

/* P(U = u) for u = 0..m*n under the null hypothesis; the caller frees it. */
double *stats__mw_pmf(size_t m, size_t n);

/* ---- the shift between two samples (Hodges-Lehmann) ---- */

struct stats_shift {
	/*
	 * The median of the differences y - x, and the interval of the
	 * shifts the Mann-Whitney test does not reject at alpha (infinite
	 * where no shift, however large, could be rejected). On log values
	 * (every value positive) these are log ratios: exp() of them is
	 * candidate over baseline.
	 */
	double est, lo, hi;
	double level;	    /* the interval's real coverage */
	struct stats_mw mw; /* the test of no shift */
	bool log;
	/* The interval excludes 0 and the test rejects: one verdict. */
	bool significant;
	const char *method; /* "exact" or "normal", as the test */
};

/*
 * Hodges-Lehmann's estimate and the interval got by inverting the same
 * test that gives the p-value (R's wilcox.test(conf.int = TRUE)): exact
 * for fewer than 50 values a side and no ties, else normal with the tie
 * and continuity corrections. -EDOM when either sample is empty.
 */
int stats__shift(const double *x_sorted, size_t nx, const double *y_sorted,
		 size_t ny, double alpha, struct stats_shift *r);
/*
 * The same in the values' own units, never as a ratio: where parts of a
 * whole are compared, their shifts add up and ratios do not.
 */
int stats__shift_abs(const double *x_sorted, size_t nx, const double *y_sorted,
		     size_t ny, double alpha, struct stats_shift *r);

/* ---- two-sample t-tests, two-sided, from summary statistics ---- */
double stats__welch_p(double mean1, double var1, size_t n1, double mean2,
		      double var2, size_t n2);
/*
 * Student's, with the variance pooled: what the change-point detector
 * uses, since a step changes the level, not the noise, and a segment of
 * three nights that happen to agree must not look noiseless.
 */
double stats__student_p(double mean1, double var1, size_t n1, double mean2,
			double var2, size_t n2);

#endif /* IOMMU_BENCH_STATS_STATS_H */

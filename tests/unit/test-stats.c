// SPDX-License-Identifier: GPL-2.0-only
/*
 * The statistics against known answers: published Mann-Whitney critical
 * values, R's documented example, brute-force enumeration of the exact
 * distribution, hand-computed order-statistic intervals and tie-corrected
 * normal scores, and synthetic shifts that must and must not be flagged.
 */
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/stats.h"
#include "tap.h"
#include "util.h"

static int near(double got, double want, double tol)
{
	if (fabs(got - want) <= tol)
		return 1;
	printf("#   got %.12g, want %.12g (tolerance %g)\n", got, want, tol);
	return 0;
}

static void test_describe(void)
{
	double v[] = { 5, 1, 4, 2, 3 };
	double even[] = { 4, 1, 3, 2 };
	double g[] = { 2, 8 }, bad[] = { 2, 0 };
	struct stats_summary s;

	stats__summarize(v, 5, 0.95, &s);
	ok(s.n == 5 && s.median == 3 && s.min == 1 && s.max == 5,
	   "odd n: median 3, min 1, max 5");
	ok(near(s.mean, 3, 1e-12) && near(s.stddev, sqrt(2.5), 1e-12),
	   "mean 3, sample stddev sqrt(2.5)");
	ok(near(s.cv, sqrt(2.5) / 3, 1e-12), "CV is stddev over mean");
	ok(isnan(s.ci_lo) && isnan(s.ci_hi), "n=5 has no 95%% median CI");
	stats__sort(even, 4);
	ok(stats__median(even, 4) == 2.5, "even n: mean of the middle two");
	ok(near(stats__geomean(g, 2), 4, 1e-12), "geomean of 2 and 8 is 4");
	ok(isnan(stats__geomean(bad, 2)), "geomean of a non-positive is NAN");
}

static void test_median_ci(void)
{
	double v[100], lo, hi, level;
	size_t i;

	for (i = 0; i < 100; i++)
		v[i] = i + 1;
	is_int(stats__min_n_for_ci(0.95), 6, "95%% needs n >= 6");
	is_int(stats__min_n_for_ci(0.99), 8, "99%% needs n >= 8");
	ok(stats__median_ci(v, 5, 0.95, &lo, &hi, &level) < 0,
	   "n=5: no 95%% interval");
	ok(!stats__median_ci(v, 6, 0.95, &lo, &hi, &level) && lo == 1 &&
		   hi == 6 && near(level, 1 - 2.0 / 64, 1e-12),
	   "n=6: [x(1), x(6)], coverage 1 - 2/64");
	/* P(B <= 1) = 11/1024 <= 0.025 < P(B <= 2) = 56/1024 */
	ok(!stats__median_ci(v, 10, 0.95, &lo, &hi, &level) && lo == 2 &&
		   hi == 9 && near(level, 1 - 22.0 / 1024, 1e-12),
	   "n=10: [x(2), x(9)], coverage 97.85%%");
	/* The published ranks for n=100 at 95% are 40 and 61. */
	ok(!stats__median_ci(v, 100, 0.95, &lo, &hi, &level) && lo == 40 &&
		   hi == 61 && level >= 0.95 && level < 0.97,
	   "n=100: [x(40), x(61)]");
}

/* All C(m+n, m) placements of ranks: the exact U distribution by force. */
static void brute_pmf(size_t m, size_t n, double *pmf)
{
	size_t N = m + n, mask, total = 0, u, bits, i, below;

	memset(pmf, 0, (m * n + 1) * sizeof(*pmf));
	for (mask = 0; mask < (1UL << N); mask++) {
		if ((size_t)__builtin_popcountl(mask) != m)
			continue;
		/* U counts (x, y) pairs with the x ranked above the y. */
		u = below = 0;
		for (i = 0, bits = mask; i < N; i++, bits >>= 1) {
			if (bits & 1)
				u += below;
			else
				below++;
		}
		pmf[u]++;
		total++;
	}
	for (u = 0; u <= m * n; u++)
		pmf[u] /= total;
}

static void test_mw_exact(void)
{
	/* Two-sided alpha 0.05 critical U for n1 = n2 = 5..20. */
	static const int crit[] = { 2,	5,  8,	13, 17, 23, 30,	 37,
				    45, 55, 64, 75, 87, 99, 113, 127 };
	static const size_t sizes[][2] = { { 5, 5 }, { 4, 7 }, { 3, 9 } };
	double pmf[64], cum, worst;
	struct stats_mw r;
	size_t k, s, u;
	int good = 1;

	for (k = 5; k <= 20; k++) {
		int c = crit[k - 5];

		if (!(2 * stats__mw_cdf(k, k, c) <= 0.05 &&
		      2 * stats__mw_cdf(k, k, c + 1) > 0.05)) {
			printf("#   n1=n2=%zu: critical U is not %d\n", k, c);
			good = 0;
		}
	}
	ok(good, "critical values match the published table, n=5..20");

	for (s = 0; s < 3; s++) {
		size_t m = sizes[s][0], n = sizes[s][1];

		brute_pmf(m, n, pmf);
		worst = 0;
		cum = 0;
		for (u = 0; u <= m * n; u++) {
			cum += pmf[u];
			worst = fmax(worst, fabs(stats__mw_cdf(m, n, u) - cum));
		}
		ok(worst < 1e-12, "exact CDF equals enumeration for %zu+%zu", m,
		   n);
	}

	{
		/* R's ?wilcox.test: Hollander & Wolfe, W = 35. */
		double x[] = { 0.80, 0.83, 1.89, 1.04, 1.45,
			       1.38, 1.91, 1.64, 0.73, 1.46 };
		double y[] = { 1.15, 0.88, 0.90, 0.74, 1.21 };

		stats__sort(x, 10);
		stats__sort(y, 5);
		stats__mann_whitney(x, 10, y, 5, &r);
		ok(r.exact && r.u == 35 && near(r.p, 0.2544122544, 1e-9),
		   "Hollander & Wolfe: U=35, p=0.2544 (R: 0.1272 one-sided)");
	}
	{
		double x[] = { 1, 2, 3, 4, 5 }, y[] = { 6, 7, 8, 9, 10 };

		stats__mann_whitney(x, 5, y, 5, &r);
		ok(r.u == 0 && near(r.p, 2.0 / 252, 1e-12),
		   "complete separation of 5+5: p = 2/252");
		ok(near(stats__mw_min_p(5, 5), 2.0 / 252, 1e-12) &&
			   stats__mw_min_p(3, 3) > 0.05,
		   "smallest reachable p: 2/C(n,k); 3+3 cannot reach 0.05");
	}
}

static void test_mw_normal(void)
{
	/* References from the textbook formulas, computed by hand (python). */
	double x[] = { 1, 2, 2, 3, 3, 3, 4, 5 };
	double y[] = { 3, 4, 4, 5, 5, 6, 7, 7, 8 };
	double a[60], b[60];
	struct stats_mw r;
	size_t i;

	stats__mann_whitney(x, 8, y, 9, &r);
	ok(!r.exact && r.ties && r.u == 7.5,
	   "ties: normal approximation, U=7.5");
	ok(near(r.z, -2.727939278646863, 1e-9) &&
		   near(r.p, 0.006373133838085877, 1e-9),
	   "tie-corrected z and p");
	for (i = 0; i < 60; i++) {
		a[i] = i;
		b[i] = i + 10.5;
	}
	stats__mann_whitney(a, 60, b, 60, &r);
	ok(!r.exact && !r.ties && r.u == 1225 &&
		   near(r.p, 0.0025668879435241797, 1e-9),
	   "60+60 without ties: normal approximation, p=0.00257");
	for (i = 0; i < 8; i++)
		x[i] = 7;
	stats__mann_whitney(x, 8, x, 8, &r);
	ok(r.p == 1, "all values equal: p = 1");
}

static void draw(gsl_rng *rng, double *v, size_t n, double mu, double sd)
{
	size_t i;

	for (i = 0; i < n; i++)
		v[i] = mu + gsl_ran_gaussian(rng, sd);
	stats__sort(v, n);
}

static void test_shifts(void)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	double x[10], y[10];
	struct stats_mw r;
	int flagged = 0, i;

	gsl_rng_set(rng, 42);
	draw(rng, x, 10, 100, 1);
	draw(rng, y, 10, 95, 1);
	stats__mann_whitney(x, 10, y, 10, &r);
	ok(r.p < 0.001, "a 5%% shift with 1%% noise, n=10: p < 0.001 (%g)",
	   r.p);
	draw(rng, y, 10, 99.5, 1);
	stats__mann_whitney(x, 10, y, 10, &r);
	ok(r.p > 0.05, "a 0.5%% shift with 1%% noise, n=10: not flagged (%g)",
	   r.p);
	/* Pure noise: the test must reject about alpha of the time. */
	for (i = 0; i < 400; i++) {
		draw(rng, x, 10, 100, 1);
		draw(rng, y, 10, 100, 1);
		stats__mann_whitney(x, 10, y, 10, &r);
		flagged += r.p < 0.05;
	}
	ok(flagged >= 5 && flagged <= 30,
	   "noise only: %d of 400 flagged at alpha 0.05 (expect ~20)", flagged);
	gsl_rng_free(rng);
}

static void test_ratio(void)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	double x[10], y[10], *bx, *by;
	struct stats_ratio r, again;
	size_t n = 150;

	gsl_rng_set(rng, 7);
	draw(rng, x, 10, 14.9, 0.3);
	draw(rng, y, 10, 39.8, 0.6);
	stats__ratio_ci(x, 10, y, 10, 0.95, &r);
	ok(r.method && !strcmp(r.method, "bootstrap"), "n=10: bootstrap");
	ok(near(r.ratio, stats__median(y, 10) / stats__median(x, 10), 1e-12),
	   "ratio of the medians (%.3f)", r.ratio);
	ok(r.lo < r.ratio && r.ratio < r.hi && r.lo > 2.5 && r.hi < 2.85,
	   "interval [%.3f, %.3f] holds the ratio and 2.67", r.lo, r.hi);
	stats__ratio_ci(x, 10, y, 10, 0.95, &again);
	ok(again.lo == r.lo && again.hi == r.hi,
	   "fixed seed: the same interval every time");
	stats__ratio_ci(x, 5, y, 5, 0.95, &r);
	ok(isnan(r.lo) && !r.method, "n=5: no interval");

	bx = xmalloc(n * sizeof(*bx));
	by = xmalloc(n * sizeof(*by));
	draw(rng, bx, n, 100, 2);
	draw(rng, by, n, 105, 2);
	stats__ratio_ci(bx, n, by, n, 0.95, &r);
	ok(r.method && !strcmp(r.method, "delta") && r.lo < 1.05 &&
		   r.hi > 1.05 && r.hi - r.lo < 0.02,
	   "n=150+150: delta method, an interval around 1.05 [%.4f, %.4f]",
	   r.lo, r.hi);
	free(bx);
	free(by);
	gsl_rng_free(rng);
}

static void test_welch(void)
{
	double a[] = { 10.1, 10.3, 9.8, 10.0, 10.2 };
	double b[] = { 10.9, 11.2, 10.7, 11.0, 11.4, 10.8 };
	double ma = stats__mean(a, 5), mb = stats__mean(b, 6);
	double sa = stats__stddev(a, 5, ma), sb = stats__stddev(b, 6, mb);

	/* t = 6.7217, df = 8.9118: p by numeric integration (python). */
	ok(near(stats__welch_p(ma, sa * sa, 5, mb, sb * sb, 6), 9.047816e-05,
		1e-9),
	   "Welch: p = 9.05e-05");
	ok(stats__welch_p(1, 0, 4, 1, 0, 4) == 1 &&
		   stats__welch_p(1, 0, 4, 2, 0, 4) == 0,
	   "zero variance: p is 1 for equal means, 0 otherwise");
}

int main(void)
{
	test_describe();
	test_median_ci();
	test_mw_exact();
	test_mw_normal();
	test_shifts();
	test_ratio();
	test_welch();
	return tap_done();
}

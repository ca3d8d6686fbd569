// SPDX-License-Identifier: GPL-2.0-only
/*
 * The statistics against known answers: published Mann-Whitney critical
 * values, R's documented example, brute-force enumeration of the exact
 * distribution, hand-computed order-statistic intervals and tie-corrected
 * normal scores, and synthetic shifts that must and must not be flagged;
 * and the width [run] until predicts, against hand-computed values.
 */
#include <errno.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/adaptive.h"
#include "stats/spread.h"
#include "stats/stats.h"
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

/*
 * Fixtures: R 4.2.2's wilcox.test(y, x, conf.int = TRUE) (on log(y),
 * log(x) where every value is positive), its estimate, interval and p
 * written down by hand. Where R uses the normal approximation it finds
 * the interval's ends and the estimate with uniroot(), to about 1e-4 of
 * the range; ours are the exact ends of the set of shifts the test does
 * not reject, so those are compared to that tolerance.
 */
struct shift_fixture {
	const char *name;
	const double *x, *y;
	size_t nx, ny;
	double alpha, est, lo, hi, p;
	bool log;
	const char *method;
};

static const double hw_x[] = { 0.80, 0.83, 1.89, 1.04, 1.45,
			       1.38, 1.91, 1.64, 0.73, 1.46 };
static const double hw_y[] = { 1.15, 0.88, 0.90, 0.74, 1.21 };
static const double seed_x[] = { 14.2, 15.1, 14.9, 14.7, 15.3, 14.8 };
static const double seed_y[] = { 39.1, 40.2, 39.8, 38.9, 40.5, 39.6 };
static const double tie_x[] = { 3.1, 3.4, 3.4, 3.6, 3.7, 3.7, 3.9, 4.0 };
static const double tie_y[] = { 3.6, 3.7, 3.9, 3.9, 4.1, 4.2, 4.2, 4.5, 4.6 };
static const double zero_x[] = { 0, 0, 1, 2, 0, 1, 3 };
static const double zero_y[] = { 2, 4, 3, 5, 1, 6, 4 };
/* set.seed(3); round(rlnorm(60, 0, 0.2), 6), then (60, 0.05, 0.2) */
static const double n60_x[] = {
	0.824988, 0.943173, 1.05312,  0.794195, 1.039933, 1.006043, 1.01723,
	1.250223, 0.783667, 1.288494, 0.861607, 0.797524, 0.866519, 1.051829,
	1.030876, 0.940324, 0.82646,  0.878404, 1.277446, 1.040772, 0.890745,
	0.828234, 0.960073, 0.716559, 0.907655, 0.862246, 1.261275, 1.224354,
	0.985688, 0.796637, 1.197367, 1.185725, 1.156668, 1.158702, 0.931997,
	1.151543, 1.297023, 1.00768,  0.82213,	1.172048, 1.170348, 0.939796,
	1.404634, 0.853066, 1.072173, 0.635667, 0.96808,  1.253793, 0.912918,
	0.835409, 1.156465, 0.850536, 1.054869, 0.706485, 0.754059, 0.913282,
	0.81294,  1.31315,  1.201405, 0.85468,
};
static const double n60_y[] = {
	1.179044, 1.263189, 1.106561, 1.12794,	1.329586, 0.95488,  0.966798,
	1.27255,  0.812368, 1.091158, 1.044705, 1.154214, 1.290255, 1.109014,
	1.101161, 1.220815, 1.340997, 1.135044, 0.862767, 1.018804, 1.487515,
	0.979748, 1.206505, 1.342967, 1.232272, 1.049926, 1.098373, 0.880476,
	1.147921, 0.880489, 0.886243, 0.862432, 0.922954, 1.297954, 0.972218,
	1.036534, 0.958477, 1.171379, 1.266588, 1.008178, 1.189425, 0.969461,
	1.297735, 1.185846, 1.288517, 1.187243, 1.095649, 0.719251, 0.91712,
	1.157506, 0.958289, 0.994069, 0.967792, 1.453179, 0.910091, 0.960195,
	1.054273, 1.09763,  1.091741, 1.04078,
};

#define FX(a, b) a, b, ARRAY_SIZE(a), ARRAY_SIZE(b)

static const struct shift_fixture shift_fixtures[] = {
	/* ?wilcox.test's two-sample example (Hollander & Wolfe, p. 69) */
	{ "H&W p. 69", FX(hw_x, hw_y), 0.05, -0.271375187786, -0.672668649216,
	  0.151399646455, 0.254412254412, true, "exact" },
	{ "the seed's 14.9 vs 39.8", FX(seed_x, seed_y), 0.05, 0.980838975572,
	  0.956014083892, 1.01288050238, 0.0021645021645, true, "exact" },
	{ "ties", FX(tie_x, tie_y), 0.05, 0.126773374331, 0.0487335533625,
	  0.21132854457, 0.0154350825609, true, "normal" },
	{ "ties at 90%", FX(tie_x, tie_y), 0.10, 0.126773374331,
	  0.0526102369003, 0.211267135024, 0.0154350825609, true, "normal" },
	{ "zeros: a shift, not a ratio", FX(zero_x, zero_y), 0.05,
	  2.99996067935, 0.999970968361, 4.00003300636, 0.0139860998847, false,
	  "normal" },
	{ "60 + 60", FX(n60_x, n60_y), 0.05, 0.10254612137, 0.035419718748,
	  0.164417926537, 0.0021943726422, true, "normal" },
};

static void test_shift_fixtures(void)
{
	const struct shift_fixture *f;
	struct stats_shift r;
	double *x, *y, tol;

	for (f = shift_fixtures;
	     f < shift_fixtures + ARRAY_SIZE(shift_fixtures); f++) {
		x = xmalloc(f->nx * sizeof(*x));
		y = xmalloc(f->ny * sizeof(*y));
		memcpy(x, f->x, f->nx * sizeof(*x));
		memcpy(y, f->y, f->ny * sizeof(*y));
		stats__sort(x, f->nx);
		stats__sort(y, f->ny);
		stats__shift(x, f->nx, y, f->ny, f->alpha, &r);
		tol = strcmp(f->method, "exact") ? 1e-3 * (f->hi - f->lo) :
						   1e-9;
		ok(r.method && !strcmp(r.method, f->method) && r.log == f->log,
		   "%s: %s test%s", f->name, f->method,
		   f->log ? ", on log values" : "");
		ok(near(r.mw.p, f->p, 1e-9), "%s: p as R's", f->name);
		ok(near(r.est, f->est, tol) && near(r.lo, f->lo, tol) &&
			   near(r.hi, f->hi, tol),
		   "%s: estimate and interval as R's", f->name);
		is_int(r.significant, f->p < f->alpha,
		       "%s: significant exactly when p < alpha", f->name);
		free(x);
		free(y);
	}
}

/*
 * The property the verdicts rest on, over random samples of every kind
 * the tool meets (continuous, rounded into ties, with zeros, exact and
 * normal sizes): significant <=> the interval excludes 0 <=> p < alpha.
 */
static void test_shift_property(void)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	double x[80], y[80], shift, alpha;
	int i, bad = 0, sig = 0, tried = 0;
	struct stats_shift r;
	size_t nx, ny, k;

	gsl_rng_set(rng, 13);
	for (i = 0; i < 2000; i++) {
		nx = 2 + gsl_rng_uniform_int(rng, 70);
		ny = 2 + gsl_rng_uniform_int(rng, 70);
		shift = gsl_rng_uniform(rng) * 0.4;
		alpha = i % 3 ? 0.05 : 0.01;
		for (k = 0; k < nx; k++)
			x[k] = gsl_ran_lognormal(rng, 0, 0.2);
		for (k = 0; k < ny; k++)
			y[k] = gsl_ran_lognormal(rng, shift, 0.2);
		/* A third rounded (ties), a sixth with zeros. */
		for (k = 0; i % 3 == 1 && k < nx; k++)
			x[k] = round(x[k] * 10) / 10 - (i % 6 == 1 ? 0.5 : 0);
		for (k = 0; i % 3 == 1 && k < ny; k++)
			y[k] = round(y[k] * 10) / 10 - (i % 6 == 1 ? 0.5 : 0);
		stats__sort(x, nx);
		stats__sort(y, ny);
		stats__shift(x, nx, y, ny, alpha, &r);
		tried++;
		sig += r.significant;
		if (r.significant != (r.lo > 0 || r.hi < 0) ||
		    r.significant != (r.mw.p < alpha) ||
		    !(r.lo <= r.est && r.est <= r.hi)) {
			if (bad++ < 5)
				tap_diag("n=%zu+%zu alpha %g: est %g [%g, %g] "
					 "p %g significant %d",
					 nx, ny, alpha, r.est, r.lo, r.hi,
					 r.mw.p, r.significant);
		}
	}
	is_int(bad, 0,
	       "%d random comparisons: significant <=> interval excludes 0 "
	       "<=> p < alpha, the estimate inside",
	       tried);
	ok(sig > tried / 4 && sig < tried,
	   "and both verdicts occur (%d significant)", sig);
	gsl_rng_free(rng);
}

static void test_shift_edges(void)
{
	double a[] = { 1, 2, 3 }, b[] = { 10, 20, 30 }, same[] = { 5, 5, 5 };
	struct stats_shift r;

	stats__shift(a, 3, b, 3, 0.05, &r);
	ok(isinf(r.lo) && isinf(r.hi) && !r.significant,
	   "3+3, complete separation: no interval at 5%%, no verdict");
	stats__shift(same, 3, same, 3, 0.05, &r);
	ok(r.est == 0 && !r.significant, "all values equal: no shift");
	ok(stats__shift(a, 0, b, 3, 0.05, &r) == -EDOM, "an empty side: -EDOM");
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

/* Worked by hand (python): 1.96 sigma sqrt((1/m + 1/n) pi / 3), as a ratio. */
static void test_adaptive(void)
{
	double lo = exp(-0.1), hi = exp(0.1), x[] = { lo, hi },
	       zero[] = { 0, 1 };
	double a[4], b[4], big[40];
	int i;

	/* logs -0.1, 0.1 twice: halves without spread, so the pool's 0.1155. */
	ok(near(adaptive__width_pct(x, 2, x, 2), 58.913964, 1e-4),
	   "until: 2 + 2 values at +-10%%: a 58.9%% wide interval");
	/* x around 1, y around 2, +-1%: a change, not noise, splits them. */
	for (i = 0; i < 4; i++) {
		a[i] = exp(i % 2 ? 0.01 : -0.01);
		b[i] = 2 * a[i];
	}
	ok(near(adaptive__width_pct(a, 4, b, 4), 3.329495, 1e-4),
	   "until: a 2x change is not noise: the halves' 1%% spread, 3.3%%");
	for (i = 0; i < 40; i++)
		big[i] = i % 2 ? hi : lo;
	ok(adaptive__width_pct(big, 20, big + 20, 20) <
		   adaptive__width_pct(x, 2, x, 2) / 3,
	   "until: 20 a side, the same noise: much narrower");
	ok(isinf(adaptive__width_pct(zero, 2, x, 2)) &&
		   isinf(adaptive__width_pct(x, 1, x, 2)),
	   "until: a value at 0, or one value a side: no width");
}

/* Two boots of two trials each, and a trial whose boot is not known. */
static void test_spread(void)
{
	struct stats_obs o[] = {
		{ 2, 19 }, { 1, 9 }, { 2, 21 }, { 1, 11 }, { 0, 15 }
	};
	struct stats_obs one[] = { { 7, 4 }, { 7, 6 }, { 8, 5 } };
	double v[] = { NAN, 3, 1, NAN, 2 };
	struct stats_spread sp;

	stats__spread(o, 5, &sp);
	ok(sp.n == 5 && sp.groups == 2 && sp.groups_multi == 2 &&
		   near(sp.mean, 15, 1e-12),
	   "spread: 5 values, 2 boots of two, mean 15");
	ok(near(sp.cv, sqrt(104.0 / 4) / 15, 1e-12),
	   "spread: the CV of every value, unknown boot included");
	ok(near(sp.cv_within, sqrt(4.0 / 2) / 15, 1e-12),
	   "spread: within boots, pooled over their degrees of freedom");
	ok(near(sp.cv_between, sqrt(50.0) / 15, 1e-12),
	   "spread: between boots, the CV of their means");
	stats__spread(one, 3, &sp);
	ok(sp.groups == 2 && sp.groups_multi == 1 &&
		   near(sp.cv_within, sqrt(2.0) / 5, 1e-12),
	   "spread: a boot of one trial has no spread of its own");
	stats__spread(one, 2, &sp);
	ok(sp.groups == 1 && isnan(sp.cv_between),
	   "spread: one boot, no between-boot CV");
	ok(near(stats__median_of_numbers(v, 5), 2, 1e-12) &&
		   isnan(stats__median_of_numbers(v, 0)),
	   "median of the numbers, NANs left out");
}

int main(void)
{
	test_describe();
	test_median_ci();
	test_mw_exact();
	test_mw_normal();
	test_shifts();
	test_shift_fixtures();
	test_shift_property();
	test_shift_edges();
	test_welch();
	test_adaptive();
	test_spread();
	return tap_done();
}

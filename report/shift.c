// SPDX-License-Identifier: GPL-2.0-only
/*
 * The Hodges-Lehmann estimate of the shift between two samples and its
 * confidence interval, by inverting the Mann-Whitney test (Hollander &
 * Wolfe, ch. 4; R's wilcox.test(conf.int = TRUE)). The interval is the
 * set of shifts d for which the test of (x, y - d) does not reject, so
 * it excludes 0 exactly when the test of (x, y) rejects: the estimate,
 * the interval and the verdict cannot contradict one another.
 *
 * The estimate is the median of the m * n differences y_j - x_i; they
 * are never stored: the k-th smallest is found by bisecting on the
 * value, counting the differences below it in O(m + n). On log values
 * the shift is a log ratio.
 */
#include <errno.h>
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "util.h"

/* Below this many values per sample and without ties, U is exact. */
#define SHIFT_EXACT_MAX 50

/* A total order of doubles as unsigned integers (no NaN here). */
static uint64_t key_of(double d)
{
	uint64_t u;

	memcpy(&u, &d, sizeof(u));
	return u >> 63 ? ~u : u | (1ull << 63);
}

static double value_of(uint64_t k)
{
	uint64_t u = k >> 63 ? k & ~(1ull << 63) : ~k;
	double d;

	memcpy(&d, &u, sizeof(d));
	return d;
}

/* #{(i, j): y[j] - x[i] <= t} (or < t), both sorted ascending. */
static uint64_t count_below(const double *x, size_t m, const double *y,
			    size_t n, double t, bool or_equal)
{
	uint64_t c = 0;
	size_t i, j = 0;

	/* As x[i] grows, more y[j] - x[i] fall below t. */
	for (i = 0; i < m; i++) {
		while (j < n && (or_equal ? y[j] - x[i] <= t : y[j] - x[i] < t))
			j++;
		c += j;
	}
	return c;
}

static uint64_t count_le(const double *x, size_t m, const double *y, size_t n,
			 double t)
{
	return count_below(x, m, y, n, t, true);
}

/* The @k-th smallest (1-based) of the differences y[j] - x[i]. */
static double kth_diff(const double *x, size_t m, const double *y, size_t n,
		       uint64_t k)
{
	uint64_t lo = key_of(y[0] - x[m - 1]), hi = key_of(y[n - 1] - x[0]);

	/* The smallest t with at least k differences at or below it. */
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (count_le(x, m, y, n, value_of(mid)) >= k)
			hi = mid;
		else
			lo = mid + 1;
	}
	return value_of(lo);
}

static double median_diff(const double *x, size_t m, const double *y, size_t n)
{
	uint64_t mn = (uint64_t)m * n;

	if (mn % 2)
		return kth_diff(x, m, y, n, mn / 2 + 1);
	return (kth_diff(x, m, y, n, mn / 2) +
		kth_diff(x, m, y, n, mn / 2 + 1)) /
	       2;
}

static bool has_ties(const double *x, size_t m, const double *y, size_t n)
{
	size_t i = 0, j = 0;
	double last = NAN;

	/* Merged in order: a tie is two equal neighbours. */
	while (i < m || j < n) {
		double v = j >= n || (i < m && x[i] <= y[j]) ? x[i++] : y[j++];

		if (v == last)
			return true;
		last = v;
	}
	return false;
}

static double ties3(size_t t)
{
	return (double)t * t * t - (double)t;
}

/*
 * sum(t^3 - t) over the groups of equal values of x and y - d together.
 * y[j] - d is never formed: against x[i] it is y[j] - x[i] against d,
 * the very differences the interval is made of, so that a tie across
 * the samples is exactly a difference equal to d.
 */
static double tie_term(const double *x, size_t m, const double *y, size_t n,
		       double d)
{
	size_t i = 0, j = 0, a, b;
	double t = 0, v;
	int c;

	while (i < m || j < n) {
		c = i >= m	    ? -1 :
		    j >= n	    ? 1 :
		    y[j] - x[i] < d ? -1 :
		    y[j] - x[i] > d ? 1 :
				      0;
		a = b = 0;
		if (c >= 0)
			for (v = x[i]; i < m && x[i] == v; i++)
				a++;
		if (c <= 0)
			for (v = y[j]; j < n && y[j] == v; j++)
				b++;
		t += ties3(a + b);
	}
	return t;
}

/*
 * p of the test of (x, y - d): the normal approximation with the tie
 * correction and a continuity correction, as stats__mann_whitney() and
 * R compute it.
 */
static double normal_p(const double *x, size_t m, const double *y, size_t n,
		       double d)
{
	double mn = (double)m * n, N = (double)(m + n), le, lt, u, dz, sigma2;

	le = (double)count_below(x, m, y, n, d, true);
	lt = (double)count_below(x, m, y, n, d, false);
	/* Pairs where y - d beats x, ties a half. */
	u = (mn - le) + (le - lt) / 2;
	sigma2 = mn / 12 * ((N + 1) - tie_term(x, m, y, n, d) / (N * (N - 1)));
	if (sigma2 <= 0)
		return 1; /* every value equal: no evidence of anything */
	dz = u - mn / 2;
	dz -= dz > 0 ? 0.5 : dz < 0 ? -0.5 : 0;
	return fmin(1, 2 * gsl_cdf_ugaussian_Q(fabs(dz) / sqrt(sigma2)));
}

/*
 * The bound of the acceptance set {d: p(d) >= alpha} on one side of
 * @inside (accepted), by bisection on the value between @inside and the
 * extreme difference @outside, taken one step further (rejected, or
 * accepted: then the interval is unbounded on that side).
 */
static double normal_bound(const double *x, size_t m, const double *y, size_t n,
			   double alpha, double inside, double outside,
			   bool upper)
{
	uint64_t in = key_of(inside), out;
	double beyond = upper ? nextafter(outside, INFINITY) :
				nextafter(outside, -INFINITY);

	if (normal_p(x, m, y, n, beyond) >= alpha)
		return upper ? INFINITY : -INFINITY;
	out = key_of(beyond);
	/* in accepted, out rejected: close in on the last accepted value. */
	while (in + 1 != out && out + 1 != in) {
		uint64_t mid = in < out ? in + (out - in) / 2 :
					  out + (in - out) / 2;

		if (normal_p(x, m, y, n, value_of(mid)) >= alpha)
			in = mid;
		else
			out = mid;
	}
	return value_of(in);
}

static void exact_interval(const double *x, size_t m, const double *y, size_t n,
			   double alpha, struct stats_shift *r)
{
	double *pmf = stats__mw_pmf(m, n), tail = 0;
	uint64_t mn = (uint64_t)m * n;
	long c = -1;

	/* The largest c with 2 P(U <= c) < alpha: reject U <= c, U >= mn-c. */
	while ((uint64_t)(c + 1) <= mn && 2 * (tail + pmf[c + 1]) < alpha) {
		tail += pmf[c + 1];
		c++;
	}
	free(pmf);
	r->level = 1 - 2 * tail;
	if (c < 0) {
		/* No shift, however large, can be rejected at alpha. */
		r->lo = -INFINITY;
		r->hi = INFINITY;
		r->level = 1;
		return;
	}
	r->lo = kth_diff(x, m, y, n, (uint64_t)c + 1);
	r->hi = kth_diff(x, m, y, n, mn - (uint64_t)c);
}

static void shift(const double *x, size_t m, const double *y, size_t n,
		  double alpha, struct stats_shift *r)
{
	r->est = median_diff(x, m, y, n);
	stats__mann_whitney(x, m, y, n, &r->mw);
	if (!has_ties(x, m, y, n) && m < SHIFT_EXACT_MAX &&
	    n < SHIFT_EXACT_MAX) {
		r->method = "exact";
		exact_interval(x, m, y, n, alpha, r);
	} else {
		r->method = "normal";
		r->level = 1 - alpha;
		r->lo = normal_bound(x, m, y, n, alpha, r->est, y[0] - x[m - 1],
				     false);
		r->hi = normal_bound(x, m, y, n, alpha, r->est, y[n - 1] - x[0],
				     true);
	}
	/*
	 * Both say the same by construction; where values tie exactly at
	 * no change, the test is the word: a verdict needs both.
	 */
	r->significant = r->mw.p < alpha && (r->lo > 0 || r->hi < 0);
}

int stats__shift(const double *x_sorted, size_t nx, const double *y_sorted,
		 size_t ny, double alpha, struct stats_shift *r)
{
	double *lx, *ly;
	size_t i;

	memset(r, 0, sizeof(*r));
	r->est = r->lo = r->hi = r->mw.p = NAN;
	if (!nx || !ny)
		return -EDOM;
	r->log = x_sorted[0] > 0 && y_sorted[0] > 0;
	if (!r->log) {
		shift(x_sorted, nx, y_sorted, ny, alpha, r);
		return 0;
	}
	/* log keeps the order: still sorted. */
	lx = xmalloc(nx * sizeof(*lx));
	ly = xmalloc(ny * sizeof(*ly));
	for (i = 0; i < nx; i++)
		lx[i] = log(x_sorted[i]);
	for (i = 0; i < ny; i++)
		ly[i] = log(y_sorted[i]);
	shift(lx, nx, ly, ny, alpha, r);
	free(lx);
	free(ly);
	return 0;
}

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
 * value, counting the differences below it in O(m + n), each end moved
 * onto the nearest difference. On log values the shift is a log ratio.
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

/* The two samples, sorted ascending, and what stays the same between d. */
struct shift_ctx {
	const double *x, *y;
	size_t m, n;
	/* sum(t^3 - t) over the runs of equal values within x and within y */
	double ties_within;
};

/*
 * Where @t falls among the m * n differences y[j] - x[i]: how many are
 * at or below it and below it, and its neighbours, the largest at or
 * below it and the smallest above (-inf, inf: none). One merge pass:
 * as x[i] grows, the boundary j only moves right.
 */
struct diffs_at {
	uint64_t le, lt;
	double below, above;
};

static void diffs_at(const struct shift_ctx *s, double t, struct diffs_at *r)
{
	const double *x = s->x, *y = s->y;
	size_t i, j = 0, k = 0, n = s->n;
	double d;

	r->le = r->lt = 0;
	r->below = -INFINITY;
	r->above = INFINITY;
	for (i = 0; i < s->m; i++) {
		while (j < n && y[j] - x[i] <= t)
			j++;
		while (k < j && y[k] - x[i] < t)
			k++;
		r->le += j;
		r->lt += k;
		if (j && (d = y[j - 1] - x[i]) > r->below)
			r->below = d;
		if (j < n && (d = y[j] - x[i]) < r->above)
			r->above = d;
	}
}

static uint64_t key_mid(double a, double b)
{
	uint64_t ka = key_of(a), kb = key_of(b);

	return ka < kb ? ka + (kb - ka) / 2 : kb + (ka - kb) / 2;
}

/*
 * The @k-th smallest (1-based) of the differences. Each pass halves the
 * values between two differences known to bracket it, then moves both
 * ends onto differences: about log2 of the differences between them
 * passes rather than the 64 of a bisection on every double.
 */
static double kth_diff(const struct shift_ctx *s, uint64_t k)
{
	double lo = s->y[0] - s->x[s->m - 1], hi = s->y[s->n - 1] - s->x[0];
	struct diffs_at at;

	while (lo < hi) {
		diffs_at(s, value_of(key_mid(lo, hi)), &at);
		if (at.le >= k)
			hi = at.below;
		else
			lo = at.above;
	}
	return lo;
}

static double median_diff(const struct shift_ctx *s)
{
	uint64_t mn = (uint64_t)s->m * s->n;
	struct diffs_at at;
	double lower;

	if (mn % 2)
		return kth_diff(s, mn / 2 + 1);
	/* The next one up is the same value or the next difference. */
	lower = kth_diff(s, mn / 2);
	diffs_at(s, lower, &at);
	return (lower + (at.le >= mn / 2 + 1 ? lower : at.above)) / 2;
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

static double runs_ties(const double *v, size_t n)
{
	size_t i, j;
	double t = 0;

	for (i = 0; i < n; i = j) {
		for (j = i; j < n && v[j] == v[i]; j++)
			;
		t += ties3(j - i);
	}
	return t;
}

/*
 * sum(t^3 - t) over the groups of equal values of x and y - d together.
 * y[j] - d is never formed: against x[i] it is y[j] - x[i] against d,
 * the very differences the interval is made of, so that a tie across
 * the samples is exactly a difference equal to d. Where no difference
 * equals d, the groups are those within each sample.
 */
static double tie_term(const struct shift_ctx *s, double d,
		       const struct diffs_at *at)
{
	const double *x = s->x, *y = s->y;
	size_t i = 0, j = 0, a, b, m = s->m, n = s->n;
	double t = 0, v;
	int c;

	if (at->le == at->lt)
		return s->ties_within;
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
 * R compute it; @at is where d falls among the differences.
 */
static double normal_p(const struct shift_ctx *s, double d, struct diffs_at *at)
{
	double mn = (double)s->m * s->n, N = (double)(s->m + s->n), le, lt;
	double u, dz, sigma2;

	diffs_at(s, d, at);
	le = (double)at->le;
	lt = (double)at->lt;
	/* Pairs where y - d beats x, ties a half. */
	u = (mn - le) + (le - lt) / 2;
	sigma2 = mn / 12 * ((N + 1) - tie_term(s, d, at) / (N * (N - 1)));
	if (sigma2 <= 0)
		return 1; /* every value equal: no evidence of anything */
	dz = u - mn / 2;
	dz -= dz > 0 ? 0.5 : dz < 0 ? -0.5 : 0;
	return fmin(1, 2 * gsl_cdf_ugaussian_Q(fabs(dz) / sqrt(sigma2)));
}

/*
 * The bound of the acceptance set {d: p(d) >= alpha} on one side of
 * @inside (accepted), between @inside and the extreme difference
 * @outside taken one step further (rejected, or accepted: then the
 * interval is unbounded on that side). p changes only at a difference:
 * between two neighbouring ones it is that of any value there, so a
 * value that is no difference settles the whole open interval around it
 * and an end moves to that interval's edge; the search ends on the last
 * accepted double next to a rejected one, as a bisection on every
 * double would, in a fraction of its passes.
 */
static double normal_bound(const struct shift_ctx *s, double alpha,
			   double inside, double outside, bool upper)
{
	double beyond = upper ? nextafter(outside, INFINITY) :
				nextafter(outside, -INFINITY);
	double in = inside, out, mid;
	struct diffs_at at;
	uint64_t ki, ko;
	bool ok;

	if (normal_p(s, beyond, &at) >= alpha)
		return upper ? INFINITY : -INFINITY;
	out = beyond;
	for (;;) {
		ki = key_of(in);
		ko = key_of(out);
		if (ki + 1 == ko || ko + 1 == ki)
			break;
		mid = value_of(key_mid(in, out));
		ok = normal_p(s, mid, &at) >= alpha;
		if (at.below == mid) {
			/* A difference: its own p, for itself alone. */
			if (ok)
				in = mid;
			else
				out = mid;
		} else if (ok) {
			in = upper ? nextafter(at.above, -INFINITY) :
				     nextafter(at.below, INFINITY);
		} else {
			out = upper ? nextafter(at.below, INFINITY) :
				      nextafter(at.above, -INFINITY);
		}
	}
	return in;
}

static void exact_interval(const struct shift_ctx *s, double alpha,
			   struct stats_shift *r)
{
	double *pmf = stats__mw_pmf(s->m, s->n), tail = 0;
	uint64_t mn = (uint64_t)s->m * s->n;
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
	r->lo = kth_diff(s, (uint64_t)c + 1);
	r->hi = kth_diff(s, mn - (uint64_t)c);
}

static void shift(const double *x, size_t m, const double *y, size_t n,
		  double alpha, struct stats_shift *r)
{
	struct shift_ctx s = { .x = x, .y = y, .m = m, .n = n };

	r->est = median_diff(&s);
	stats__mann_whitney(x, m, y, n, &r->mw);
	if (!has_ties(x, m, y, n) && m < SHIFT_EXACT_MAX &&
	    n < SHIFT_EXACT_MAX) {
		r->method = "exact";
		exact_interval(&s, alpha, r);
	} else {
		r->method = "normal";
		r->level = 1 - alpha;
		s.ties_within = runs_ties(x, m) + runs_ties(y, n);
		r->lo = normal_bound(&s, alpha, r->est, y[0] - x[m - 1], false);
		r->hi = normal_bound(&s, alpha, r->est, y[n - 1] - x[0], true);
	}
	/*
	 * Both say the same by construction; where values tie exactly at
	 * no change, the test is the word: a verdict needs both.
	 */
	r->significant = r->mw.p < alpha && (r->lo > 0 || r->hi < 0);
}

static int shift_start(size_t nx, size_t ny, struct stats_shift *r)
{
	memset(r, 0, sizeof(*r));
	r->est = r->lo = r->hi = r->mw.p = NAN;
	return nx && ny ? 0 : -EDOM;
}

int stats__shift_abs(const double *x_sorted, size_t nx, const double *y_sorted,
		     size_t ny, double alpha, struct stats_shift *r)
{
	if (shift_start(nx, ny, r))
		return -EDOM;
	shift(x_sorted, nx, y_sorted, ny, alpha, r);
	return 0;
}

int stats__shift(const double *x_sorted, size_t nx, const double *y_sorted,
		 size_t ny, double alpha, struct stats_shift *r)
{
	double *lx, *ly;
	size_t i;

	if (shift_start(nx, ny, r))
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

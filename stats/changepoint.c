// SPDX-License-Identifier: GPL-2.0-only
/* E-divisive means with a t-test, as in Apache Otava. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "changepoint.h"
#include "stats.h"
#include "util.h"

/* The energy statistic of A = m values and B = k values. */
static double energy(double m, double k, double within_a, double within_b,
		     double between)
{
	return m * k / (m + k) *
	       (2 * between / (m * k) - within_a / (m * (m - 1) / 2) -
		within_b / (k * (k - 1) / 2));
}

/*
 * The best split of x[s..e): the t and kappa maximising the energy
 * statistic Q(x[s..t), x[t..kappa)). Searching kappa too (Matteson and
 * James's form) is what finds a regression that later recovered: with
 * B forced to run to the end, the recovered tail dilutes the step.
 *
 * r[k * (n + 1) + j] = sum over i < j of |x_i - x_k| makes every sum
 * an O(1) update, so a segment costs O(n^2) time and memory.
 * Returns t (0 when the segment is too short), kappa in @end.
 */
static size_t best_split(const double *x, size_t s, size_t e, size_t min_size,
			 double *qbest, size_t *end)
{
	size_t n = e - s, w = n + 1, t, j, i, best = 0;
	double *r, *wa, between, wb, q;

	*qbest = -INFINITY;
	if (n < 2 * min_size)
		return 0;
	r = xmalloc(n * w * sizeof(*r));
	wa = xcalloc(w, sizeof(*wa));
	for (i = 0; i < n; i++) {
		r[i * w] = 0;
		for (j = 0; j < n; j++)
			r[i * w + j + 1] =
				r[i * w + j] + fabs(x[s + j] - x[s + i]);
	}
	for (t = 0; t < n; t++)
		wa[t + 1] = wa[t] + r[t * w + t];
	for (t = min_size; t + min_size <= n; t++) {
		between = wb = 0;
		for (j = t; j < n; j++) {
			/* x[j] joins B = [t, j]. */
			between += r[j * w + t];
			wb += r[j * w + j] - r[j * w + t];
			if (j + 1 - t < min_size)
				continue;
			q = energy(t, j + 1 - t, wa[t], wb, between);
			if (q > *qbest) {
				*qbest = q;
				best = s + t;
				*end = s + j + 1;
			}
		}
	}
	free(r);
	free(wa);
	return best;
}

static void segment_stats(const double *x, size_t s, size_t e, double *mean,
			  double *var)
{
	double sd;

	*mean = stats__mean(x + s, e - s);
	sd = stats__stddev(x + s, e - s, *mean);
	*var = sd * sd;
}

/* Fill @cp from the segments [s, cp->index) and [cp->index, e). */
static void test_split(const double *x, size_t s, size_t e,
		       struct changepoint *cp)
{
	double m1, v1, m2, v2;
	size_t t = cp->index;

	segment_stats(x, s, t, &m1, &v1);
	segment_stats(x, t, e, &m2, &v2);
	cp->p = stats__student_p(m1, v1, t - s, m2, v2, e - t);
	cp->mean_before = m1;
	cp->mean_after = m2;
	cp->change = m1 != 0 ? m2 / m1 - 1 : NAN;
}

/*
 * The best of @splits candidate splits is tested as if it were the only
 * one, so its p-value is too small by up to that factor: Bonferroni.
 */
static bool accepted(const struct changepoint *cp, const struct cp_opts *o,
		     size_t splits)
{
	if (cp->p * (splits ? splits : 1) > o->max_p)
		return false;
	return o->min_magnitude <= 0 || fabs(cp->change) >= o->min_magnitude;
}

/* How many splits of [s, e) leave min_size points each side. */
static size_t candidates(size_t s, size_t e, const struct cp_opts *o)
{
	return e - s >= 2 * o->min_size ? e - s - 2 * o->min_size + 1 : 1;
}

static int cmp_index(const void *a, const void *b)
{
	const struct changepoint *x = a, *y = b;

	return (x->index > y->index) - (x->index < y->index);
}

/* Bounds of the segments either side of cps[i]. */
static void neighbours(const struct changepoint *cps, size_t nr, size_t i,
		       size_t n, size_t *s, size_t *e)
{
	*s = i ? cps[i - 1].index : 0;
	*e = i + 1 < nr ? cps[i + 1].index : n;
}

/* What a segment's best split is, kept until the segment changes. */
struct seg_best {
	bool known, final;
	size_t t, kappa;
	double q;
};

/* The end of the segment that starts at @s. */
static size_t next_start(const struct changepoint *cps, size_t nr, size_t s,
			 size_t n)
{
	size_t i;

	for (i = 0; i < nr; i++)
		if (cps[i].index > s)
			return cps[i].index;
	return n;
}

/*
 * Splitting: every segment offers its best split; the strongest is
 * tested; a segment whose best split fails is final. A segment's best
 * split is searched once: only the two halves of a split are new.
 */
static void split_all(const double *x, size_t n, const struct cp_opts *o,
		      struct changepoint **cps, size_t *nr, size_t *alloc)
{
	struct seg_best *seg = xcalloc(n + 1, sizeof(*seg)); /* by start */
	struct changepoint cand = { 0 };
	size_t i, s, e, best;

	for (;;) {
		best = n + 1;
		for (i = 0; i <= *nr; i++) {
			s = i ? (*cps)[i - 1].index : 0;
			e = i < *nr ? (*cps)[i].index : n;
			if (seg[s].final)
				continue;
			if (!seg[s].known) {
				seg[s].t = best_split(x, s, e, o->min_size,
						      &seg[s].q, &seg[s].kappa);
				seg[s].known = true;
				seg[s].final = !seg[s].t;
				if (seg[s].final)
					continue;
			}
			if (best > n || seg[s].q > seg[best].q)
				best = s;
		}
		if (best > n)
			break;
		s = best;
		cand.index = seg[s].t;
		cand.q = seg[s].q;
		/* Tested against what it was found against, [s, kappa). */
		test_split(x, s, seg[s].kappa, &cand);
		e = next_start(*cps, *nr, s, n);
		if (!accepted(&cand, o, candidates(s, e, o))) {
			seg[s].final = true;
			continue;
		}
		ALLOC_GROW(*cps, *nr + 1, *alloc);
		(*cps)[(*nr)++] = cand;
		qsort(*cps, *nr, sizeof(**cps), cmp_index);
		memset(&seg[s], 0, sizeof(seg[s]));
		memset(&seg[cand.index], 0, sizeof(seg[s]));
	}
	free(seg);
}

/*
 * Pruning: a point tested against the whole segment it split may not
 * hold between its final neighbours; drop the weakest, re-test, repeat.
 */
static void prune(const double *x, size_t n, const struct cp_opts *o,
		  struct changepoint *cps, size_t *nr)
{
	size_t i, s, e, worst;

	for (;;) {
		worst = *nr;
		for (i = 0; i < *nr; i++) {
			neighbours(cps, *nr, i, n, &s, &e);
			test_split(x, s, e, &cps[i]);
			if (!accepted(&cps[i], o, candidates(s, e, o)) &&
			    (worst == *nr || cps[i].p > cps[worst].p))
				worst = i;
		}
		if (worst == *nr)
			return;
		memmove(cps + worst, cps + worst + 1,
			(*nr - worst - 1) * sizeof(*cps));
		(*nr)--;
	}
}

int changepoint__detect(const double *x, size_t n, const struct cp_opts *o,
			struct changepoint **out, size_t *nr)
{
	size_t alloc = 0;

	*out = NULL;
	*nr = 0;
	if (o->min_size < 2 || !(o->max_p > 0 && o->max_p <= 1))
		return -EINVAL;
	split_all(x, n, o, out, nr, &alloc);
	prune(x, n, o, *out, nr);
	if (!*nr) {
		free(*out);
		*out = NULL;
	}
	return 0;
}

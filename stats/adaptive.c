// SPDX-License-Identifier: GPL-2.0-only
/*
 * [run] until: whether a run needs another round of repetitions.
 *
 * The rule stops on the precision the comparisons can have, never on
 * their verdicts: repeating until something looks significant finds
 * differences in noise three times as often as alpha says (make bench).
 * And it looks only at each comparison's values pooled, never at which
 * cell each came from. Under no change the ranks of a sample are
 * independent of its order statistics, so a rule that sees only the
 * latter leaves the test its alpha without a correction to carry into
 * compare or regress (nearly: the pools it saw round by round say a
 * little about which values came together; make bench measures it).
 * bench-adaptive: 4.1% to 5.1% false positives at alpha 5%, none above
 * the binomial band of the exact test's own size at the sizes reached,
 * where a rule on the intervals themselves gives 6.6% and repeating
 * until significant 16%.
 *
 * The precision a comparison can have is the Hodges-Lehmann interval's
 * width predicted from the noise: the pooled values' spread, or, where
 * a real change splits the pool in two (its halves far apart against
 * the spread inside them), the halves' own spread.
 */
#include <math.h>
#include <stdlib.h>

#include "adaptive.h"
#include "stats.h"
#include "util.h"

/* Between the halves of one normal sample, 2.65 of their own spread. */
#define ADAPTIVE_SPLIT_GAP 5.0

static double sd(const double *v, size_t n)
{
	return n > 1 ? stats__stddev(v, n, stats__mean(v, n)) : 0;
}

double adaptive__width_pct(const double *x, size_t nx, const double *y,
			   size_t ny)
{
	size_t n = nx + ny, i, h;
	double *v, inside, gap, sigma, half;

	if (nx < 2 || ny < 2)
		return INFINITY;
	v = xmalloc(n * sizeof(*v));
	for (i = 0; i < n; i++) {
		double a = i < nx ? x[i] : y[i - nx];

		if (!(a > 0)) {
			free(v);
			return INFINITY; /* a ratio needs positive values */
		}
		v[i] = log(a);
	}
	stats__sort(v, n);
	h = n / 2;
	inside = sqrt(
		(sd(v, h) * sd(v, h) + sd(v + n - h, h) * sd(v + n - h, h)) /
		2);
	gap = stats__mean(v + n - h, h) - stats__mean(v, h);
	sigma = inside > 0 && gap / inside > ADAPTIVE_SPLIT_GAP ? inside :
								  sd(v, n);
	free(v);
	/* Hodges-Lehmann's efficiency against the mean is 3 / pi. */
	half = 1.959964 * sigma * sqrt((1.0 / nx + 1.0 / ny) * M_PI / 3);
	return (exp(2 * half) - 1) * 100;
}

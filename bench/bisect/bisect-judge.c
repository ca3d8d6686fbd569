// SPDX-License-Identifier: GPL-2.0-only
/*
 * Is a step good or bad? Against the ends measured first, never against
 * a number given beforehand: the ends are this tree's, this config's
 * and this testbed's figures, the only ones the steps are comparable to.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "bench/bisect/bisect.h"
#include "stats/stats.h"
#include "store/store.h"

enum bisect_kind bisect_judge__kind(const char *metric)
{
	size_t n = strlen(metric), k = strlen(STORE_PER_GB_SUFFIX);

	return n > k && !strcmp(metric + n - k, STORE_PER_GB_SUFFIX) ?
		       BISECT_BY_THRESHOLD :
		       BISECT_BY_TEST;
}

unsigned int bisect_judge__min_trials(double alpha)
{
	unsigned int n = 2;

	while (stats__mw_min_p(n, n) >= alpha)
		n++;
	return n;
}

static double mw_p(const double *x, size_t nx, const double *y, size_t ny)
{
	struct stats_mw r;

	return stats__mann_whitney(x, nx, y, ny, &r) ? NAN : r.p;
}

int bisect_judge__ends(enum bisect_kind kind, double *good, size_t ng,
		       double *bad, size_t nb, double threshold_pct,
		       double alpha, struct bisect_ends *e)
{
	double big, apart;

	memset(e, 0, sizeof(*e));
	if (!ng || !nb)
		return -EDOM;
	stats__sort(good, ng);
	stats__sort(bad, nb);
	e->good = stats__median(good, ng);
	e->bad = stats__median(bad, nb);
	e->boundary = e->good + (e->bad - e->good) * threshold_pct / 100;
	e->p = mw_p(good, ng, bad, nb);
	big = fmax(fabs(e->good), fabs(e->bad));
	apart = fabs(e->bad - e->good) >= big * BISECT_MIN_CHANGE_PCT / 100 &&
		big > 0;
	if (kind == BISECT_BY_THRESHOLD)
		/* Every trial of one end beyond every trial of the other. */
		e->differ = apart &&
			    (good[ng - 1] < bad[0] || bad[nb - 1] < good[0]);
	else
		e->differ = e->p < alpha;
	return 0;
}

enum bisect_verdict bisect_judge__step(enum bisect_kind kind,
				       const struct bisect_ends *e,
				       double *good, size_t ng, double *bad,
				       size_t nb, double *step, size_t ns,
				       double alpha, double *p_good,
				       double *p_bad)
{
	double med;
	bool from_good, from_bad;

	*p_good = *p_bad = NAN;
	if (!ns)
		return BISECT_UNKNOWN;
	stats__sort(step, ns);
	med = stats__median(step, ns);
	if (kind == BISECT_BY_THRESHOLD) {
		bool bad_above = e->bad > e->good;

		return (bad_above ? med > e->boundary : med < e->boundary) ?
			       BISECT_BAD :
			       BISECT_GOOD;
	}
	stats__sort(good, ng);
	stats__sort(bad, nb);
	*p_good = mw_p(step, ns, good, ng);
	*p_bad = mw_p(step, ns, bad, nb);
	from_good = *p_good < alpha;
	from_bad = *p_bad < alpha;
	if (from_good && !from_bad)
		return BISECT_BAD;
	if (from_bad && !from_good)
		return BISECT_GOOD;
	return BISECT_UNKNOWN;
}

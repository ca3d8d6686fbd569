// SPDX-License-Identifier: GPL-2.0-only
/*
 * Within and between groups: the within-group CV is pooled over the
 * groups of two or more values (a group of one has no spread of its
 * own), the between-group CV is that of the groups' means.
 */
#include <math.h>
#include <stdlib.h>

#include "spread.h"
#include "stats.h"
#include "util.h"

static int by_group(const void *a, const void *b)
{
	const struct stats_obs *x = a, *y = b;

	return (x->group > y->group) - (x->group < y->group);
}

void stats__spread(struct stats_obs *obs, size_t n, struct stats_spread *c)
{
	double sum = 0, ss = 0, within = 0, *means, m, d;
	size_t i, j, k, dof = 0, nb = 0;

	c->n = n;
	c->groups = c->groups_multi = 0;
	c->cv = c->cv_within = c->cv_between = NAN;
	for (i = 0; i < n; i++)
		sum += obs[i].v;
	c->mean = n ? sum / n : NAN;
	for (i = 0; i < n; i++)
		ss += (obs[i].v - c->mean) * (obs[i].v - c->mean);
	if (n > 1 && c->mean != 0)
		c->cv = sqrt(ss / (n - 1)) / fabs(c->mean);
	qsort(obs, n, sizeof(*obs), by_group);
	means = xcalloc(n + 1, sizeof(*means));
	for (i = 0; i < n; i = j) {
		for (j = i, sum = 0; j < n && obs[j].group == obs[i].group; j++)
			sum += obs[j].v;
		if (!obs[i].group)
			continue; /* groups not known: nothing to split by */
		m = sum / (j - i);
		means[nb++] = m;
		for (k = i; k < j; k++) {
			d = obs[k].v - m;
			within += d * d;
		}
		if (j - i > 1) {
			c->groups_multi++;
			dof += j - i - 1;
		}
	}
	c->groups = nb;
	if (dof && c->mean != 0)
		c->cv_within = sqrt(within / dof) / fabs(c->mean);
	if (nb > 1 && c->mean != 0) {
		m = stats__mean(means, nb);
		c->cv_between = stats__stddev(means, nb, m) / fabs(c->mean);
	}
	free(means);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double stats__median_of_numbers(double *v, size_t n)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		if (!isnan(v[i]))
			v[k++] = v[i];
	if (!k)
		return NAN;
	qsort(v, k, sizeof(*v), cmp_double);
	return stats__median(v, k);
}

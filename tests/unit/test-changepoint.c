// SPDX-License-Identifier: GPL-2.0-only
/*
 * E-divisive change points on synthetic nightly histories: one step, a
 * regression that later recovered (two steps), none in pure noise, and
 * the degenerate cases. Noise comes from a fixed seed, so each history
 * is the same on every run.
 */
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>

#include "stats/changepoint.h"
#include "tap.h"
#include "util.h"

static gsl_rng *rng;

/* @n nightly values around @level with @noise relative spread. */
static void fill(double *x, size_t from, size_t to, double level, double noise)
{
	size_t i;

	for (i = from; i < to; i++)
		x[i] = level * (1 + gsl_ran_gaussian(rng, noise));
}

static size_t detect(const double *x, size_t n, struct changepoint **cps)
{
	struct cp_opts o = CP_OPTS_DEFAULT;
	size_t nr;

	changepoint__detect(x, n, &o, cps, &nr);
	return nr;
}

#define MAX_NIGHTS 64

/*
 * @n nights around 39.8 with 1% noise, the level times @factor on
 * nights [@from, @to): its change points in *@cps, how many.
 */
static size_t step(size_t n, size_t from, size_t to, double factor,
		   struct changepoint **cps)
{
	double x[MAX_NIGHTS];

	fill(x, 0, from, 39.8, 0.01);
	fill(x, from, to, 39.8 * factor, 0.01);
	fill(x, to, n, 39.8, 0.01);
	return detect(x, n, cps);
}

static void test_one_step(void)
{
	struct changepoint *cps;
	size_t nr = step(40, 25, 40, 0.95, &cps);

	is_int(nr, 1, "one 5%% step in 40 nights: one change point");
	if (nr == 1) {
		is_int(cps[0].index, 25, "found where it happened");
		ok(fabs(cps[0].change + 0.05) < 0.01 && cps[0].p < 0.001,
		   "magnitude %.2f%%, p %.2g", 100 * cps[0].change, cps[0].p);
	}
	free(cps);
}

/* A regression that was fixed ten nights later. */
static void test_two_steps(void)
{
	struct changepoint *cps;
	size_t nr = step(60, 30, 40, 0.93, &cps);

	is_int(nr, 2, "down then up: two change points");
	if (nr == 2) {
		ok(cps[0].index == 30 && cps[1].index == 40,
		   "at 30 and 40 (got %zu, %zu)", cps[0].index, cps[1].index);
		ok(cps[0].change < -0.05 && cps[1].change > 0.05,
		   "the first a drop, the second the recovery");
	}
	free(cps);
}

/* Three bad nights in fifty: the shortest a segment may be. */
static void test_short_dip(void)
{
	struct changepoint *cps;
	size_t nr = step(50, 30, 33, 0.9, &cps);

	ok(nr == 2 && cps[0].index == 30 && cps[1].index == 33,
	   "a three-night 10%% dip that recovered: found at 30 and 33");
	free(cps);
}

static void test_none(void)
{
	struct changepoint *cps;
	double x[60];
	int i, false_alarms = 0;

	for (i = 0; i < 20; i++) {
		fill(x, 0, 60, 39.8, 0.02);
		false_alarms += detect(x, 60, &cps) > 0;
		free(cps);
	}
	is_int(false_alarms, 0, "20 histories of pure noise: no change point");
}

static void test_edges(void)
{
	struct cp_opts bad = { .max_p = 0.001, .min_size = 1 };
	struct changepoint *cps;
	double x[8] = { 1, 1, 1, 1, 1, 1, 1, 1 };
	double step[6] = { 1, 1, 1, 2, 2, 2 };
	size_t nr;

	is_int(detect(x, 0, &cps), 0, "an empty history has none");
	is_int(detect(x, 5, &cps), 0, "too short to split: none");
	is_int(detect(x, 8, &cps), 0, "a constant history has none");
	nr = detect(step, 6, &cps);
	ok(nr == 1 && cps[0].index == 3 && cps[0].change == 1,
	   "a noiseless step is found, +100%%");
	free(cps);
	ok(changepoint__detect(x, 8, &bad, &cps, &nr) < 0,
	   "min_size below 2 is refused");
}

int main(void)
{
	rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, 1);
	test_one_step();
	test_two_steps();
	test_short_dip();
	test_none();
	test_edges();
	gsl_rng_free(rng);
	return tap_done();
}

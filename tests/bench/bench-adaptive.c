// SPDX-License-Identifier: GPL-2.0-only
/*
 * The false-positive rate of adaptive repetitions ([run] until), by
 * simulation: cells drawn from one distribution (no change at all),
 * repetitions added a round at a time until stats/adaptive.c finds the
 * comparison precise enough or the cap is hit, then judged as compare
 * judges it, at alpha. The rate must stay inside alpha's binomial 95%
 * band, or below it where the exact test's own size at the sample sizes
 * reached is below alpha (at 6 a side the exact test's size is 4.1%:
 * no rule can do better than the test it stops). For contrast, two rules that must not be used: adding rounds
 * until the comparison is significant, and until its own interval (not
 * the label-blind prediction) is narrow enough. Then what the rule
 * costs and gains against a real change.
 *
 * Figures, not verdicts: make bench prints them, nothing asserts them.
 */
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/adaptive.h"
#include "stats/stats.h"
#include "util.h"

#define SIMS 4000
#define ALPHA 0.05
#define MAX_N 64

enum stop {
	STOP_NEVER,    /* a fixed number of repetitions */
	STOP_ADAPTIVE, /* stats/adaptive.c: the tool's rule */
	STOP_SIGNIFICANT,
	STOP_INTERVAL, /* the interval itself narrow enough */
};

struct rule {
	const char *name;
	unsigned int start, max;
	double width_pct;
	enum stop stop;
	double cv;
	double shift; /* a real change (log ratio); 0: none */
	bool two;     /* two comparisons against one baseline */
};

static void judge(double *x, double *y, size_t n, struct stats_shift *r)
{
	double a[MAX_N], b[MAX_N];

	memcpy(a, x, n * sizeof(*a));
	memcpy(b, y, n * sizeof(*b));
	stats__sort(a, n);
	stats__sort(b, n);
	stats__shift(a, n, b, n, ALPHA, r);
}

static double interval_pct(const struct stats_shift *r)
{
	if (!isfinite(r->lo) || !isfinite(r->hi))
		return INFINITY;
	return (exp(r->hi) - exp(r->lo)) * 100;
}

static bool done(const struct rule *u, double *x, double *y, double *z,
		 size_t n, const struct stats_shift *r)
{
	switch (u->stop) {
	case STOP_NEVER:
		return false;
	case STOP_SIGNIFICANT:
		return r->significant;
	case STOP_INTERVAL:
		return interval_pct(r) <= u->width_pct;
	case STOP_ADAPTIVE:
		break;
	}
	return adaptive__width_pct(x, n, y, n) <= u->width_pct &&
	       (!u->two || adaptive__width_pct(x, n, z, n) <= u->width_pct);
}

static void simulate(gsl_rng *rng, const struct rule *u)
{
	double x[MAX_N], y[MAX_N], z[MAX_N], mean_n = 0, size = 0, rate, band;
	unsigned int s, n, sig = 0, capped = 0;
	struct stats_shift r;
	const char *verdict;

	for (s = 0; s < SIMS; s++) {
		for (n = 0; n < u->max; n++) {
			x[n] = gsl_ran_lognormal(rng, 0, u->cv);
			y[n] = gsl_ran_lognormal(rng, u->shift, u->cv);
			z[n] = gsl_ran_lognormal(rng, u->shift, u->cv);
		}
		for (n = u->start;; n++) {
			judge(x, y, n, &r);
			if (n == u->max || done(u, x, y, z, n, &r))
				break;
		}
		sig += r.significant;
		capped += n == u->max;
		mean_n += n;
		/* What the exact test rejects at this n, whatever the data. */
		size += 1 - r.level;
	}
	rate = (double)sig / SIMS;
	size /= SIMS;
	band = 1.96 * sqrt(size * (1 - size) / SIMS);
	if (u->shift)
		verdict = "";
	else if (rate > ALPHA + 1.96 * sqrt(ALPHA * (1 - ALPHA) / SIMS))
		verdict = "ABOVE alpha";
	else if (rate > size + band)
		verdict = "above its test";
	else
		verdict = "ok";
	printf("%-46s %6.2f%% %6.2f%% %5.1f %5.1f%%  %s\n", u->name, 100 * rate,
	       100 * size, mean_n / SIMS, 100.0 * capped / SIMS, verdict);
}

int main(void)
{
	static const struct rule none[] = {
		{ "fixed 6 a side, CV 10%", 6, 6, 0, STOP_NEVER, 0.10 },
		{ "fixed 20 a side, CV 10%", 20, 20, 0, STOP_NEVER, 0.10 },
		{ "until 15% wide, 6..20, CV 10%", 6, 20, 15, STOP_ADAPTIVE,
		  0.10 },
		{ "until 30% wide, 6..20, CV 30%", 6, 20, 30, STOP_ADAPTIVE,
		  0.30 },
		{ "until 5% wide, 6..20, CV 2%", 6, 20, 5, STOP_ADAPTIVE,
		  0.02 },
		{ "until 10% wide, 10..40, CV 10%", 10, 40, 10, STOP_ADAPTIVE,
		  0.10 },
		{ "until 15% wide, two comparisons, CV 10%", 6, 20, 15,
		  STOP_ADAPTIVE, 0.10, 0, true },
		{ "wrong: until significant, 6..20", 6, 20, 0, STOP_SIGNIFICANT,
		  0.10 },
		{ "wrong: until its interval is 15% wide, 6..20", 6, 20, 15,
		  STOP_INTERVAL, 0.10 },
	};
	static const struct rule real[] = {
		{ "2x, until 15% wide, 6..20, CV 10%", 6, 20, 15, STOP_ADAPTIVE,
		  0.10, 0.6931 },
		{ "+10%, fixed 6 a side, CV 10%", 6, 6, 0, STOP_NEVER, 0.10,
		  0.0953 },
		{ "+10%, until 15% wide, 6..20, CV 10%", 6, 20, 15,
		  STOP_ADAPTIVE, 0.10, 0.0953 },
		{ "+10%, fixed 20 a side, CV 10%", 20, 20, 0, STOP_NEVER, 0.10,
		  0.0953 },
	};
	double band = 1.96 * sqrt(ALPHA * (1 - ALPHA) / SIMS);
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	size_t i;

	gsl_rng_set(rng, 42);
	printf("adaptive repetitions, no change at all: %d simulations each, "
	       "alpha %g, its binomial 95%% band [%.2f%%, %.2f%%]\n",
	       SIMS, ALPHA, 100 * (ALPHA - band), 100 * (ALPHA + band));
	printf("size: what the exact test rejects at the sizes where each "
	       "stopped (below alpha: its discreteness);\nok: not above "
	       "alpha's band nor above the size's own band\n");
	printf("%-46s %7s %7s %5s %6s\n", "rule", "false+", "size", "n",
	       "capped");
	for (i = 0; i < ARRAY_SIZE(none); i++)
		simulate(rng, &none[i]);
	printf("\nwith a real change, lognormal noise\n");
	printf("%-46s %7s %7s %5s %6s\n", "rule", "found", "size", "n",
	       "capped");
	for (i = 0; i < ARRAY_SIZE(real); i++)
		simulate(rng, &real[i]);
	gsl_rng_free(rng);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * The search: a binary search over a linear list of candidates, the
 * one git bisect makes on a first-parent history. Kept apart from the
 * builds and runs so that the order of steps can be tested alone.
 */
#include <errno.h>

#include "bench/bisect/bisect.h"

unsigned int bisect_search__max_steps(size_t n)
{
	unsigned int steps = 0;

	/* ceil(log2(n)): each step halves the range of n candidates. */
	while (n > 1) {
		n = (n + 1) / 2;
		steps++;
	}
	return steps;
}

int bisect_search__next(const struct bisect_search *s, enum bisect_next *what,
			size_t *at, size_t *to)
{
	size_t lo = 0, hi = s->n, i, best = 0, mid2;
	bool have_good = false, any = false;

	if (!s->n)
		return -EINVAL;
	/* hi: the first bad; lo: one past the last good before it. */
	for (i = 0; i < s->n; i++)
		if (s->v[i] == BISECT_BAD) {
			hi = i;
			break;
		}
	if (hi == s->n)
		return -EINVAL; /* the bad end is bad by definition */
	for (i = hi + 1; i < s->n; i++)
		if (s->v[i] == BISECT_GOOD)
			return -EINVAL;
	for (i = 0; i < hi; i++)
		if (s->v[i] == BISECT_GOOD) {
			lo = i + 1;
			have_good = true;
		}
	(void)have_good;
	/* Untested candidates in [lo, hi): the one nearest the middle. */
	mid2 = lo + hi - 1; /* twice the middle of [lo, hi - 1] */
	for (i = lo; i < hi; i++) {
		size_t d, bd;

		if (s->v[i] != BISECT_UNKNOWN)
			continue;
		d = 2 * i > mid2 ? 2 * i - mid2 : mid2 - 2 * i;
		bd = 2 * best > mid2 ? 2 * best - mid2 : mid2 - 2 * best;
		if (!any || d < bd) {
			best = i;
			any = true;
		}
	}
	if (any) {
		*what = BISECT_TEST;
		*at = best;
		return 0;
	}
	/* Nothing untested left: only skipped ones stand before hi. */
	*what = lo == hi ? BISECT_FOUND : BISECT_AMBIGUOUS;
	*at = lo;
	*to = hi;
	if (lo == hi)
		*at = hi;
	return 0;
}

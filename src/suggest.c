// SPDX-License-Identifier: GPL-2.0-only
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "suggest.h"
#include "util.h"

unsigned int suggest__distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	unsigned int *row0, *row1, *row2, *tmp, d;

	/* Three rows suffice: the transposition looks back two. */
	row0 = xcalloc(lb + 1, sizeof(*row0));
	row1 = xcalloc(lb + 1, sizeof(*row1));
	row2 = xcalloc(lb + 1, sizeof(*row2));
	for (j = 0; j <= lb; j++)
		row1[j] = j;
	for (i = 1; i <= la; i++) {
		row2[0] = i;
		for (j = 1; j <= lb; j++) {
			unsigned int cost = a[i - 1] != b[j - 1];
			unsigned int best = row1[j - 1] + cost;

			if (row1[j] + 1 < best)
				best = row1[j] + 1;
			if (row2[j - 1] + 1 < best)
				best = row2[j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && row0[j - 2] + 1 < best)
				best = row0[j - 2] + 1;
			row2[j] = best;
		}
		tmp = row0;
		row0 = row1;
		row1 = row2;
		row2 = tmp;
	}
	d = row1[lb];
	free_all(row0, row1, row2);
	return d;
}

const char *suggest__best_of(const char *word, const void *table, size_t nr,
			     size_t stride, size_t off)
{
	unsigned int best_d = ~0u, limit;
	const char *best = NULL, *cand;
	size_t len = strlen(word), i;

	/*
	 * A third of the word, at least 1 and at most 3 edits; but a word
	 * of one letter is no typo of another letter.
	 */
	limit = len / 3;
	if (limit < 1)
		limit = len > 1;
	if (limit > 3)
		limit = 3;
	for (i = 0; i < nr; i++) {
		unsigned int d;

		cand = *(const char *const *)((const char *)table + i * stride +
					      off);
		if (!cand)
			break;
		d = suggest__distance(word, cand);
		/* A prefix is a likely abbreviation too: "--ver" for "--verbose". */
		if (len >= 3 && !strncmp(word, cand, len))
			d = 1;
		if (d < best_d) {
			best_d = d;
			best = cand;
		}
	}
	return best_d <= limit ? best : NULL;
}

const char *suggest__best(const char *word, const char *const *cands)
{
	return suggest__best_of(word, cands, SIZE_MAX, sizeof(*cands), 0);
}

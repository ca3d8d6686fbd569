/* SPDX-License-Identifier: GPL-2.0-only */
/* "Did you mean" for commands, options and matrix keys. */
#ifndef IOMMU_BENCH_SUGGEST_H
#define IOMMU_BENCH_SUGGEST_H

#include <stddef.h>

/* Damerau-Levenshtein (optimal string alignment) distance. */
unsigned int suggest__distance(const char *a, const char *b);

/*
 * The candidate closest to @word, or NULL when none is close enough to be
 * a plausible typo. @cands is NULL-terminated.
 */
const char *suggest__best(const char *word, const char *const *cands);
/*
 * The same over the names of a table: the const char * at @off in each
 * of its @nr entries of @stride bytes, up to the first NULL. Through
 * SUGGEST_BEST(word, table, nr, field), which finds the two.
 */
const char *suggest__best_of(const char *word, const void *table, size_t nr,
			     size_t stride, size_t off);
#define SUGGEST_BEST(word, table, nr, field)                      \
	suggest__best_of((word), (table), (nr), sizeof(*(table)), \
			 offsetof(__typeof__(*(table)), field))

#endif /* IOMMU_BENCH_SUGGEST_H */

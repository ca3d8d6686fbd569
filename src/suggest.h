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

#endif /* IOMMU_BENCH_SUGGEST_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Debian suite names ("trixie-backports"), for the matrix that names
 * one and the testbed that fetches kernels from it.
 */
#ifndef IOMMU_BENCH_DEBIAN_SUITE_H
#define IOMMU_BENCH_DEBIAN_SUITE_H

#include <stdbool.h>

/* [a-z0-9-], starting with a letter, at most 40 characters. */
bool debian_suite__is_valid(const char *suite);
/* Debian's suites of the main archive, NULL-terminated. */
extern const char *const debian_suites[];
/*
 * The known suite @suite is a likely typo of; NULL: none is close, or
 * @suite is one (a suite newer than this table is left to the archive).
 */
const char *debian_suite__suggest(const char *suite);

/*
 * The URI of Debian's main archive to fetch from: $IOMMU_BENCH_DEBIAN_MIRROR,
 * else the first .../debian URI of this machine's apt sources, else
 * deb.debian.org. 0 and a new string, or -EINVAL and *@err for a bad
 * $IOMMU_BENCH_DEBIAN_MIRROR.
 */
int debian__mirror(char **uri, char **err);

#endif /* IOMMU_BENCH_DEBIAN_SUITE_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The unit tests' fixtures: files under tests/unit/fixtures/, found from
 * $SRCDIR as `make check` sets it (else the current folder).
 */
#ifndef IOMMU_BENCH_TESTS_FIXTURE_H
#define IOMMU_BENCH_TESTS_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>

#include "util.h"

/* fixtures/@dir/@name, whole; the test bails out when it cannot be read. */
static inline char *fixture__read(const char *dir, const char *name)
{
	const char *src = getenv("SRCDIR");
	char *path, *buf = NULL;
	size_t len;

	path = xasprintf("%s/tests/unit/fixtures/%s/%s", src ? src : ".", dir,
			 name);
	if (read_file(path, &buf, &len)) {
		printf("Bail out! cannot read %s\n", path);
		exit(1);
	}
	free(path);
	return buf;
}

#endif /* IOMMU_BENCH_TESTS_FIXTURE_H */

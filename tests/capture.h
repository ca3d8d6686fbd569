/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the code under test prints on stderr (pr_err, pr_warn) between
 * capture__begin() and capture__end(), so a test can check an error
 * message says what it should. Header-only, like tap.h.
 */
#ifndef IOMMU_BENCH_CAPTURE_H
#define IOMMU_BENCH_CAPTURE_H

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "util.h"

static int capture__saved = -1;
static char capture__path[4200];

/* Send stderr to @path (a file in the test's scratch directory). */
static inline void capture__begin(const char *path)
{
	int fd;

	snprintf(capture__path, sizeof(capture__path), "%s", path);
	fd = open(capture__path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	fflush(stderr);
	capture__saved = dup(2);
	dup2(fd, 2);
	close(fd);
}

/* Restore stderr; what was written meanwhile, to free(). */
static inline char *capture__end(void)
{
	char *buf = NULL;
	size_t len;

	fflush(stderr);
	dup2(capture__saved, 2);
	close(capture__saved);
	if (read_file(capture__path, &buf, &len))
		return xstrdup("");
	return buf;
}

#endif /* IOMMU_BENCH_CAPTURE_H */

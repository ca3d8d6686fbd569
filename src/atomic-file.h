/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A file that appears whole or not at all. It is written under a
 * temporary name in the same folder (".tmp-NAME.XXXXXX", which a cache
 * sweep recognises), flushed to disk, then renamed over its final name:
 * a browser on the report, CI on the JUnit file or the next run on a
 * cache entry never reads half of one, and a crash leaves the old file.
 *
 * Every function returns 0 or a negative errno and prints nothing: the
 * caller names the file in its own words.
 */
#ifndef IOMMU_BENCH_ATOMIC_FILE_H
#define IOMMU_BENCH_ATOMIC_FILE_H

#include <stdio.h>
#include <sys/types.h>
#include <sys/uio.h>

struct atomic_file {
	FILE *fp;   /* write here */
	char *path; /* NULL: standard output, written as it goes */
	char *tmp;
};

/* Start @path, to be created with @mode; NULL or "-" is standard output. */
int atomic_file__open(struct atomic_file *af, const char *path, mode_t mode);
/*
 * Flush, sync and put the file in place; the temporary is gone either
 * way. For standard output, a flush and its error.
 */
int atomic_file__commit(struct atomic_file *af);
/* Drop what was written: @path stays as it was. */
void atomic_file__abort(struct atomic_file *af);

/* @iov, all of it, as @path (0644). */
int atomic_file__write(const char *path, const struct iovec *iov, int iovcnt);

#endif /* IOMMU_BENCH_ATOMIC_FILE_H */

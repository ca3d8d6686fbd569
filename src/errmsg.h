/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The words of a failure, for the layers that return them rather than
 * say them (docs/hacking.md): a new string in a char **err the caller
 * frees, and prints, stores or sends on as it sees fit.
 */
#ifndef IOMMU_BENCH_ERRMSG_H
#define IOMMU_BENCH_ERRMSG_H

/*
 * Replace *@err (freeing what it held) with the formatted words and
 * return @ret, so that a failure is one statement: return
 * errmsg__set(err, -EINVAL, ...). A NULL @err drops the words: a caller
 * that only wants the errno.
 */
int errmsg__set(char **err, int ret, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif

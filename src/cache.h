/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The caches on the controller: the testbed's kernels and initramfs
 * images, and kernel builds. Everything is written under a lock into a
 * temporary name beside its final place (CACHE_TMP_PREFIX, swept by the
 * next holder of the lock), then renamed into place. Functions return
 * 0 or a negative errno with the reason in *@err.
 */
#ifndef IOMMU_BENCH_CACHE_H
#define IOMMU_BENCH_CACHE_H

#include <stdbool.h>
#include <sys/uio.h>

#define CACHE_TMP_PREFIX ".tmp-"

/*
 * @sub under $IOMMU_BENCH_CACHE, $XDG_CACHE_HOME/iommu-bench or
 * ~/.cache/iommu-bench (not created). 0 and a new string, or -errno.
 */
int cache__dir(const char *sub, char **out);
int cache__mkdirs(const char *path, char **err);
/*
 * flock() @path (created) exclusively, polled so that a holder that
 * never lets go is an error after @timeout_ms, not a hang; @what names
 * the wait in the one message said while waiting. 0 and *@fd, or -errno.
 */
int cache__lock_file(const char *path, long long timeout_ms, const char *what,
		     int *fd, char **err);
void cache__unlock(int fd);
/* A new empty folder in @dir, to be committed or removed. */
int cache__mkdtemp(const char *dir, char **tmp, char **err);
/* Replace whatever is at @path by the folder @tmp. */
int cache__commit(const char *tmp, const char *path, char **err);
/* Write @iov to @path (0644), all or nothing (atomic-file.h). */
int cache__write(const char *path, const struct iovec *iov, int iovcnt,
		 char **err);
/*
 * What killed builds left in @dir (CACHE_TMP_PREFIX names), and in its
 * folders @depth levels down, removed: for the holder of the lock.
 */
void cache__sweep(const char *dir, int depth);
/* Remove a tree, never following links nor leaving its file system. */
int cache__remove(const char *path);
/* @path exists and is a regular file. */
bool cache__has_file(const char *path);

#endif /* IOMMU_BENCH_CACHE_H */

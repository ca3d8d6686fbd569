// SPDX-License-Identifier: GPL-2.0-only
/*
 * The busybox the initramfs is built around. For a guest of this
 * machine's arch it is the installed /bin/busybox of Debian's
 * busybox-static; for another arch, the same package of that arch,
 * downloaded into the cache's userland/DEBARCH/ folder and unpacked
 * there: busybox-static:arm64 cannot be installed beside the native one.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "bench/testbed/testbed.h"
#include "cache.h"
#include "errmsg.h"
#include "log.h"
#include "util.h"

#define BUSYBOX_PACKAGE "busybox-static"

/* Download and unpack busybox-static of @arch into @dir, under the lock. */
static int busybox__fetch(const char *cache, const struct arch *arch,
			  const char *dir, char **err)
{
	char *dl = NULL, *tree = NULL, *deb = NULL, *parent;
	int ret;

	parent = xasprintf("%s/userland/%s", cache, arch->deb);
	ret = cache__mkdirs(parent, err);
	if (!ret)
		ret = cache__mkdtemp(cache, &dl, err);
	if (!ret)
		ret = testbed__deb_fetch(BUSYBOX_PACKAGE, arch, dl, &deb, err);
	if (!ret)
		ret = cache__mkdtemp(parent, &tree, err);
	if (!ret) {
		pr_info("testbed: unpacking %s:%s", BUSYBOX_PACKAGE, arch->deb);
		ret = testbed__deb_unpack(deb, tree, err);
	}
	if (!ret)
		ret = cache__commit(tree, dir, err);
	if (ret && tree)
		cache__remove(tree);
	if (dl)
		cache__remove(dl);
	free_all(parent, tree, deb, dl);
	return ret;
}

int testbed__busybox(const struct arch *arch, char **path, char **err)
{
	char *cache = NULL, *dir = NULL;
	int lock = -1, ret;

	errmsg__reset(err);
	if (!arch || arch == arch__native()) {
		*path = xstrdup(TESTBED_BUSYBOX);
		return 0;
	}
	ret = cache__dir(TESTBED_CACHE_SUB, &cache);
	if (ret)
		return errmsg__set(err, ret,
				   "no cache folder: set IOMMU_BENCH_CACHE or "
				   "HOME");
	dir = xasprintf("%s/userland/%s/" BUSYBOX_PACKAGE, cache, arch->deb);
	*path = xasprintf("%s/bin/busybox", dir);
	if (cache__has_file(*path))
		goto out;
	ret = testbed_cache__lock(cache, &lock, err);
	if (ret)
		goto out;
	/* Someone may have fetched it while we waited for the lock. */
	if (!cache__has_file(*path)) {
		ret = busybox__fetch(cache, arch, dir, err);
		if (!ret && !cache__has_file(*path)) {
			ret = errmsg__set(err, -ENOENT,
					  "%s:%s holds no bin/busybox",
					  BUSYBOX_PACKAGE, arch->deb);
		}
	}
	cache__unlock(lock);
out:
	if (ret) {
		free(*path);
		*path = NULL;
	}
	free(dir);
	free(cache);
	return ret;
}

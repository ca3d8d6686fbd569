// SPDX-License-Identifier: GPL-2.0-only
/*
 * The testbed cache's lock: one for the whole cache, since a testbed
 * build takes seconds; whoever takes it sweeps what killed builds left
 * (the mechanics are cache.h's).
 */
#include <stdlib.h>

#include "bench/testbed/testbed.h"
#include "cache.h"
#include "util.h"

/* A download of a kernel package is the slowest build: minutes at worst. */
#define TESTBED_LOCK_TIMEOUT_MS (15 * 60 * 1000)

int testbed_cache__lock(const char *dir, int *fdp, char **err)
{
	char *path;
	int ret;

	ret = cache__mkdirs(dir, err);
	if (ret)
		return ret;
	path = xasprintf("%s/.lock", dir);
	ret = cache__lock_file(path, TESTBED_LOCK_TIMEOUT_MS, "testbed", fdp,
			       err);
	free(path);
	if (!ret)
		cache__sweep(dir, 1);
	return ret;
}

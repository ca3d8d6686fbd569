// SPDX-License-Identifier: GPL-2.0-only
/*
 * The testbed cache's lock: one for the whole cache, since a testbed
 * build takes seconds; whoever takes it sweeps what killed builds left
 * (the mechanics are cache.h's).
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "bench/testbed/testbed.h"
#include "cache.h"
#include "log.h"
#include "util.h"

/* A download of a kernel package is the slowest build: minutes at worst. */
#define TESTBED_LOCK_TIMEOUT_MS (15 * 60 * 1000)
/* Leftovers of builds that were killed: nobody else builds while we lock. */
static void sweep(const char *dir, int depth)
{
	struct dirent *de;
	char *path;
	DIR *d;

	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		path = xasprintf("%s/%s", dir, de->d_name);
		if (!strncmp(de->d_name, CACHE_TMP_PREFIX,
			     strlen(CACHE_TMP_PREFIX))) {
			pr_debug("testbed: removing the leftover %s", path);
			cache__remove(path);
		} else if (depth && de->d_name[0] != '.' &&
			   de->d_type == DT_DIR) {
			sweep(path, depth - 1);
		}
		free(path);
	}
	closedir(d);
}

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
		sweep(dir, 1);
	return ret;
}

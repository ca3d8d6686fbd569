// SPDX-License-Identifier: GPL-2.0-only
/*
 * The .deb files of a kernel the testbed cache holds unpacked, for a lab
 * machine that installs the package with its own dpkg. The testbed
 * itself needs only the unpacked tree, so they are fetched the first
 * time a lab machine asks (never for the testbed alone: 70-110 MB a
 * kernel), into the kernel's folder, debs/, and must be the very version
 * that was unpacked there: what the lab machine runs is what the store
 * says was measured.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "arch.h"
#include "bench/testbed/testbed.h"
#include "cache.h"
#include "errmsg.h"
#include "log.h"
#include "util.h"

#define DEBS_SUB "debs"

/* The .debs in @dir, sorted, so that dpkg is given them in one order. */
static int debs__list(const char *dir, struct strvec *debs)
{
	struct dirent **names = NULL;
	int n, i;

	n = scandir(dir, &names, NULL, alphasort);
	if (n < 0)
		return -errno;
	for (i = 0; i < n; i++) {
		size_t len = strlen(names[i]->d_name);

		if (len > 4 && !strcmp(names[i]->d_name + len - 4, ".deb"))
			strvec__pushf(debs, "%s/%s", dir, names[i]->d_name);
		free(names[i]);
	}
	free(names);
	return debs->nr ? 0 : -ENOENT;
}

/* @package into @dir, from @apt's suite or else the machine's apt. */
static int debs__fetch_one(struct testbed_apt *apt, const char *package,
			   const char *dir, char **deb, char **err)
{
	if (apt->suite)
		return testbed_apt__download(apt, package, dir, deb, err);
	return testbed__deb_fetch(package, arch__of_package(package), dir, deb,
				  err);
}

/*
 * The package and, for a Debian 7.x image that holds no files itself,
 * the parts it depends on: dpkg installs them together.
 */
static int debs__fetch(const struct testbed_kernel *k, struct testbed_apt *apt,
		       const char *dir, char **err)
{
	struct strvec parts = { 0 };
	char *deb = NULL, *version = NULL, *depends = NULL;
	size_t i;
	int ret;

	ret = debs__fetch_one(apt, k->package, dir, &deb, err);
	if (!ret)
		ret = testbed__deb_version(deb, &version, err);
	if (!ret && strcmp(version, k->version))
		ret = errmsg__set(
			err, -ESTALE,
			"%s is %s on the mirror now, but the testbed "
			"cache unpacked %s: 'iommu-bench testbed "
			"build --force --kernel %s' takes the new one",
			k->package, version, k->version, k->package);
	if (!ret && k->layout == TESTBED_LAYOUT_MODULES)
		ret = testbed__deb_field(deb, "Depends", &depends, err);
	if (!ret && depends)
		testbed__kernel_parts(k->package, depends, &parts);
	for (i = 0; !ret && i < parts.nr; i++) {
		free(deb);
		deb = NULL;
		ret = debs__fetch_one(apt, parts.v[i], dir, &deb, err);
	}
	strvec__release(&parts);
	free_all(deb, version, depends);
	return ret;
}

int testbed__kernel_debs(const struct testbed_kernel *k, struct strvec *debs,
			 char **err)
{
	struct testbed_apt apt = { 0 };
	char *cache = NULL, *dir, *tmp = NULL;
	int lock = -1, ret;

	errmsg__reset(err);
	dir = xasprintf("%s/" DEBS_SUB, k->dir);
	if (!debs__list(dir, debs)) {
		free(dir);
		return 0;
	}
	ret = cache__dir(TESTBED_CACHE_SUB, &cache);
	if (ret) {
		errmsg__set(err, ret,
			    "no cache folder: set IOMMU_BENCH_CACHE or HOME");
		free(dir);
		return ret;
	}
	ret = testbed_cache__lock(cache, &lock, err);
	if (ret)
		goto out;
	/* Someone may have fetched them while we waited for the lock. */
	strvec__release(debs);
	if (!debs__list(dir, debs))
		goto out;
	if (k->suite) {
		ret = testbed_apt__open(&apt, cache, k->suite,
					arch__of_package(k->package), err);
		if (!ret)
			ret = testbed_apt__update(&apt, err);
		if (ret)
			goto out;
	}
	ret = cache__mkdtemp(k->dir, &tmp, err);
	if (ret)
		goto out;
	ret = debs__fetch(k, &apt, tmp, err);
	if (!ret)
		ret = cache__commit(tmp, dir, err);
	if (ret)
		cache__remove(tmp);
	else
		ret = debs__list(dir, debs);
	if (ret && !*err)
		errmsg__set(err, ret, "%s: no .deb there", dir);
out:
	cache__unlock(lock);
	testbed_apt__release(&apt);
	free_all(cache, tmp, dir);
	return ret;
}

int testbed__debs_sizes(const struct testbed_kernel *k,
			const struct strvec *debs, uint64_t *installed,
			uint64_t *boot, char **err)
{
	char *v = NULL, *bootdir, *end;
	struct dirent *de;
	struct stat sb;
	size_t i;
	DIR *d;
	int ret = 0;

	*installed = *boot = 0;
	for (i = 0; i < debs->nr && !ret; i++) {
		unsigned long long kib;

		ret = testbed__deb_field(debs->v[i], "Installed-Size", &v, err);
		if (ret)
			break;
		errno = 0;
		kib = strtoull(v, &end, 10);
		if (errno || end == v || *end)
			ret = errmsg__set(err, -EINVAL,
					  "%s: Installed-Size '%.40s' is not "
					  "a number",
					  debs->v[i], v);
		*installed += (uint64_t)kib * 1024;
		free(v);
		v = NULL;
	}
	/* What the package puts in /boot: its image, config, System.map. */
	bootdir = xasprintf("%s/boot", k->dir);
	d = opendir(bootdir);
	while (!ret && d && (de = readdir(d)))
		if (!fstatat(dirfd(d), de->d_name, &sb, AT_SYMLINK_NOFOLLOW) &&
		    S_ISREG(sb.st_mode))
			*boot += (uint64_t)sb.st_size;
	if (d)
		closedir(d);
	free(bootdir);
	return ret;
}

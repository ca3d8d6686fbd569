// SPDX-License-Identifier: GPL-2.0-only
/*
 * Guest kernels from Debian's own packages: `apt-get download` (never
 * installed on the controller), `dpkg -x`, and `depmod -b` because the
 * package ships no modules.dep (its postinst makes it). A kernel lives
 * in the cache's kernels/PACKAGE folder, with a testbed.json saying
 * which version of the package it is and the release it boots as.
 */
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arch.h"
#include "bench/testbed/testbed.h"
#include "cache.h"
#include "log.h"
#include "util.h"

#define PACKAGE_PREFIX "linux-image-"
#define PACKAGE_MAX 100
#define RELEASE_MAX 100
#define DEPMOD_TIMEOUT_MS (2 * 60 * 1000)
#define META_NAME "testbed.json"

bool testbed__package_is_valid(const char *package)
{
	size_t len = strlen(package), plen = strlen(PACKAGE_PREFIX), i;

	if (len <= plen || len > PACKAGE_MAX ||
	    strncmp(package, PACKAGE_PREFIX, plen))
		return false;
	for (i = plen; i < len; i++) {
		char c = package[i];

		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		      c == '.' || c == '+' || c == '-'))
			return false;
	}
	return true;
}

bool testbed__release_is_valid(const char *release)
{
	size_t len = strlen(release), i;

	if (!len || len > RELEASE_MAX || release[0] == '.' || release[0] == '-')
		return false;
	for (i = 0; i < len; i++) {
		char c = release[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '.' || c == '_' ||
		      c == '+' || c == '-'))
			return false;
	}
	return true;
}

void testbed_kernel__release(struct testbed_kernel *k)
{
	free(k->package);
	free(k->version);
	free(k->release);
	free(k->dir);
	free(k->image);
	free(k->initrd);
	free(k->config);
	memset(k, 0, sizeof(*k));
}

static bool is_dir(const char *path)
{
	struct stat sb;

	return !stat(path, &sb) && S_ISDIR(sb.st_mode);
}

/* The release a package's kernel boots as: its boot/vmlinuz-RELEASE. */
static int tree_release(const char *tree, const char *package, char **release,
			char **err)
{
	char *boot = xasprintf("%s/boot", tree);
	struct dirent *de;
	int n = 0, ret = 0;
	DIR *d;

	d = opendir(boot);
	if (d) {
		while ((de = readdir(d))) {
			if (strncmp(de->d_name, "vmlinuz-", 8))
				continue;
			if (!n++)
				*release = xstrdup(de->d_name + 8);
		}
		closedir(d);
	}
	if (!n) {
		ret = -ENOENT;
		*err = xasprintf("%s holds no boot/vmlinuz-*: not a kernel "
				 "image (a meta-package? name a versioned "
				 "one, such as linux-image-6.1.0-57-amd64)",
				 package);
	} else if (n > 1) {
		ret = -EINVAL;
		*err = xasprintf("%s holds %d boot/vmlinuz-* files, not one",
				 package, n);
	} else if (!testbed__release_is_valid(*release)) {
		ret = -EINVAL;
		*err = xasprintf("%s: '%.80s' is not a kernel release", package,
				 *release);
	}
	if (ret && n)
		free(*release);
	free(boot);
	return ret;
}

/*
 * Where depmod -b finds lib/modules/RELEASE: the tree itself, or its
 * usr/ for packages built after the /usr merge. NULL: no modules.
 */
static char *modules_base(const char *tree, const char *release)
{
	static const char *const bases[] = { "", "/usr" };
	char *dir;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bases); i++) {
		dir = xasprintf("%s%s/lib/modules/%s", tree, bases[i], release);
		if (is_dir(dir)) {
			free(dir);
			return xasprintf("%s%s", tree, bases[i]);
		}
		free(dir);
	}
	return NULL;
}

static int meta__write(const char *tree, const char *package,
		       const char *version, const char *release, char **err)
{
	char *path = xasprintf("%s/" META_NAME, tree), *text;
	struct iovec iov;
	json_t *o;
	int ret;

	o = json_pack("{s:s, s:s, s:s}", "package", package, "version", version,
		      "release", release);
	text = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	iov = (struct iovec){ text, strlen(text) };
	ret = cache__write(path, &iov, 1, err);
	free(text);
	json_decref(o);
	free(path);
	return ret;
}

/* 0 and *@k's package, version, release and paths; -ENOENT: not there. */
static int meta__read(const char *dir, const char *package,
		      struct testbed_kernel *k, char **err)
{
	char *path = xasprintf("%s/" META_NAME, dir);
	const char *version, *release, *name;
	json_error_t jerr;
	json_t *o;
	int ret = 0;

	o = json_load_file(path, 0, &jerr);
	if (!o) {
		ret = -ENOENT;
		if (access(path, F_OK) == 0) {
			ret = -EINVAL;
			*err = xasprintf("%s: %s (remove it, or build again "
					 "with --force)",
					 path, jerr.text);
		}
		goto out;
	}
	name = json_string_value(json_object_get(o, "package"));
	version = json_string_value(json_object_get(o, "version"));
	release = json_string_value(json_object_get(o, "release"));
	if (!name || strcmp(name, package) || !version ||
	    !testbed__version_is_valid(version) || !release ||
	    !testbed__release_is_valid(release)) {
		ret = -EINVAL;
		*err = xasprintf("%s does not describe %s (remove it, or build "
				 "again with --force)",
				 path, package);
		goto out;
	}
	k->package = xstrdup(package);
	k->version = xstrdup(version);
	k->release = xstrdup(release);
	k->dir = xstrdup(dir);
	k->image = xasprintf("%s/boot/vmlinuz-%s", dir, release);
	k->config = xasprintf("%s/boot/config-%s", dir, release);
	if (!cache__has_file(k->image)) {
		ret = -EINVAL;
		*err = xasprintf("%s is missing (build again with --force)",
				 k->image);
	}
out:
	json_decref(o);
	free(path);
	return ret;
}

/* Download, unpack and depmod @package into @dir, under the lock. */
static int kernel__build(const char *cache, const char *package,
			 const char *dir, char **err)
{
	char *dl = NULL, *tree = NULL, *deb = NULL, *version = NULL;
	char *release = NULL, *kernels = NULL, *base;
	int ret;

	ret = cache__mkdtemp(cache, &dl, err);
	if (ret)
		goto out;
	ret = testbed__deb_fetch(package, arch__of_package(package), dl, &deb,
				 err);
	if (ret)
		goto out;
	ret = testbed__deb_version(deb, &version, err);
	if (ret)
		goto out;
	kernels = xasprintf("%s/kernels", cache);
	ret = cache__mkdtemp(kernels, &tree, err);
	if (ret)
		goto out;
	pr_info("testbed: unpacking %s %s", package, version);
	ret = testbed__deb_unpack(deb, tree, err);
	if (ret)
		goto out;
	/* The package is unpacked: its 70-110 MB are not worth keeping. */
	cache__remove(dl);
	ret = tree_release(tree, package, &release, err);
	if (ret)
		goto out;
	base = modules_base(tree, release);
	if (base) {
		const char *argv[] = { "depmod", "-b", base, release, NULL };

		pr_info("testbed: depmod %s", release);
		ret = testbed__run(argv, NULL, DEPMOD_TIMEOUT_MS, NULL, err);
		free(base);
		if (ret)
			goto out;
	}
	ret = meta__write(tree, package, version, release, err);
	if (!ret)
		ret = cache__commit(tree, dir, err);
out:
	if (ret && tree)
		cache__remove(tree);
	if (dl)
		cache__remove(dl);
	free(dl);
	free(tree);
	free(deb);
	free(version);
	free(release);
	free(kernels);
	return ret;
}

int testbed__kernel_get(const char *package, const char *const *extra,
			bool fetch, bool force, struct testbed_kernel *k,
			char **err)
{
	char *cache = NULL, *dir = NULL, *modules = NULL, *base;
	bool kernel_cached = false, initrd_cached = false;
	int lock = -1, ret;

	*err = NULL;
	memset(k, 0, sizeof(*k));
	if (!testbed__package_is_valid(package)) {
		*err = xasprintf("'%s' is not a kernel package name "
				 "(linux-image- and then [a-z0-9.+-], at most "
				 "%d characters)",
				 package, PACKAGE_MAX);
		return -EINVAL;
	}
	ret = cache__dir(TESTBED_CACHE_SUB, &cache);
	if (ret) {
		*err = xasprintf("no cache folder: set IOMMU_BENCH_CACHE or "
				 "HOME");
		return ret;
	}
	dir = xasprintf("%s/kernels/%s", cache, package);
	ret = force ? -ENOENT : meta__read(dir, package, k, err);
	if (!ret) {
		kernel_cached = true;
	} else if (ret == -ENOENT && !fetch) {
		*err = xasprintf("%s is not in the testbed cache (%s): run "
				 "'iommu-bench testbed build --kernel %s'",
				 package, cache, package);
		goto out;
	} else if (ret == -ENOENT) {
		testbed_kernel__release(k);
		ret = testbed_cache__lock(cache, &lock, err);
		if (ret)
			goto out;
		/* Someone may have built it while we waited for the lock. */
		ret = force ? -ENOENT : meta__read(dir, package, k, err);
		if (ret == -ENOENT) {
			ret = kernel__build(cache, package, dir, err);
			if (!ret)
				ret = meta__read(dir, package, k, err);
		} else if (!ret) {
			kernel_cached = true;
		}
		cache__unlock(lock);
		if (ret)
			goto out;
	} else {
		goto out;
	}
	base = modules_base(dir, k->release);
	if (base)
		modules = xasprintf("%s/lib/modules/%s", base, k->release);
	free(base);
	ret = testbed__initrd_get(arch__of_package(package), modules, extra,
				  cache__has_file(k->config) ? k->config : NULL,
				  k->release, force, &k->initrd, &initrd_cached,
				  err);
	if (ret) {
		char *why = *err;

		*err = xasprintf("%s: %s", package, why);
		free(why);
		goto out;
	}
	k->cached = kernel_cached && initrd_cached;
out:
	if (ret)
		testbed_kernel__release(k);
	free(modules);
	free(dir);
	free(cache);
	return ret;
}

int testbed__kernel(const char *package, bool fetch, struct testbed_kernel *k,
		    char **err)
{
	return testbed__kernel_get(package, NULL, fetch, false, k, err);
}

int testbed__kernel_with(const char *package, const char *const *extra,
			 struct testbed_kernel *k, char **err)
{
	return testbed__kernel_get(package, extra, true, false, k, err);
}

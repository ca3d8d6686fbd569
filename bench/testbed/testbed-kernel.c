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
#include "debian-suite.h"
#include "errmsg.h"
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
	free_all(k->package, k->version, k->release, k->suite, k->asked, k->dir,
		 k->image, k->initrd, k->config);
	memset(k, 0, sizeof(*k));
}

static bool is_dir(const char *path)
{
	struct stat sb;

	return !stat(path, &sb) && S_ISDIR(sb.st_mode);
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
		       const char *version, const char *release,
		       enum testbed_layout layout, const char *suite,
		       char **err)
{
	char *path = xasprintf("%s/" META_NAME, tree), *text;
	struct iovec iov;
	json_t *o;
	int ret;

	o = json_pack("{s:s, s:s, s:s, s:s, s:s?}", "package", package,
		      "version", version, "release", release, "layout",
		      testbed_layout__name(layout), "suite", suite);
	text = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	iov = (struct iovec){ text, strlen(text) };
	ret = cache__write(path, &iov, 1, err);
	free(text);
	json_decref(o);
	free(path);
	return ret;
}

static char *kernel_dir(const char *cache, const char *package)
{
	return xasprintf("%s/kernels/%s", cache, package);
}

/*
 * 0 and *@k's package, version, release, suite and paths from the cache;
 * -ENOENT: not there. A testbed.json without a layout is from before
 * 7.x: boot/.
 */
static int meta__read(const char *cache, const char *package,
		      struct testbed_kernel *k, char **err)
{
	char *dir = kernel_dir(cache, package);
	char *path = xasprintf("%s/" META_NAME, dir);
	const char *version, *release, *name, *layout, *suite;
	json_error_t jerr;
	int l = TESTBED_LAYOUT_BOOT;
	json_t *o;
	int ret = 0;

	o = json_load_file(path, 0, &jerr);
	if (!o) {
		ret = -ENOENT;
		if (access(path, F_OK) == 0) {
			ret = -EINVAL;
			errmsg__set(err, 0,
				    "%s: %s (remove it, or build again "
				    "with --force)",
				    path, jerr.text);
		}
		goto out;
	}
	name = json_string_value(json_object_get(o, "package"));
	version = json_string_value(json_object_get(o, "version"));
	release = json_string_value(json_object_get(o, "release"));
	layout = json_string_value(json_object_get(o, "layout"));
	suite = json_string_value(json_object_get(o, "suite"));
	if (layout)
		l = testbed_layout__find(layout);
	if (!name || strcmp(name, package) || !version ||
	    !testbed__version_is_valid(version) || !release ||
	    !testbed__release_is_valid(release) || l < 0 ||
	    (suite && !debian_suite__is_valid(suite))) {
		ret = -EINVAL;
		errmsg__set(err, 0,
			    "%s does not describe %s (remove it, or build "
			    "again with --force)",
			    path, package);
		goto out;
	}
	k->package = xstrdup(package);
	k->version = xstrdup(version);
	k->release = xstrdup(release);
	k->suite = suite ? xstrdup(suite) : NULL;
	k->dir = xstrdup(dir);
	k->layout = l;
	k->image = testbed__layout_image(dir, l, release);
	k->config = testbed__layout_config(dir, l, release);
	if (!cache__has_file(k->image)) {
		ret = -EINVAL;
		errmsg__set(err, 0, "%s is missing (build again with --force)",
			    k->image);
	}
out:
	json_decref(o);
	free(path);
	free(dir);
	return ret;
}

/*
 * @package downloaded (from @apt's suite, else the machine's apt) into
 * a new folder of @cache and unpacked into @tree; its Depends in
 * *@depends when not NULL.
 */
static int fetch_unpack(const char *cache, struct testbed_apt *apt,
			const char *package, const char *tree, char **version,
			char **depends, char **err)
{
	char *dl = NULL, *deb = NULL;
	int ret;

	ret = cache__mkdtemp(cache, &dl, err);
	if (ret)
		return ret;
	ret = apt ? testbed_apt__download(apt, package, dl, &deb, err) :
		    testbed__deb_fetch(package, arch__of_package(package), dl,
				       &deb, err);
	if (!ret && version)
		ret = testbed__deb_version(deb, version, err);
	if (!ret && depends)
		ret = testbed__deb_field(deb, "Depends", depends, err);
	if (!ret) {
		pr_info("testbed: unpacking %s%s%s", package,
			version ? " " : "", version ? *version : "");
		ret = testbed__deb_unpack(deb, tree, err);
	}
	/* Unpacked: the package's 70-110 MB are not worth keeping. */
	cache__remove(dl);
	free(dl);
	free(deb);
	return ret;
}

/*
 * The image, or from 7.x the parts it depends on unpacked into the same
 * tree: the linux-image-VER package itself holds no files.
 */
static int tree_complete(const char *cache, struct testbed_apt *apt,
			 const char *package, const char *tree,
			 const char *depends, enum testbed_layout *layout,
			 char **release, char **err)
{
	struct strvec parts = { 0 };
	char *why = NULL;
	size_t i;
	int ret;

	ret = testbed__tree_layout(tree, layout, release, &why);
	if (ret == -ENOENT) {
		testbed__kernel_parts(package, depends, &parts);
		if (!parts.nr) {
			errmsg__set(err, ret,
				    "%s holds no boot/vmlinuz-*: not a kernel "
				    "image (a meta-package? name a versioned "
				    "one, such as linux-image-6.1.0-57-amd64, "
				    "or give its suite)",
				    package);
			goto out;
		}
		for (i = 0, ret = 0; i < parts.nr && !ret; i++)
			ret = fetch_unpack(cache, apt, parts.v[i], tree, NULL,
					   NULL, err);
		if (ret)
			goto out;
		free(why);
		why = NULL;
		ret = testbed__tree_layout(tree, layout, release, &why);
	}
	if (ret)
		errmsg__set(err, ret, "%s: %s", package, why);
out:
	strvec__release(&parts);
	free(why);
	return ret;
}

/* Download, unpack and depmod @package into the cache, under the lock. */
static int kernel__build(const char *cache, const char *package,
			 struct testbed_apt *apt, char **err)
{
	char *tree = NULL, *version = NULL, *depends = NULL, *release = NULL;
	char *kernels = xasprintf("%s/kernels", cache), *base, *dir = NULL;
	enum testbed_layout layout;
	int ret;

	ret = cache__mkdtemp(kernels, &tree, err);
	if (!ret)
		ret = fetch_unpack(cache, apt, package, tree, &version,
				   &depends, err);
	if (!ret)
		ret = tree_complete(cache, apt, package, tree, depends, &layout,
				    &release, err);
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
	ret = meta__write(tree, package, version, release, layout,
			  apt ? apt->suite : NULL, err);
	dir = kernel_dir(cache, package);
	if (!ret)
		ret = cache__commit(tree, dir, err);
out:
	if (ret && tree)
		cache__remove(tree);
	free_all(tree, version, depends, release, kernels, dir);
	return ret;
}

/*
 * The versioned package @package is in @apt's suite: itself, checked to
 * be there, or what a meta-package depends on now. Before any download,
 * so that a name the suite lacks costs only its package lists.
 */
static int resolve(struct testbed_apt *apt, const char *package, char **name,
		   char **version, char **err)
{
	char *stanza = NULL, *depends = NULL;
	int ret;

	*name = NULL;
	ret = testbed_apt__show(apt, package, &stanza, err);
	if (ret)
		goto out;
	if (!testbed__package_is_meta(package)) {
		*name = xstrdup(package);
		goto out;
	}
	depends = testbed__control_field(stanza, "Depends");
	*name = depends ? testbed__meta_target(package, depends) : NULL;
	free(stanza);
	stanza = NULL;
	if (!*name) {
		ret = errmsg__set(err, -ENOENT,
				  "%s in %s depends on no versioned kernel for "
				  "%s (Depends: %s)%s",
				  package, apt->suite, apt->arch->deb,
				  depends ? depends : "none",
				  strstr(package, "-dbg") ?
					  "; a -dbg package holds debug "
					  "symbols, not a kernel" :
					  "");
		goto out;
	}
	ret = testbed_apt__show(apt, *name, &stanza, err);
out:
	if (!ret)
		*version = testbed__control_field(stanza, "Version");
	if (!ret && testbed__package_is_meta(package))
		pr_info("testbed: %s in %s is %s %s", package, apt->suite,
			*name, *version ? *version : "(no version)");
	if (ret) {
		free(*name);
		*name = NULL;
	}
	free(stanza);
	free(depends);
	return ret;
}

/*
 * @apt opened for @suite and @package's arch, updated when @fetch, and
 * @package resolved in it; under the cache's lock.
 */
static int suite__resolve(const char *cache, const char *package,
			  const char *suite, bool fetch,
			  struct testbed_apt *apt, char **name, char **version,
			  char **err)
{
	const struct arch *arch = arch__of_package(package);
	int ret;

	ret = testbed_apt__open(apt, cache, suite, arch ? arch : arch__native(),
				err);
	if (!ret && fetch)
		ret = testbed_apt__update(apt, err);
	if (!ret)
		ret = resolve(apt, package, name, version, err);
	return ret;
}

static int not_cached(const char *package, const char *suite, const char *cache,
		      char **err)
{
	return errmsg__set(err, -ENOENT,
			   "%s is not in the testbed cache (%s): run "
			   "'iommu-bench testbed build --kernel %s%s%s'",
			   package, cache, package, suite ? " --suite " : "",
			   suite ? suite : "");
}

/*
 * *@k from the cache, built there first when it lacks it; a suite's
 * meta-package is resolved first, so it always asks apt.
 */
static int kernel__locate(const char *cache, const char *package,
			  const char *suite, bool fetch, bool force,
			  struct testbed_kernel *k, bool *cached, char **err)
{
	bool meta = suite && testbed__package_is_meta(package);
	struct testbed_apt apt = { 0 };
	char *name = NULL, *version = NULL;
	int lock = -1, ret;

	if (!meta) {
		ret = force ? -ENOENT : meta__read(cache, package, k, err);
		*cached = !ret;
		if (ret != -ENOENT)
			return ret;
		if (!fetch)
			return not_cached(package, suite, cache, err);
	}
	ret = testbed_cache__lock(cache, &lock, err);
	if (ret)
		return ret;
	if (suite) {
		ret = suite__resolve(cache, package, suite, fetch, &apt, &name,
				     &version, err);
		if (ret)
			goto out;
	} else {
		name = xstrdup(package);
	}
	testbed_kernel__release(k);
	/* Someone may have built it while we waited for the lock. */
	ret = force ? -ENOENT : meta__read(cache, name, k, err);
	*cached = !ret;
	if (ret == -ENOENT && !fetch) {
		ret = not_cached(package, suite, cache, err);
	} else if (ret == -ENOENT) {
		ret = kernel__build(cache, name, suite ? &apt : NULL, err);
		if (!ret)
			ret = meta__read(cache, name, k, err);
	}
	if (!ret && meta)
		k->asked = xstrdup(package);
out:
	cache__unlock(lock);
	testbed_apt__release(&apt);
	free(name);
	free(version);
	return ret;
}

/* @package and @suite checked, and the cache's folder in *@cache. */
static int kernel__cache(const char *package, const char *suite, char **cache,
			 char **err)
{
	int ret;

	if (!testbed__package_is_valid(package))
		return errmsg__set(err, -EINVAL,
				   "'%s' is not a kernel package name "
				   "(linux-image- and then [a-z0-9.+-], at "
				   "most %d characters)",
				   package, PACKAGE_MAX);
	if (suite && !debian_suite__is_valid(suite))
		return errmsg__set(err, -EINVAL,
				   "'%.60s' is not a Debian suite name "
				   "([a-z0-9-], starting with a letter)",
				   suite);
	ret = cache__dir(TESTBED_CACHE_SUB, cache);
	if (ret)
		return errmsg__set(err, ret,
				   "no cache folder: set IOMMU_BENCH_CACHE or "
				   "HOME");
	return 0;
}

int testbed__kernel_resolve(const char *package, const char *suite, char **name,
			    char **version, char **err)
{
	struct testbed_apt apt = { 0 };
	char *cache = NULL;
	int lock = -1, ret;

	errmsg__reset(err);
	*name = *version = NULL;
	ret = kernel__cache(package, suite, &cache, err);
	if (!ret)
		ret = testbed_cache__lock(cache, &lock, err);
	if (ret)
		goto out;
	ret = suite__resolve(cache, package, suite, true, &apt, name, version,
			     err);
	cache__unlock(lock);
out:
	testbed_apt__release(&apt);
	free(cache);
	return ret;
}

int testbed__kernel_get(const char *package, const char *suite,
			const char *const *extra, bool fetch, bool force,
			struct testbed_kernel *k, char **err)
{
	char *cache = NULL, *modules = NULL, *base;
	bool kernel_cached = false, initrd_cached = false;
	int ret;

	errmsg__reset(err);
	memset(k, 0, sizeof(*k));
	ret = kernel__cache(package, suite, &cache, err);
	if (ret)
		return ret;
	ret = kernel__locate(cache, package, suite, fetch, force, k,
			     &kernel_cached, err);
	if (ret)
		goto out;
	/* Built before from another source under the same name: the same
	 * kernel, and the suite asked for is what the caller records. */
	if (suite && (!k->suite || strcmp(k->suite, suite))) {
		free(k->suite);
		k->suite = xstrdup(suite);
	}
	base = modules_base(k->dir, k->release);
	if (base)
		modules = xasprintf("%s/lib/modules/%s", base, k->release);
	free(base);
	ret = testbed__initrd_get(arch__of_package(k->package), modules, extra,
				  cache__has_file(k->config) ? k->config : NULL,
				  k->release, force, &k->initrd, &initrd_cached,
				  err);
	if (ret) {
		errmsg__set(err, 0, "%s: %s", k->package, *err);
		goto out;
	}
	k->cached = kernel_cached && initrd_cached;
out:
	if (ret)
		testbed_kernel__release(k);
	free(modules);
	free(cache);
	return ret;
}

int testbed__kernel(const char *package, const char *suite, bool fetch,
		    struct testbed_kernel *k, char **err)
{
	return testbed__kernel_get(package, suite, NULL, fetch, false, k, err);
}

int testbed__kernel_with(const char *package, const char *suite,
			 const char *const *extra, struct testbed_kernel *k,
			 char **err)
{
	return testbed__kernel_get(package, suite, extra, true, false, k, err);
}

int testbed__kernel_option(const char *package, const char *option)
{
	struct testbed_kernel k = { 0 };
	char *cache = NULL, *err = NULL, *line = NULL;
	size_t cap = 0, len = strlen(option);
	int val = 0;
	FILE *f;

	if (!testbed__package_is_valid(package) ||
	    cache__dir(TESTBED_CACHE_SUB, &cache))
		return 0;
	if (meta__read(cache, package, &k, &err))
		goto out;
	f = fopen(k.config, "r");
	if (!f)
		goto out;
	/* Kconfig writes "# CONFIG_X is not set", or nothing, for n. */
	val = 'n';
	while (getline(&line, &cap, f) > 0)
		if (!strncmp(line, option, len) && line[len] == '=') {
			val = line[len + 1];
			break;
		}
	fclose(f);
out:
	testbed_kernel__release(&k);
	free(line);
	free(err);
	free(cache);
	return val;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * The caches on the controller (testbed kernels, kernel builds). Builds
 * take minutes and downloads tens of megabytes, and a killed build must
 * never be mistaken for a finished one: whatever is built goes to a
 * ".tmp-*" name beside its final place and is renamed there only when
 * complete, under an flock(). Readers take no lock: a final name, once
 * it exists, is always whole.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "atomic-file.h"
#include "cache.h"
#include "clock.h"
#include "errmsg.h"
#include "log.h"
#include "util.h"

static char *join(const char *base, const char *suffix)
{
	size_t len = strlen(base);

	while (len > 1 && base[len - 1] == '/')
		len--;
	return xasprintf("%.*s%s", (int)len, base, suffix);
}

/* $IOMMU_BENCH_CACHE, $XDG_CACHE_HOME/iommu-bench or ~/.cache/iommu-bench. */
static int cache_root(char **out)
{
	const char *env = getenv("IOMMU_BENCH_CACHE");
	struct passwd *pw;
	char *cwd, *p;

	if (env && *env) {
		if (env[0] == '/') {
			*out = join(env, "");
			return 0;
		}
		/* QEMU and the lock must see the same place from any cwd. */
		cwd = getcwd(NULL, 0);
		if (!cwd)
			return -errno;
		p = xasprintf("%s/%s", cwd, env);
		*out = join(p, "");
		free(p);
		free(cwd);
		return 0;
	}
	/* The XDG spec: a relative XDG_CACHE_HOME is invalid, ignore it. */
	env = getenv("XDG_CACHE_HOME");
	if (env && env[0] == '/') {
		*out = join(env, "/iommu-bench");
		return 0;
	}
	env = getenv("HOME");
	if (!env || env[0] != '/') {
		pw = getpwuid(getuid());
		env = pw && pw->pw_dir && pw->pw_dir[0] == '/' ? pw->pw_dir :
								 NULL;
	}
	if (!env)
		return -ENOENT;
	*out = join(env, "/.cache/iommu-bench");
	return 0;
}

int cache__dir(const char *sub, char **out)
{
	char *root = NULL;
	int ret;

	ret = cache_root(&root);
	if (ret)
		return ret;
	*out = xasprintf("%s/%s", root, sub);
	free(root);
	return 0;
}

int cache__mkdirs(const char *path, char **err)
{
	char *p = xstrdup(path), *s;
	struct stat sb;
	int ret = 0;

	for (s = p + 1;; s++) {
		if (*s && *s != '/')
			continue;
		if (s[-1] != '/') {
			char c = *s;

			*s = '\0';
			if (mkdir(p, 0755) && errno != EEXIST) {
				ret = -errno;
				goto fail;
			}
			if (stat(p, &sb)) {
				ret = -errno;
				goto fail;
			}
			if (!S_ISDIR(sb.st_mode)) {
				ret = -ENOTDIR;
				goto fail;
			}
			*s = c;
		}
		if (!*s)
			break;
	}
	free(p);
	return 0;
fail:
	errmsg__set(err, 0, "cannot create %s: %s", p, strerror(-ret));
	free(p);
	return ret;
}

int cache__lock_file(const char *path, long long timeout_ms, const char *what,
		     int *fdp, char **err)
{
	long long deadline = mono_ms() + timeout_ms;
	struct timespec pause = { 0, 100 * 1000 * 1000 };
	bool said = false;
	int fd, ret = 0;

	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		ret = -errno;
		return errmsg__set(err, ret, "cannot open %s: %s", path,
				   strerror(errno));
	}
	/* Polled rather than blocking, so that a stuck build is a message. */
	while (flock(fd, LOCK_EX | LOCK_NB)) {
		if (errno == EINTR)
			continue;
		if (errno != EWOULDBLOCK) {
			ret = -errno;
			errmsg__set(err, 0, "cannot lock %s: %s", path,
				    strerror(errno));
			goto out;
		}
		if (mono_ms() >= deadline) {
			ret = -ETIMEDOUT;
			errmsg__set(err, 0,
				    "another iommu-bench has held %s for "
				    "%lld minutes",
				    path, timeout_ms / 60000);
			goto out;
		}
		if (!said)
			pr_info("%s: waiting for another build (%s)", what,
				path);
		said = true;
		nanosleep(&pause, NULL);
	}
	*fdp = fd;
	fd = -1;
out:
	if (fd >= 0)
		close(fd);
	return ret;
}

void cache__unlock(int fd)
{
	if (fd >= 0)
		close(fd);
}

int cache__mkdtemp(const char *dir, char **tmp, char **err)
{
	char *path;
	int ret;

	ret = cache__mkdirs(dir, err);
	if (ret)
		return ret;
	path = xasprintf("%s/" CACHE_TMP_PREFIX "XXXXXX", dir);
	/* 0755, not mkdtemp's 0700: it becomes a cache entry as it is. */
	if (!mkdtemp(path) || chmod(path, 0755)) {
		ret = -errno;
		errmsg__set(err, 0, "cannot create a folder in %s: %s", dir,
			    strerror(errno));
		free(path);
		return ret;
	}
	*tmp = path;
	return 0;
}

int cache__commit(const char *tmp, const char *path, char **err)
{
	char *old = NULL, *slash;
	int ret = 0;

	if (!rename(tmp, path))
		return 0;
	if (errno != EEXIST && errno != ENOTEMPTY) {
		ret = -errno;
		goto fail;
	}
	/* An older build is there (--force): swap, so that it never lacks. */
	if (!renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_EXCHANGE)) {
		cache__remove(tmp);
		return 0;
	}
	/* Not every file system swaps: move the old one aside first. */
	slash = strrchr(path, '/');
	old = xasprintf("%.*s/" CACHE_TMP_PREFIX "old-%d",
			slash ? (int)(slash - path) : 1, slash ? path : ".",
			(int)getpid());
	cache__remove(old);
	if (rename(path, old) || rename(tmp, path)) {
		ret = -errno;
		goto fail;
	}
	cache__remove(old);
	free(old);
	return 0;
fail:
	errmsg__set(err, 0, "cannot put %s in place: %s", path, strerror(-ret));
	free(old);
	return ret;
}

static int remove_one(const char *path, const struct stat *sb, int type,
		      struct FTW *ftw)
{
	(void)sb;
	(void)ftw;
	if (type == FTW_DP || type == FTW_DNR ? rmdir(path) : unlink(path))
		return errno == ENOENT ? 0 : -errno;
	return 0;
}

int cache__write(const char *path, const struct iovec *iov, int iovcnt,
		 char **err)
{
	int ret = atomic_file__write(path, iov, iovcnt);

	if (ret)
		errmsg__set(err, 0, "cannot write %s: %s", path,
			    strerror(-ret));
	return ret;
}

int cache__remove(const char *path)
{
	struct stat sb;

	if (lstat(path, &sb))
		return errno == ENOENT ? 0 : -errno;
	return nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

bool cache__has_file(const char *path)
{
	struct stat sb;

	return !stat(path, &sb) && S_ISREG(sb.st_mode);
}

void cache__sweep(const char *dir, int depth)
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
			pr_debug("cache: removing the leftover %s", path);
			cache__remove(path);
		} else if (depth && de->d_name[0] != '.' &&
			   de->d_type == DT_DIR) {
			cache__sweep(path, depth - 1);
		}
		free(path);
	}
	closedir(d);
}

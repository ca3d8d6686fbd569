// SPDX-License-Identifier: GPL-2.0-only
/*
 * The cache of builds: where it is, the per-key lock that keeps two
 * identical builds from running at once (different ones run side by
 * side), and an entry's result.json written and read back.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench/kbuild/kbuild.h"
#include "cache.h"
#include "errmsg.h"
#include "log.h"
#include "util.h"

/* An identical build may take hours; waiting longer means it is stuck. */
#define LOCK_TIMEOUT_S (12 * 60 * 60)
#define RESULT_FORMAT 1

int kbuild__cache_dir(char **out)
{
	return cache__dir("kernels", out);
}

int kbuild__copy_file(const char *from, const char *to, char **err)
{
	int in = -1, out = -1, ret = 0;
	const char *bad = from;
	struct stat sb;
	ssize_t n;

	in = open(from, O_RDONLY | O_CLOEXEC);
	if (in < 0 || fstat(in, &sb)) {
		ret = -errno;
		goto fail;
	}
	bad = to;
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out < 0) {
		ret = -errno;
		goto fail;
	}
	for (;;) {
		n = sendfile(out, in, NULL, 1 << 30);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -errno;
			goto fail;
		}
		if (!n)
			break;
	}
	if (close(out)) {
		out = -1;
		ret = -errno;
		goto fail;
	}
	close(in);
	return 0;
fail:
	errmsg__set(err, 0, "cannot copy %s to %s: %s: %s", from, to, bad,
		    strerror(-ret));
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return ret;
}

int kbuild_cache__lock(const char *dir, const char *key, int *fdp, char **err)
{
	char *locks = xasprintf("%s/.locks", dir), *path = NULL;
	int ret;

	ret = cache__mkdirs(locks, err);
	if (!ret) {
		path = xasprintf("%s/%s", locks, key);
		ret = cache__lock_file(path, LOCK_TIMEOUT_S * 1000LL,
				       "kernel build", fdp, err);
	}
	free(locks);
	free(path);
	return ret;
}

void kbuild_cache__sweep(const char *dir, const char *key)
{
	char *prefix = xasprintf(".tmp-%s-", key), *path;
	struct dirent *de;
	DIR *d;

	d = opendir(dir);
	if (!d)
		goto out;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, prefix, strlen(prefix)))
			continue;
		path = xasprintf("%s/%s", dir, de->d_name);
		pr_info("kernel build: removing %s, left by a build that "
			"was stopped",
			path);
		cache__remove(path);
		free(path);
	}
	closedir(d);
out:
	free(prefix);
}

/* An entry's file name, or NULL; names come from our own result.json. */
static char *entry_file(const char *dir, json_t *files, const char *what)
{
	const char *name = json_string_value(json_object_get(files, what));
	char *path;

	if (!name || !*name || name[0] == '/' || strstr(name, ".."))
		return NULL;
	path = xasprintf("%s/%s", dir, name);
	return path;
}

static char *dup_or_null(json_t *v)
{
	const char *s = json_string_value(v);

	return s ? xstrdup(s) : NULL;
}

int kbuild_cache__load(const char *dir, const char *key,
		       struct kbuild_result *res, char **err)
{
	char *path = xasprintf("%s/result.json", dir);
	json_t *meta, *files, *missing, *m;
	json_error_t jerr;
	size_t i;
	int ret = 0;

	memset(res, 0, sizeof(*res));
	meta = json_load_file(path, 0, &jerr);
	if (!meta) {
		if (access(path, F_OK)) {
			ret = -ENOENT;
			goto out;
		}
		ret = -EIO;
		errmsg__set(err, 0, "%s: %s", path, jerr.text);
		goto out;
	}
	files = json_object_get(meta, "files");
	if (json_integer_value(json_object_get(meta, "format")) !=
		    RESULT_FORMAT ||
	    !json_is_object(files)) {
		ret = -EIO;
		errmsg__set(err, 0, "%s is not a result this version reads",
			    path);
		json_decref(meta);
		goto out;
	}
	res->meta = meta;
	res->key = xstrdup(key);
	res->dir = xstrdup(dir);
	res->image = entry_file(dir, files, "image");
	res->system_map = entry_file(dir, files, "system_map");
	res->config = entry_file(dir, files, "config");
	res->modules_tar = entry_file(dir, files, "modules_tar");
	res->modules_dir = entry_file(dir, files, "modules_dir");
	res->log = entry_file(dir, files, "log");
	res->build_id = dup_or_null(json_object_get(meta, "build_id"));
	res->release = dup_or_null(json_object_get(meta, "release"));
	res->arch = dup_or_null(json_object_get(meta, "arch"));
	res->base_commit = dup_or_null(json_object_get(meta, "base_commit"));
	res->config_only = json_is_true(json_object_get(meta, "config_only"));
	missing = json_object_get(meta, "missing");
	res->nr_missing = json_array_size(missing);
	res->missing = xcalloc(res->nr_missing + 1, sizeof(*res->missing));
	json_array_foreach(missing, i, m) {
		res->missing[i].option =
			dup_or_null(json_object_get(m, "option"));
		res->missing[i].wanted =
			dup_or_null(json_object_get(m, "wanted"));
		res->missing[i].actual =
			dup_or_null(json_object_get(m, "actual"));
		res->missing[i].fragment =
			dup_or_null(json_object_get(m, "fragment"));
		res->missing[i].reason =
			dup_or_null(json_object_get(m, "reason"));
		if (!res->missing[i].option)
			res->missing[i].option = xstrdup("?");
		if (!res->missing[i].fragment)
			res->missing[i].fragment = xstrdup("?");
	}
	if (!res->config || (!res->config_only && !res->image)) {
		ret = -EIO;
		errmsg__set(err, 0, "%s names no config or image", path);
		kbuild_result__release(res);
	}
out:
	free(path);
	return ret;
}

void kbuild_result__release(struct kbuild_result *res)
{
	free_all(res->key, res->dir, res->image, res->system_map, res->config,
		 res->modules_tar, res->modules_dir, res->log, res->build_id,
		 res->release, res->arch, res->base_commit);
	kbuild_missing__free(res->missing, res->nr_missing);
	json_decref(res->meta);
	memset(res, 0, sizeof(*res));
}

char *kbuild_result__recipe(const struct kbuild_result *res)
{
	static const char *const keys[] = { "key", "elapsed_s", "built_at" };
	json_t *r = json_object_get(res->meta, "recipe"), *o;
	char *text;
	size_t i;

	if (!json_is_object(r))
		return NULL;
	o = json_deep_copy(r);
	/* The entry's, not this run's: a cache hit stores the same text. */
	for (i = 0; i < ARRAY_SIZE(keys); i++)
		json_object_set(o, keys[i],
				json_object_get(res->meta, keys[i]));
	text = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER |
				     JSON_REAL_PRECISION(6));
	json_decref(o);
	return text;
}

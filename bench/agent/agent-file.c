// SPDX-License-Identifier: GPL-2.0-only
/*
 * file.read and file.remove: how a controller that does not share the
 * host's disk takes a trial's artifacts home, then clears them. Both
 * reach only below the artifact root (bench/agent/agent-file.h), whatever
 * path they are given: the agent runs as root, and must not become a
 * way to read /etc/shadow or to delete anything else.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base64.h"
#include "bench/agent/agent-file.h"
#include "bench/agent/agent.h"
#include "errmsg.h"
#include "util.h"

/* Deeper than any collector writes; bounds the fds a removal holds. */
/* Deep enough for a kernel's modules tree, which kernel.install removes. */
#define REMOVE_MAX_DEPTH 32

bool agent_file__name_is_safe(const char *name)
{
	return name_is_safe(name) && name[0] != '.' && !strstr(name, "..");
}

static const char *tmp_base(void)
{
	const char *t = getenv("TMPDIR");

	return t && t[0] == '/' ? t : "/tmp";
}

int agent_file__check_private(const char *verb, const char *what,
			      const char *dir, char **err)
{
	struct stat sb;

	if (lstat(dir, &sb))
		return errmsg__set(err, -errno, "%s: %s%s: %s", verb, what, dir,
				   strerror(errno));
	if (!S_ISDIR(sb.st_mode))
		return errmsg__set(err, -ENOTDIR,
				   "%s: %s%s is not a directory (a symlink?); "
				   "refusing it",
				   verb, what, dir);
	if (sb.st_uid != geteuid() || (sb.st_mode & 022))
		return errmsg__set(
			err, -EACCES,
			"%s: %s%s belongs to uid %u or is writable by "
			"others (mode %03o); refusing it",
			verb, what, dir, (unsigned int)sb.st_uid,
			(unsigned int)(sb.st_mode & 0777));
	return 0;
}

/* @dir made 0700 where @create asks, and checked to be ours alone. */
static int private_dir(const char *verb, const char *dir, bool create,
		       char **err)
{
	if (create && mkdir(dir, 0700) && errno != EEXIST)
		return errmsg__set(err, -errno, "%s: cannot create %s: %s",
				   verb, dir, strerror(errno));
	return agent_file__check_private(verb, "artifact folder ", dir, err);
}

/* @path with every link resolved into @real (PATH_MAX bytes). */
static int real_path(const char *verb, const char *path, char *real, char **err)
{
	if (!realpath(path, real))
		return errmsg__set(err, -errno, "%s: %s: %s", verb, path,
				   strerror(errno));
	return 0;
}

int agent_file__root(const char *verb, bool create, char **out, char **err)
{
	char *dir = xasprintf("%s/%s", tmp_base(), ARTIFACT_DIR_NAME);
	char real[PATH_MAX];
	int ret;

	ret = private_dir(verb, dir, create, err);
	if (ret)
		goto out;
	ret = real_path(verb, dir, real, err);
	if (ret)
		goto out;
	*out = xstrdup(real);
out:
	free(dir);
	return ret;
}

int agent_file__outdir(const char *verb, const char *name, char **out,
		       char **err)
{
	char *root = NULL, *dir = NULL;
	int ret;

	if (!agent_file__name_is_safe(name))
		return errmsg__set(err, -EINVAL,
				   "%s: bad artifact folder name '%s' "
				   "(expected [A-Za-z0-9._-], no '..', not "
				   "starting with '.' or '-')",
				   verb, name);
	ret = agent_file__root(verb, true, &root, err);
	if (ret)
		return ret;
	dir = xasprintf("%s/%s", root, name);
	ret = private_dir(verb, dir, true, err);
	if (ret)
		goto out;
	*out = dir;
	dir = NULL;
out:
	free(dir);
	free(root);
	return ret;
}

int agent_file__resolve(const char *verb, const char *path, char **out,
			char **err)
{
	char real[PATH_MAX], *root = NULL;
	size_t n;
	int ret;

	if (!path || path[0] != '/')
		return errmsg__set(
			err, -EINVAL,
			"%s: \"path\" must be an absolute path under "
			"the artifact folder",
			verb);
	ret = agent_file__root(verb, false, &root, err);
	if (ret)
		return ret;
	ret = real_path(verb, path, real, err);
	if (ret)
		goto out;
	n = strlen(root);
	if (strncmp(real, root, n) || real[n] != '/') {
		ret = errmsg__set(err, -EACCES,
				  "%s: %s is not under the artifact folder %s; "
				  "the agent reads and removes nothing else",
				  verb, path, root);
		goto out;
	}
	*out = xstrdup(real);
out:
	free(root);
	return ret;
}

static int json_offset(json_t *args, const char *key, json_int_t dflt,
		       json_int_t *v)
{
	json_t *j = json_object_get(args, key);

	if (!j || json_is_null(j)) {
		*v = dflt;
		return 0;
	}
	if (!json_is_integer(j) || json_integer_value(j) < 0)
		return -EINVAL;
	*v = json_integer_value(j);
	return 0;
}

static ssize_t pread_full(int fd, char *buf, size_t len, off_t off)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = pread(fd, buf + got, len - got, off + (off_t)got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

int agent_verb__file_read(struct agent *a, json_t *args, json_t **res,
			  char **err)
{
	const char *path = json_string_value(json_object_get(args, "path"));
	json_int_t off, len;
	char *real = NULL, *buf = NULL, *b64;
	struct stat sb;
	ssize_t n;
	int fd = -1, ret;

	(void)a;
	if (json_offset(args, "offset", 0, &off) ||
	    json_offset(args, "length", AGENT_FILE_READ_MAX, &len))
		return errmsg__set(err, -EINVAL,
				   "file.read: \"offset\" and \"length\" must "
				   "be integers >= 0");
	if (len > AGENT_FILE_READ_MAX)
		len = AGENT_FILE_READ_MAX;
	ret = agent_file__resolve("file.read", path, &real, err);
	if (ret)
		return ret;
	/* O_NONBLOCK: a FIFO planted there must not hang the agent. */
	fd = open(real,
		  O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &sb)) {
		ret = errmsg__set(err, -errno, "file.read: %s: %s", real,
				  strerror(errno));
		goto out;
	}
	if (!S_ISREG(sb.st_mode)) {
		ret = errmsg__set(err, S_ISDIR(sb.st_mode) ? -EISDIR : -EINVAL,
				  "file.read: %s is not a regular file", real);
		goto out;
	}
	if (off > sb.st_size)
		off = sb.st_size;
	buf = xmalloc(len ? (size_t)len : 1);
	n = pread_full(fd, buf, (size_t)len, (off_t)off);
	if (n < 0) {
		ret = errmsg__set(err, (int)n, "file.read: %s: %s", real,
				  strerror((int)-n));
		goto out;
	}
	b64 = base64__encode(buf, (size_t)n);
	*res = json_pack("{s:s, s:b, s:I}", "data", b64, "eof",
			 off + n >= sb.st_size, "size", (json_int_t)sb.st_size);
	free(b64);
	if (!*res)
		ret = -ENOMEM;
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	free(real);
	return ret;
}

/*
 * Everything in the directory @fd, depth first, by names relative to
 * an fd: nothing is followed, so a symlink inside is removed, never
 * what it points to, and no path is looked up twice.
 */
static int remove_in(int fd, int depth, long *count)
{
	DIR *d = fdopendir(fd);
	struct dirent *e = NULL;
	int ret = 0;

	if (!d) {
		ret = -errno;
		close(fd);
		return ret;
	}
	while (!ret && (errno = 0, e = readdir(d))) {
		int sub;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (!unlinkat(fd, e->d_name, 0)) {
			(*count)++;
			continue;
		}
		if (errno == ENOENT)
			continue;
		if (errno != EISDIR && errno != EPERM) {
			ret = -errno;
			break;
		}
		if (depth >= REMOVE_MAX_DEPTH) {
			ret = -ELOOP;
			break;
		}
		sub = openat(fd, e->d_name,
			     O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0) {
			ret = -errno;
			break;
		}
		ret = remove_in(sub, depth + 1, count);
		if (!ret && unlinkat(fd, e->d_name, AT_REMOVEDIR))
			ret = -errno;
		if (!ret)
			(*count)++;
	}
	if (!ret && !e && errno)
		ret = -errno;
	closedir(d);
	return ret;
}

int agent_file__remove_tree(const char *path, long *entries)
{
	long count = 0;
	struct stat sb;
	int fd, ret;

	if (entries)
		*entries = 0;
	if (lstat(path, &sb))
		return errno == ENOENT ? 0 : -errno;
	if (S_ISDIR(sb.st_mode)) {
		fd = open(path,
			  O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		ret = fd < 0 ? -errno : remove_in(fd, 0, &count);
		if (!ret && rmdir(path))
			ret = -errno;
	} else {
		ret = unlink(path) && errno != ENOENT ? -errno : 0;
	}
	if (!ret && entries)
		*entries = count + 1;
	return ret;
}

int agent_verb__file_remove(struct agent *a, json_t *args, json_t **res,
			    char **err)
{
	const char *path = json_string_value(json_object_get(args, "path"));
	char *real = NULL;
	long count = 0;
	struct stat sb;
	int ret;

	(void)a;
	ret = agent_file__resolve("file.remove", path, &real, err);
	if (ret)
		return ret;
	/* A missing one is an error here: the caller named it. */
	if (lstat(real, &sb)) {
		ret = errmsg__set(err, -errno, "file.remove: %s: %s", real,
				  strerror(errno));
		goto out;
	}
	ret = agent_file__remove_tree(real, &count);
	if (ret) {
		ret = errmsg__set(err, ret, "file.remove: %s: %s", real,
				  strerror(-ret));
		goto out;
	}
	*res = json_pack("{s:s, s:I}", "removed", real, "entries",
			 (json_int_t)count);
out:
	free(real);
	return ret;
}

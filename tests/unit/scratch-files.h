/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Files in a unit test's scratch folder: one written, one compared with
 * what it should hold, a name looked for, a tool run on them; and the
 * folder itself, made before the first test and removed after the last.
 */
#ifndef IOMMU_BENCH_TESTS_SCRATCH_FILES_H
#define IOMMU_BENCH_TESTS_SCRATCH_FILES_H

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/host/host-priv.h"
#include "log.h"
#include "tap.h"
#include "util.h"

/* @len bytes of @buf as the whole of @path, made with @mode: 0 or -errno. */
static inline int scratch__write(const char *path, const void *buf, size_t len,
				 mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
	int ret;

	if (fd < 0)
		return -errno;
	ret = write_all(fd, buf, len);
	close(fd);
	return ret;
}

static inline int scratch__write_text(const char *path, const char *text)
{
	return scratch__write(path, text, strlen(text), 0644);
}

/* @path and every folder above it that is not there yet (mkdir -p). */
static inline void scratch__mkdir_p(const char *path)
{
	char *p = xstrdup(path), *s;

	for (s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
	mkdir(p, 0755);
	free(p);
}

/* The folder @path will be in, made as scratch__mkdir_p() does. */
static inline void scratch__parent_dir(const char *path)
{
	char *p = xstrdup(path);

	*strrchr(p, '/') = '\0';
	scratch__mkdir_p(p);
	free(p);
}

/* @text as the whole of @path, its folders made first: 0 or -errno. */
static inline int scratch__put(const char *path, const char *text)
{
	scratch__parent_dir(path);
	return scratch__write_text(path, text);
}

/* Whether @path holds exactly @len bytes of @buf. */
static inline bool scratch__same(const char *path, const void *buf, size_t len)
{
	char *got = NULL;
	size_t n = 0;
	bool same;

	if (read_file(path, &got, &n))
		return false;
	same = n == len && !memcmp(got, buf, len);
	free(got);
	return same;
}

/* The text of the file @path, "" when there is none: a new string. */
static inline char *scratch__text(const char *path)
{
	char *s = NULL;
	size_t n;

	if (read_file(path, &s, &n))
		return xstrdup("");
	return s;
}

/* Whether there is anything named @path, a dangling link included. */
static inline bool scratch__exists(const char *path)
{
	struct stat sb;

	return !lstat(path, &sb);
}

/* @text into the file at the path @fmt names, its folders made. */
static inline int __attribute__((format(printf, 2, 3)))
scratch__put_at(const char *text, const char *fmt, ...)
{
	va_list ap;
	char *path;
	int ret;

	va_start(ap, fmt);
	path = xvasprintf(fmt, ap);
	va_end(ap);
	ret = scratch__put(path, text);
	free(path);
	return ret;
}

/* Whether there is anything at the path @fmt names. */
static inline bool __attribute__((format(printf, 1, 2)))
scratch__there(const char *fmt, ...)
{
	va_list ap;
	char *path;
	bool there;

	va_start(ap, fmt);
	path = xvasprintf(fmt, ap);
	va_end(ap);
	there = scratch__exists(path);
	free(path);
	return there;
}

/* Run @argv; 0 when it exited 0, its stdout in *@out (may be NULL). */
static inline int scratch__run(const char *const *argv, char **out)
{
	char *err = NULL;
	int ret;

	ret = host__cmd(argv, 60000, out, &err, NULL);
	if (ret)
		tap_diag("%s", err ? err : argv[0]);
	free(err);
	return ret;
}

/* Whether this host has @tool in its PATH. */
static inline bool scratch__have(const char *tool)
{
	const char *argv[] = { "sh", "-c", "command -v \"$0\" >/dev/null", tool,
			       NULL };

	return !host__cmd(argv, 10000, NULL, NULL, NULL);
}

/* $@name as it is now, a copy for scratch__env_restore() (NULL: unset). */
static inline char *scratch__env_save(const char *name)
{
	const char *v = getenv(name);

	return v ? xstrdup(v) : NULL;
}

/* $@name back as scratch__env_save() found it; @saved is freed. */
static inline void scratch__env_restore(const char *name, char *saved)
{
	if (saved)
		setenv(name, saved, 1);
	else
		unsetenv(name);
	free(saved);
}

/* @dir and everything a test left in it gone. */
static inline void scratch__remove(const char *dir)
{
	const char *argv[] = { "rm", "-rf", dir, NULL };

	host__cmd(argv, 60000, NULL, NULL, NULL);
}

/*
 * The folder @tmpl names (its XXXXXX filled in), or the whole test
 * skipped; and the library's logs quiet but for errors, which the tests
 * provoke on purpose.
 */
static inline void scratch__begin(char *tmpl)
{
	if (!mkdtemp(tmpl))
		tap_skip_all("cannot create a scratch folder");
	log_verbosity = LOG_ERR;
}

/* The folder and all the tests left in it gone; then the TAP plan. */
static inline int scratch__end(const char *dir)
{
	scratch__remove(dir);
	return tap_done();
}

#endif /* IOMMU_BENCH_TESTS_SCRATCH_FILES_H */

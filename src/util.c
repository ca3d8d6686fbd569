// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "util.h"

static void __attribute__((noreturn)) oom(size_t size)
{
	pr_err("out of memory allocating %zu bytes", size);
	exit(EXIT_WORK_FAILED);
}

void *xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (!p)
		oom(size);
	return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);

	if (!p)
		oom(nmemb * size);
	return p;
}

void *xrealloc(void *ptr, size_t size)
{
	void *p = realloc(ptr, size ? size : 1);

	if (!p)
		oom(size);
	return p;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		oom(strlen(s) + 1);
	return p;
}

char *xstrndup(const char *s, size_t n)
{
	char *p = strndup(s, n);

	if (!p)
		oom(n + 1);
	return p;
}

char *xvasprintf(const char *fmt, va_list ap)
{
	char *p;

	if (vasprintf(&p, fmt, ap) < 0)
		oom(strlen(fmt));
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *p;

	va_start(ap, fmt);
	p = xvasprintf(fmt, ap);
	va_end(ap);
	return p;
}

char *path_stem(const char *path, const char *suffix)
{
	const char *base = strrchr(path, '/');
	size_t len, slen = strlen(suffix);

	base = base ? base + 1 : path;
	len = strlen(base);
	if (len > slen && !strcmp(base + len - slen, suffix))
		len -= slen;
	return xstrndup(base, len);
}

int write_all_wait(int fd, const void *buf, size_t len, int (*wait)(void *arg),
		   void *arg)
{
	const char *p = buf;
	int ret;

	while (len) {
		ssize_t n;

		if (wait) {
			ret = wait(arg);
			if (ret)
				return ret;
		}
		n = write(fd, p, len);
		if (n < 0 && (errno == EINTR || (wait && errno == EAGAIN)))
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			return -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int write_all(int fd, const void *buf, size_t len)
{
	return write_all_wait(fd, buf, len, NULL, NULL);
}

const void *table__find(const void *table, size_t nr, size_t stride, size_t off,
			const char *name)
{
	const char *entry = table, *key;
	size_t i;

	for (i = 0; i < nr; i++, entry += stride) {
		key = *(const char *const *)(entry + off);
		if (!key)
			break;
		if (!strcmp(key, name))
			return entry;
	}
	return NULL;
}

ssize_t read_retry(int fd, void *buf, size_t len)
{
	ssize_t n;

	do
		n = read(fd, buf, len);
	while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : n;
}

int read_file(const char *path, char **bufp, size_t *lenp)
{
	size_t len = 0, alloc = 0;
	char *buf = NULL;
	int fd, err = 0;
	ssize_t n;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		ALLOC_GROW(buf, len + 4096 + 1, alloc);
		n = read_retry(fd, buf + len, alloc - len - 1);
		if (n < 0) {
			err = (int)n;
			goto out;
		}
		if (!n)
			break;
		len += n;
	}
	buf[len] = '\0';
	*bufp = buf;
	*lenp = len;
	buf = NULL;
out:
	free(buf);
	close(fd);
	return err;
}

void hex_encode(const void *data, size_t len, char *out)
{
	static const char hex[] = "0123456789abcdef";
	const uint8_t *p = data;
	size_t i;

	for (i = 0; i < len; i++) {
		out[2 * i] = hex[p[i] >> 4];
		out[2 * i + 1] = hex[p[i] & 15];
	}
	out[2 * len] = '\0';
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int hex_decode(const char *s, size_t len, void *out)
{
	uint8_t *p = out;
	size_t i;
	int hi, lo;

	for (i = 0; i < len; i++) {
		hi = hex_digit(s[2 * i]);
		lo = hi < 0 ? -1 : hex_digit(s[2 * i + 1]);
		if (lo < 0)
			return -EINVAL;
		p[i] = (uint8_t)(hi << 4 | lo);
	}
	return 0;
}

bool memeq_ct(const void *a, const void *b, size_t len)
{
	const volatile uint8_t *x = a, *y = b;
	uint8_t d = 0;
	size_t i;

	for (i = 0; i < len; i++)
		d |= x[i] ^ y[i];
	return !d;
}

bool name_is_safe(const char *name)
{
	size_t i, len = strlen(name);

	/*
	 * A leading '-' would turn a name into an option of whatever
	 * command it reaches (ssh -oProxyCommand=...).
	 */
	if (!len || len > 64 || name[0] == '-' || !strcmp(name, ".") ||
	    !strcmp(name, ".."))
		return false;
	for (i = 0; i < len; i++) {
		char c = name[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '.' || c == '_' ||
		      c == '-'))
			return false;
	}
	return true;
}

const char *self_exe(void)
{
	static char path[PATH_MAX];
	const char *env = getenv("IOMMU_BENCH");
	ssize_t n;

	/*
	 * Under make check the binary under test is named by the
	 * environment, and a unit test's own /proc/self/exe is the test,
	 * which has no agent in it.
	 */
	if (env && *env)
		return env;
	if (path[0])
		return path;
	n = readlink("/proc/self/exe", path, sizeof(path) - 1);
	if (n <= 0)
		return "/proc/self/exe";
	path[n] = '\0';
	/*
	 * Rebuilt or reinstalled while a run goes on: the new binary at the
	 * same path serves (hello checks its protocol), else this very one.
	 */
	if (n > 10 && !strcmp(path + n - 10, " (deleted)")) {
		path[n - 10] = '\0';
		if (access(path, X_OK)) {
			path[0] = '\0';
			return "/proc/self/exe";
		}
	}
	return path;
}

char *path__which(const char *prog)
{
	const char *path = getenv("PATH");
	char *dirs, *d, *save = NULL, *f = NULL;
	struct stat sb;

	dirs = xstrdup(path ? path :
			      "/usr/local/sbin:/usr/local/bin:"
			      "/usr/sbin:/usr/bin:/sbin:/bin");
	for (d = strtok_r(dirs, ":", &save); d;
	     d = strtok_r(NULL, ":", &save)) {
		/* A relative entry would run whatever the cwd holds. */
		if (d[0] != '/')
			continue;
		f = xasprintf("%s/%s", d, prog);
		if (!stat(f, &sb) && S_ISREG(sb.st_mode) && !access(f, X_OK))
			break;
		free(f);
		f = NULL;
	}
	free(dirs);
	return f;
}

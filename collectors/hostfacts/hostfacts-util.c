// SPDX-License-Identifier: GPL-2.0-only
/* File reading under a root prefix, string vectors and JSON helpers. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collectors/hostfacts/hostfacts-priv.h"
#include "util.h"

bool hf_root_is_real(const char *root)
{
	char *real;
	bool is;

	if (!root || !strcmp(root, "/"))
		return true;
	real = realpath(root, NULL);
	is = real && !strcmp(real, "/");
	free(real);
	return is;
}

static char *hf_vpath(const char *root, const char *fmt, va_list ap)
{
	size_t rlen = root ? strlen(root) : 0;
	char *rel, *p;

	/* "/" and "dir/" must not double the slash of the absolute part. */
	while (rlen && root[rlen - 1] == '/')
		rlen--;
	rel = xvasprintf(fmt, ap);
	p = xasprintf("%.*s%s", (int)rlen, rlen ? root : "", rel);
	free(rel);
	return p;
}

char *hf_path(const char *root, const char *fmt, ...)
{
	va_list ap;
	char *p;

	va_start(ap, fmt);
	p = hf_vpath(root, fmt, ap);
	va_end(ap);
	return p;
}

static int hf_vread_str(char **out, const char *root, const char *fmt,
			va_list ap)
{
	char *path = hf_vpath(root, fmt, ap), *buf;
	size_t len;
	int err;

	err = read_file(path, &buf, &len);
	free(path);
	if (err)
		return err;
	/* sysfs files hold no NUL; a fake one might: stop there. */
	len = strlen(buf);
	while (len && (buf[len - 1] == '\n' || buf[len - 1] == ' ' ||
		       buf[len - 1] == '\t' || buf[len - 1] == '\r'))
		buf[--len] = '\0';
	*out = buf;
	return 0;
}

int hf_read_str(char **out, const char *root, const char *fmt, ...)
{
	va_list ap;
	int err;

	va_start(ap, fmt);
	err = hf_vread_str(out, root, fmt, ap);
	va_end(ap);
	return err;
}

int hf_read_long(long *out, const char *root, const char *fmt, ...)
{
	char *s, *end;
	va_list ap;
	int err;
	long v;

	va_start(ap, fmt);
	err = hf_vread_str(&s, root, fmt, ap);
	va_end(ap);
	if (err)
		return err;
	errno = 0;
	v = strtol(s, &end, 0);
	if (errno || end == s || *end)
		err = -EINVAL;
	else
		*out = v;
	free(s);
	return err;
}

bool hf_exists(const char *root, const char *fmt, ...)
{
	struct stat sb;
	va_list ap;
	char *path;
	bool ok;

	va_start(ap, fmt);
	path = hf_vpath(root, fmt, ap);
	va_end(ap);
	ok = !stat(path, &sb);
	free(path);
	return ok;
}

char *hf_link_base(const char *root, const char *fmt, ...)
{
	char target[PATH_MAX], *slash;
	va_list ap;
	char *path;
	ssize_t n;

	va_start(ap, fmt);
	path = hf_vpath(root, fmt, ap);
	va_end(ap);
	n = readlink(path, target, sizeof(target) - 1);
	free(path);
	if (n <= 0)
		return NULL;
	target[n] = '\0';
	while (n > 1 && target[n - 1] == '/')
		target[--n] = '\0';
	slash = strrchr(target, '/');
	return xstrdup(slash ? slash + 1 : target);
}

static int hf_name_cmp(const void *a, const void *b)
{
	/* Natural order: group 10 after group 9, rx-10 after rx-9. */
	return strverscmp(*(char *const *)a, *(char *const *)b);
}

int hf_list_dir(char ***names, size_t *nr, const char *prefix, const char *root,
		const char *fmt, ...)
{
	struct strvec sv = { 0 };
	struct dirent *de;
	va_list ap;
	char *path;
	DIR *dir;

	va_start(ap, fmt);
	path = hf_vpath(root, fmt, ap);
	va_end(ap);
	dir = opendir(path);
	free(path);
	if (!dir)
		return -errno;
	while ((de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		if (prefix && strncmp(de->d_name, prefix, strlen(prefix)))
			continue;
		strvec__push(&sv, de->d_name);
	}
	closedir(dir);
	if (sv.nr)
		qsort(sv.v, sv.nr, sizeof(*sv.v), hf_name_cmp);
	*names = sv.v;
	*nr = sv.nr;
	return 0;
}

unsigned int hf_cpulist_count(const char *list)
{
	unsigned long a, b, n = 0;
	const char *p = list;
	char *end;

	while (*p) {
		a = strtoul(p, &end, 10);
		if (end == p)
			return 0;
		b = a;
		p = end;
		if (*p == '-') {
			b = strtoul(p + 1, &end, 10);
			if (end == p + 1 || b < a)
				return 0;
			p = end;
		}
		n += b - a + 1;
		if (*p == ',')
			p++;
		else if (*p)
			return 0;
	}
	return n > UINT_MAX ? 0 : (unsigned int)n;
}

json_t *hf_json_int_or_null(long long v)
{
	return v < 0 ? json_null() : json_integer(v);
}

void hf_warn_err(struct strvec *warn, const char *what, int err)
{
	if (err)
		strvec__pushf(warn, "%s: %s", what, strerror(-err));
}

char **hf_str_at(const void *base, const struct hf_str_field *f)
{
	return (char **)((const char *)base + f->off);
}

void hf_str_fields_free(void *base, const struct hf_str_field *f, size_t nr)
{
	for (; nr--; f++)
		free(*hf_str_at(base, f));
}

void hf_str_fields_json(json_t *o, const void *base,
			const struct hf_str_field *f, size_t nr)
{
	for (; nr--; f++)
		json_object_set_new(o, f->name,
				    json_string_or_null(*hf_str_at(base, f)));
}

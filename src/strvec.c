// SPDX-License-Identifier: GPL-2.0-only
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "strvec.h"
#include "util.h"

void strvec__push_nodup(struct strvec *sv, char *s)
{
	ALLOC_GROW(sv->v, sv->nr + 2, sv->alloc);
	sv->v[sv->nr++] = s;
	sv->v[sv->nr] = NULL;
}

void strvec__push(struct strvec *sv, const char *s)
{
	strvec__push_nodup(sv, xstrdup(s));
}

void strvec__pushf(struct strvec *sv, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	strvec__push_nodup(sv, s);
}

bool strvec__contains(const struct strvec *sv, const char *s)
{
	size_t i;

	for (i = 0; i < sv->nr; i++)
		if (!strcmp(sv->v[i], s))
			return true;
	return false;
}

void strvec__push_distinct(struct strvec *sv, char *s)
{
	if (strvec__contains(sv, s))
		free(s);
	else
		strvec__push_nodup(sv, s);
}

const char *const *strvec__argv(const struct strvec *sv)
{
	static const char *const empty[] = { NULL };

	return sv->v ? (const char *const *)sv->v : empty;
}

char *strvec__join(const struct strvec *sv, const char *sep)
{
	size_t i, len = 1, slen = strlen(sep);
	char *s, *p;

	for (i = 0; i < sv->nr; i++)
		len += strlen(sv->v[i]) + (i ? slen : 0);
	p = s = xmalloc(len);
	for (i = 0; i < sv->nr; i++) {
		if (i)
			p = stpcpy(p, sep);
		p = stpcpy(p, sv->v[i]);
	}
	*p = '\0';
	return s;
}

void strvec__release(struct strvec *sv)
{
	strv_free(sv->v, sv->nr);
	memset(sv, 0, sizeof(*sv));
}

void strv_free(char **v, size_t nr)
{
	size_t i;

	if (!v)
		return;
	for (i = 0; i < nr; i++)
		free(v[i]);
	free(v);
}

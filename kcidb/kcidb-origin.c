// SPDX-License-Identifier: GPL-2.0-only
/*
 * The submitter's name, which prefixes every id: KCIDB takes
 * [a-z0-9_]+ only, so "iommu-bench" is refused before anything is read
 * or written, with the name it would take instead.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "kcidb/kcidb.h"
#include "util.h"

static bool origin_char(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') ||
	       ch == '_';
}

/* Lower case, and '_' for a dash or anything else KCIDB refuses. */
static char *origin_suggest(const char *origin)
{
	char *s = xstrdup(origin);
	size_t i;

	for (i = 0; s[i]; i++) {
		s[i] = (char)tolower((unsigned char)s[i]);
		if (!origin_char(s[i]))
			s[i] = '_';
	}
	return s;
}

int kcidb__origin_check(const char *origin, char **err)
{
	char *best;
	size_t i;
	int ret;

	if (!origin || !*origin)
		return errmsg__set(err, -EINVAL,
				   "an empty origin: KCIDB wants the "
				   "submitter's name, [a-z0-9_]+");
	for (i = 0; origin[i] && origin_char(origin[i]); i++)
		;
	if (!origin[i])
		return 0;
	best = origin_suggest(origin);
	ret = errmsg__set(err, -EINVAL,
			  "origin '%s': KCIDB takes lower-case letters, "
			  "digits and underscores only ([a-z0-9_]+); "
			  "did you mean '%s'?",
			  origin, best);
	free(best);
	return ret;
}

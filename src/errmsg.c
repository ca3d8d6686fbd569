// SPDX-License-Identifier: GPL-2.0-only
#include <stdarg.h>
#include <stdlib.h>

#include "errmsg.h"
#include "util.h"

int errmsg__set(char **err, int ret, const char *fmt, ...)
{
	va_list ap;
	char *words;

	if (!err)
		return ret;
	va_start(ap, fmt);
	words = xvasprintf(fmt, ap);
	va_end(ap);
	free(*err);
	*err = words;
	return ret;
}

int errmsg__move(char **err, int ret, char *words)
{
	if (!err) {
		free(words);
		return ret;
	}
	free(*err);
	*err = words;
	return ret;
}

void errmsg__clear(char **err)
{
	if (!err)
		return;
	free(*err);
	*err = NULL;
}

void errmsg__reset(char **err)
{
	if (err)
		*err = NULL;
}

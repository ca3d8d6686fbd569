// SPDX-License-Identifier: GPL-2.0-only
#include <stdarg.h>
#include <stdlib.h>

#include "errmsg.h"
#include "util.h"

int errmsg__set(char **err, int ret, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return ret;
	free(*err);
	va_start(ap, fmt);
	*err = xvasprintf(fmt, ap);
	va_end(ap);
	return ret;
}

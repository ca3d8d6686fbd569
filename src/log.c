// SPDX-License-Identifier: GPL-2.0-only
#include <stdarg.h>
#include <stdio.h>

#include "log.h"

/* Errors and warnings always; -v adds info, -vv debug. */
int log_verbosity = LOG_WARN;

static const char *const prefix[] = {
	[LOG_ERR] = "error: ",
	[LOG_WARN] = "warning: ",
	[LOG_INFO] = "",
	[LOG_DEBUG] = "debug: ",
};

void pr_msg(int level, const char *fmt, ...)
{
	va_list ap;

	if (level > log_verbosity)
		return;
	fprintf(stderr, "iommu-bench: %s", prefix[level]);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

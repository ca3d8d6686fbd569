// SPDX-License-Identifier: GPL-2.0-only
#include <stdio.h>

#include "output.h"

void output__json(json_t *o)
{
	json_dumpf(o, stdout,
		   JSON_INDENT(2) | JSON_PRESERVE_ORDER |
			   JSON_REAL_PRECISION(6));
	putchar('\n');
	json_decref(o);
}

void output__path(const char *dir, bool json)
{
	if (json)
		output__json(json_pack("{s:s}", "path", dir));
	else
		printf("%s\n", dir);
}

// SPDX-License-Identifier: GPL-2.0-only
#include <string.h>

#include "kernel-target.h"

bool kernel_target__is_config(const char *config)
{
	static const char *const targets[] = {
		"defconfig",	"tinyconfig",	"allnoconfig", "alldefconfig",
		"allmodconfig", "allyesconfig", NULL,
	};
	static const char suffix[] = "_defconfig";
	size_t i, len = strlen(config), slen = strlen(suffix);

	for (i = 0; targets[i]; i++)
		if (!strcmp(config, targets[i]))
			return true;
	/* x86_64_defconfig, multi_v7_defconfig: arch/.../configs/NAME. */
	return len > slen && !strcmp(config + len - slen, suffix) &&
	       strspn(config, "abcdefghijklmnopqrstuvwxyz0123456789_") == len;
}

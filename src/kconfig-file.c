// SPDX-License-Identifier: GPL-2.0-only
/*
 * One option of a kernel's .config file, read line by line: a distro's
 * config is 10,000 lines and one answer needs no table of them.
 */
#include <errno.h>
#include <string.h>
#include <zlib.h>

#include "kconfig-file.h"
#include "util.h"

int kconfig_file__value(const char *path, const char *name, char **val)
{
	size_t n = strlen(name);
	char line[4096];
	gzFile gz;

	*val = NULL;
	/* gzread passes an uncompressed file through unchanged. */
	errno = 0;
	gz = gzopen(path, "rb");
	if (!gz)
		return errno ? -errno : -ENOMEM;
	while (!*val && gzgets(gz, line, sizeof(line))) {
		if (!strncmp(line, name, n) && line[n] == '=')
			*val = xstrndup(line + n + 1,
					strcspn(line + n + 1, "\r\n"));
		else if (!strncmp(line, "# ", 2) &&
			 !strncmp(line + 2, name, n) &&
			 !strncmp(line + 2 + n, " is not set", 11))
			*val = xstrdup("n");
	}
	gzclose(gz);
	return 0;
}

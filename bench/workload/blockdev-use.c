// SPDX-License-Identifier: GPL-2.0-only
/*
 * A block device in use, from the kernel's own tables: /proc/self/mounts
 * and /proc/swaps name it or a partition of it, or sysfs lists a holder.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/workload/blockdev-use.h"
#include "util.h"

bool blockdev__is_partition_of(const char *part, const char *disk)
{
	size_t n = strlen(disk);
	const char *p = part + n;

	if (strncmp(part, disk, n) || !*p)
		return false;
	if (*p == 'p')
		p++;
	if (!*p)
		return false;
	for (; *p; p++)
		if (*p < '0' || *p > '9')
			return false;
	return true;
}

/* A mount (or swap) on the device or one of its partitions. */
static const char *mounted(const char *root, const char *name, char *why,
			   size_t size)
{
	static const char *const tables[] = { "/proc/self/mounts",
					      "/proc/swaps" };
	char path[300], *buf, *line, *save = NULL, src[256];
	size_t i, len;

	for (i = 0; i < ARRAY_SIZE(tables); i++) {
		snprintf(path, sizeof(path), "%s%s", root, tables[i]);
		if (read_file(path, &buf, &len) < 0)
			continue;
		for (line = strtok_r(buf, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save)) {
			if (sscanf(line, "%255s", src) != 1 ||
			    strncmp(src, "/dev/", 5))
				continue;
			if (strcmp(src + 5, name) &&
			    !blockdev__is_partition_of(src + 5, name))
				continue;
			snprintf(why, size, "%s is %s (%s)", src,
				 i ? "a swap area" : "mounted", line);
			free(buf);
			return why;
		}
		free(buf);
	}
	return NULL;
}

/* The first holder of the device, as sysfs lists them. */
static const char *held(const char *root, const char *name, char *why,
			size_t size)
{
	char path[300];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "%s/sys/block/%s/holders", root, name);
	d = opendir(path);
	if (!d)
		return NULL;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			break;
	if (de)
		snprintf(why, size, "it is in use by %s (%s)", de->d_name,
			 path + strlen(root));
	closedir(d);
	return de ? why : NULL;
}

const char *blockdev__in_use(const char *root, const char *name, char *why,
			     size_t size)
{
	const char *w = mounted(root, name, why, size);

	return w ? w : held(root, name, why, size);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * The benchmark's words: its directions by name, a device by its PCI
 * address. The address becomes a path on the host, so it is read
 * strictly: nothing but DDDD:BB:DD.F.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dma-map-opts.h"
#include "errmsg.h"
#include "kconfig-file.h"
#include "util.h"

static const char *const dir_names[] = {
	[DMA_MAP_DIR_BIDIRECTIONAL] = "bidirectional",
	[DMA_MAP_DIR_TO_DEVICE] = "to_device",
	[DMA_MAP_DIR_FROM_DEVICE] = "from_device",
};

const char *dma_map__dir_name(enum dma_map_dir dir)
{
	if ((unsigned int)dir >= ARRAY_SIZE(dir_names))
		return NULL;
	return dir_names[dir];
}

int dma_map__dir_parse(const char *name, enum dma_map_dir *dir)
{
	size_t i;

	for (i = 0; name && i < ARRAY_SIZE(dir_names); i++)
		if (!strcmp(name, dir_names[i])) {
			*dir = (enum dma_map_dir)i;
			return 0;
		}
	return -EINVAL;
}

static bool hex_run(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	return true;
}

int dma_map__parse_bdf(const char *bdf, char out[DMA_MAP_BDF_SIZE], char **err)
{
	size_t dom = bdf ? strspn(bdf, "0123456789abcdefABCDEF") : 0;
	const char *s = bdf ? bdf + dom : NULL;
	size_t i;

	/*
	 * DOMAIN ":" BB ":" DD "." F, and the end of the string; a device
	 * number up to 1f starts with 0 or 1.
	 */
	if (dom < 4 || dom > 8 || s[0] != ':' || !hex_run(s + 1, 2) ||
	    s[3] != ':' || !hex_run(s + 4, 2) || (s[4] != '0' && s[4] != '1') ||
	    s[6] != '.' || s[7] < '0' || s[7] > '7' || s[8])
		return errmsg__set(err, -EINVAL,
				   "'%s' is not a PCI address DDDD:BB:DD.F "
				   "(hex; device up to 1f, function up to 7)",
				   bdf ? bdf : "(none)");
	for (i = 0; bdf[i]; i++)
		out[i] = (char)tolower((unsigned char)bdf[i]);
	out[i] = '\0';
	return 0;
}

int dma_map__config_check(const char *config, char **err)
{
	char *val = NULL;
	int ret = kconfig_file__value(config, DMA_MAP_CONFIG, &val);

	if (ret)
		ret = errmsg__set(err, ret,
				  "cannot read the kernel's config %s: %s",
				  config, strerror(-ret));
	/* A bool: built in or not at all. */
	else if (!val || strcmp(val, "y"))
		ret = errmsg__set(err, -EOPNOTSUPP, "%s", DMA_MAP_NOT_BUILT);
	free(val);
	return ret;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * Where an unpacked kernel package keeps its image and config: boot/
 * up to Debian 6.x, usr/lib/modules/VER/ from 7.x, where the image
 * comes from linux-binary-VER and the config from linux-base-VER.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bench/testbed/testbed.h"
#include "errmsg.h"
#include "util.h"

/* 7.x ships only after the /usr merge: no unmerged lib/modules. */
#define MODULES_DIR "usr/lib/modules"

static const char *const layout_names[] = {
	[TESTBED_LAYOUT_BOOT] = "boot",
	[TESTBED_LAYOUT_MODULES] = "modules",
};

const char *testbed_layout__name(enum testbed_layout layout)
{
	return layout_names[layout];
}

int testbed_layout__find(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(layout_names); i++)
		if (!strcmp(name, layout_names[i]))
			return i;
	return -1;
}

char *testbed__layout_image(const char *dir, enum testbed_layout layout,
			    const char *release)
{
	return layout == TESTBED_LAYOUT_BOOT ?
		       xasprintf("%s/boot/vmlinuz-%s", dir, release) :
		       xasprintf("%s/" MODULES_DIR "/%s/vmlinuz", dir, release);
}

char *testbed__layout_config(const char *dir, enum testbed_layout layout,
			     const char *release)
{
	return layout == TESTBED_LAYOUT_BOOT ?
		       xasprintf("%s/boot/config-%s", dir, release) :
		       xasprintf("%s/" MODULES_DIR "/%s/config", dir, release);
}

/*
 * The releases with an image in @tree by @layout, counted; the first in
 * *@release.
 */
static int count_images(const char *tree, enum testbed_layout layout,
			char **release)
{
	char *path =
		xasprintf("%s/%s", tree,
			  layout == TESTBED_LAYOUT_BOOT ? "boot" : MODULES_DIR);
	struct dirent *de;
	struct stat sb;
	char *image;
	int n = 0;
	DIR *d;

	d = opendir(path);
	while (d && (de = readdir(d))) {
		if (layout == TESTBED_LAYOUT_BOOT) {
			if (strncmp(de->d_name, "vmlinuz-", 8))
				continue;
			if (!n++)
				*release = xstrdup(de->d_name + 8);
			continue;
		}
		if (de->d_name[0] == '.')
			continue;
		image = testbed__layout_image(tree, layout, de->d_name);
		if (!stat(image, &sb) && S_ISREG(sb.st_mode) && !n++)
			*release = xstrdup(de->d_name);
		free(image);
	}
	if (d)
		closedir(d);
	free(path);
	return n;
}

int testbed__tree_layout(const char *tree, enum testbed_layout *layout,
			 char **release, char **err)
{
	enum testbed_layout l = TESTBED_LAYOUT_BOOT;
	int n;

	n = count_images(tree, l, release);
	if (!n) {
		l = TESTBED_LAYOUT_MODULES;
		n = count_images(tree, l, release);
	}
	if (!n)
		return errmsg__set(err, -ENOENT,
				   "no boot/vmlinuz-* nor " MODULES_DIR
				   "/*/vmlinuz: not a kernel image");
	if (n > 1) {
		free(*release);
		return errmsg__set(err, -EINVAL,
				   "%d kernel images in one package, not one",
				   n);
	}
	if (!testbed__release_is_valid(*release)) {
		errmsg__set(err, 0, "'%.80s' is not a kernel release",
			    *release);
		free(*release);
		return -EINVAL;
	}
	*layout = l;
	return 0;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * What lending a device would take away, even with unbind = true: on a
 * lab machine the PCI function may be the NIC the controller reaches it
 * by, or the controller of its root disk, and unbinding either loses the
 * machine. Whatever the device's driver made of it is in its sysfs
 * folder: network interfaces under "net", disks under "block" (an NVMe
 * namespace, a virtio disk, a SATA disk behind its port). An interface
 * that is up, or a disk mounted, swapped on or held, refuses the loan.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bench/workload/blockdev-use.h"
#include "bench/workload/dma-map-priv.h"
#include "errmsg.h"
#include "util.h"

/* Deep enough for a SATA disk: BDF/ataN/hostN/targetN/N:0:0:0/block. */
#define MAX_DEPTH 6
#define IFF_UP_FLAG 0x1

static int iface_up(const char *root, const char *bdf, const char *ifname,
		    char **err)
{
	char *p = dma_map__path(root, "/sys/class/net/%s/flags", ifname);
	char *text = NULL;
	unsigned long flags;
	size_t len;
	int ret = 0;

	if (!read_file(p, &text, &len) && sscanf(text, "%lx", &flags) == 1 &&
	    (flags & IFF_UP_FLAG))
		ret = errmsg__set(err, -EBUSY,
				  "%s is network interface %s, which is up "
				  "(perhaps the way the controller reaches "
				  "this host): refused even with unbind; "
				  "take it down first (ip link set %s down) "
				  "if it is a spare",
				  bdf, ifname, ifname);
	free_all(p, text);
	return ret;
}

static int disk_used(const char *root, const char *bdf, const char *disk,
		     char **err)
{
	char w[512];

	if (!blockdev__in_use(root, disk, w, sizeof(w)))
		return 0;
	return errmsg__set(err, -EBUSY,
			   "%s holds disk %s, and %s: refused even with "
			   "unbind",
			   bdf, disk, w);
}

/* Each entry of @dir/@kind ("net", "block"), checked as its kind asks. */
static int check_children(const char *root, const char *bdf, const char *dir,
			  const char *kind, char **err)
{
	char *p = xasprintf("%s/%s", dir, kind);
	struct dirent *de;
	DIR *d = opendir(p);
	int ret = 0;

	free(p);
	if (!d)
		return 0;
	while (!ret && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		ret = !strcmp(kind, "net") ?
			      iface_up(root, bdf, de->d_name, err) :
			      disk_used(root, bdf, de->d_name, err);
	}
	closedir(d);
	return ret;
}

/* The device's folder and the ones below it; links are not followed. */
static int walk(const char *root, const char *bdf, const char *dir, int depth,
		char **err)
{
	struct dirent *de;
	struct stat sb;
	DIR *d;
	char *sub;
	int ret;

	ret = check_children(root, bdf, dir, "net", err);
	if (!ret)
		ret = check_children(root, bdf, dir, "block", err);
	if (ret || depth >= MAX_DEPTH)
		return ret;
	d = opendir(dir);
	if (!d)
		return 0;
	while (!ret && (de = readdir(d))) {
		if (de->d_name[0] == '.' || !strcmp(de->d_name, "net") ||
		    !strcmp(de->d_name, "block"))
			continue;
		sub = xasprintf("%s/%s", dir, de->d_name);
		if (!lstat(sub, &sb) && S_ISDIR(sb.st_mode))
			ret = walk(root, bdf, sub, depth + 1, err);
		free(sub);
	}
	closedir(d);
	return ret;
}

int dma_map__in_use(const char *root, const char *bdf, char **err)
{
	char *link = dma_map__path(root, "/sys/bus/pci/devices/%s", bdf);
	char *dir = realpath(link, NULL);
	int ret;

	/* sysfs's bus entry is a link into the device tree. */
	ret = walk(root, bdf, dir ? dir : link, 0, err);
	free_all(link, dir);
	return ret;
}

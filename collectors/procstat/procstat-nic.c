// SPDX-License-Identifier: GPL-2.0-only
/*
 * Which /proc/interrupts lines belong to a NIC. Drivers name their queue
 * vectors after the interface ("eth0-TxRx-3", "i40e-ens5-TxRx-0"), after
 * the device ("virtio2-input.0") or the PCI address
 * ("mlx5_comp0@pci:0000:3b:00.0"); PCI devices also list their vectors
 * in msi_irqs. Any of them identifies a line.
 */
#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collectors/procstat/procstat-priv.h"
#include "log.h"
#include "util.h"

static void read_msi_irqs(struct procstat_nic_info *info, const char *nic)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "/sys/class/net/%s/device/msi_irqs", nic);
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d))) {
		char *end;
		unsigned long irq = strtoul(de->d_name, &end, 10);

		if (!*de->d_name || *end || irq > UINT_MAX)
			continue;
		ALLOC_GROW(info->irqs, info->match.nr_irqs + 1,
			   info->alloc_irqs);
		info->irqs[info->match.nr_irqs++] = irq;
	}
	closedir(d);
}

int procstat__nic_open(const char *nic, struct procstat_nic_info *info)
{
	char path[PATH_MAX], link[PATH_MAX];
	size_t nr_keys = 0;
	ssize_t len;

	memset(info, 0, sizeof(*info));
	if (!name_is_safe(nic)) {
		pr_err("procstat: NIC name '%s' is not valid (expected an "
		       "interface name: [A-Za-z0-9._-], at most 64 bytes)",
		       nic);
		return -EINVAL;
	}
	info->name = xstrdup(nic);
	info->keys[nr_keys++] = xstrdup(nic);
	snprintf(path, sizeof(path), "/sys/class/net/%s/device", nic);
	len = readlink(path, link, sizeof(link) - 1);
	if (len > 0) {
		const char *dev;

		link[len] = '\0';
		dev = basename(link);
		if (*dev && strcmp(dev, nic))
			info->keys[nr_keys++] = xstrdup(dev);
		read_msi_irqs(info, nic);
	} else {
		/* veth, a NIC in another netns's sysfs: names only. */
		pr_debug("procstat: %s has no device in sysfs here", nic);
	}
	info->match.keys = (const char *const *)info->keys;
	info->match.nr_keys = nr_keys;
	info->match.irqs = info->irqs;
	return 0;
}

void procstat__nic_release(struct procstat_nic_info *info)
{
	free_all(info->name, info->keys[0], info->keys[1], info->irqs);
	memset(info, 0, sizeof(*info));
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * The device filter compares dev_name() of the struct device a DMA call
 * names: the PCI address of the device doing DMA. A network interface
 * is resolved to it through sysfs: /sys/class/net/IF/device, then up
 * the device tree to the first PCI address (virtio-net's "device" is a
 * virtio bus device; its DMA goes through the PCI function above it).
 *
 * In the kernel, the program compares the name on a call and then
 * remembers the pointer that matched, so that later calls of the same
 * device cost one comparison (see bpf/probe-bpf.h).
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/bpf/bpf-probes.h"
#include "util.h"

/* "0000:3b:00.0", or "3b:00.0" when @short_ok: hex digits at places. */
static bool is_pci(const char *s, bool short_ok)
{
	const char *full = "hhhh:hh:hh.d", *pat = full;
	size_t i;

	if (short_ok && strlen(s) == strlen(full) - 5)
		pat = full + 5;
	if (strlen(s) != strlen(pat))
		return false;
	for (i = 0; pat[i]; i++) {
		if (pat[i] == 'h' && !isxdigit((unsigned char)s[i]))
			return false;
		if (pat[i] == 'd' && (s[i] < '0' || s[i] > '7'))
			return false;
		if ((pat[i] == ':' || pat[i] == '.') && s[i] != pat[i])
			return false;
	}
	return true;
}

static int filter__from_netdev(struct bpf_filter *f, const char *dev, char *err,
			       size_t errsz)
{
	char *link = xasprintf("/sys/class/net/%s/device", dev);
	char *path = realpath(link, NULL), *base;
	int ret = -ENOENT;

	if (!path) {
		snprintf(err, errsz,
			 "device '%s': neither a PCI address (0000:3b:00.0) "
			 "nor a network interface backed by a device "
			 "(%s: %s)",
			 dev, link, strerror(errno));
		goto out;
	}
	while ((base = strrchr(path, '/')) && base != path) {
		if (is_pci(base + 1, false)) {
			snprintf(f->dev_name, sizeof(f->dev_name), "%s",
				 base + 1);
			f->on = true;
			ret = 0;
			goto out;
		}
		*base = '\0';
	}
	snprintf(err, errsz, "device '%s': no PCI device above %s", dev, link);
out:
	free(path);
	free(link);
	return ret;
}

int bpf_filter__set(struct bpf_filter *f, const char *dev, char *err,
		    size_t errsz)
{
	memset(f, 0, sizeof(*f));
	if (is_pci(dev, true)) {
		size_t i;

		snprintf(f->dev_name, sizeof(f->dev_name), "%s%s",
			 strlen(dev) == 7 ? "0000:" : "", dev);
		/* dev_name() spells PCI addresses in lower case */
		for (i = 0; f->dev_name[i]; i++)
			f->dev_name[i] = tolower((unsigned char)f->dev_name[i]);
		f->on = true;
		return 0;
	}
	if (!name_is_safe(dev) || strlen(dev) > 15) {
		snprintf(err, errsz,
			 "device '%s': expected a PCI address like "
			 "0000:3b:00.0 or a network interface name",
			 dev);
		return -EINVAL;
	}
	return filter__from_netdev(f, dev, err, errsz);
}

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Fake sysfs/procfs trees for the host-facts unit tests: files, absolute
 * symlinks into the same tree (so that readlink and realpath behave as
 * on sysfs), PCI functions in IOMMU groups, a virtio-net NIC and an
 * Intel DMAR host. Included by one test file each; everything static.
 */
#ifndef IOMMU_BENCH_TEST_HOSTFACTS_TREE_H
#define IOMMU_BENCH_TEST_HOSTFACTS_TREE_H

#include <errno.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scratch-files.h"
#include "tap.h"
#include "util.h"

static char tmpdir[] = "/tmp/iommu-bench-test-hostfacts.XXXXXX";

/* @path under @root holds @text. */
static void put(const char *root, const char *path, const char *text)
{
	char *full = xasprintf("%s%s", root, path);

	scratch__put(full, text);
	free(full);
}

/* @dir/@name under @root holds @text. */
static void put_in(const char *root, const char *dir, const char *name,
		   const char *text)
{
	char *full = xasprintf("%s%s/%s", root, dir, name);

	scratch__put(full, text);
	free(full);
}

/* @link under @root points to @target under @root (absolute). */
static void __attribute__((format(printf, 3, 4)))
ln(const char *root, const char *target, const char *fmt, ...)
{
	char *t = xasprintf("%s%s", root, target), *link, *l;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&link, fmt, ap) < 0)
		link = xstrdup("");
	va_end(ap);
	l = xasprintf("%s%s", root, link);
	free(link);

	scratch__parent_dir(l);
	if (symlink(t, l))
		perror(l);
	free(t);
	free(l);
}

/* An empty directory @path under @root. */
static void dir(const char *root, const char *path)
{
	char *full = xasprintf("%s%s", root, path);

	scratch__mkdir_p(full);
	free(full);
}

static char *new_root(const char *name)
{
	char *root = xasprintf("%s/%s", tmpdir, name);

	scratch__mkdir_p(root);
	put(root, "/proc/sys/kernel/osrelease", "6.1.0-test\n");
	put(root, "/proc/sys/kernel/random/boot_id",
	    "1625183a-e602-4b08-a994-45f7324c7095\n");
	put(root, "/etc/machine-id", "3d1219c7c4c5404aaa1f6d2a48adfda4\n");
	put(root, "/proc/cmdline", "console=ttyS0 quiet\n");
	dir(root, "/sys/class/iommu");
	dir(root, "/sys/kernel/iommu_groups");
	return root;
}

/* A PCI function in IOMMU group @group. */
static void pci_dev(const char *root, const char *bdf, const char *driver,
		    const char *cls, int group)
{
	char *dev = xasprintf("/sys/devices/pci0000:00/%s", bdf);
	char *g, *drv;

	put_in(root, dev, "class", cls);
	put_in(root, dev, "vendor", "0x1af4\n");
	put_in(root, dev, "numa_node", "0\n");
	drv = xasprintf("/sys/bus/pci/drivers/%s", driver);
	ln(root, drv, "%s/driver", dev);
	free(drv);
	ln(root, "/sys/bus/pci", "%s/subsystem", dev);
	g = xasprintf("/sys/kernel/iommu_groups/%d", group);
	ln(root, g, "%s/iommu_group", dev);
	ln(root, dev, "%s/devices/%s", g, bdf);
	free(g);
	free(dev);
}

/* virtio-net eth0 on 0000:00:03.0, two queue pairs. */
static void virtio_net(const char *root, int group)
{
	const char *v = "/sys/devices/pci0000:00/0000:00:03.0/virtio0";
	const char *n = "/sys/devices/pci0000:00/0000:00:03.0/virtio0/net/eth0";
	static const char *const queues[] = { "rx-0", "tx-0", "rx-1", "tx-1" };
	char *p;

	pci_dev(root, "0000:00:03.0", "virtio-pci", "0x020000\n", group);
	ln(root, "/sys/bus/virtio/drivers/virtio_net", "%s/driver", v);
	ln(root, "/sys/bus/virtio", "%s/subsystem", v);
	ln(root, v, "%s/device", n);
	ln(root, n, "/sys/class/net/eth0");
	put(root, "/sys/class/net/eth0/type", "1\n");
	put(root, "/sys/class/net/eth0/mtu", "9000\n");
	put(root, "/sys/class/net/eth0/speed", "-1\n");
	put(root, "/sys/class/net/eth0/operstate", "up\n");
	for (size_t i = 0; i < ARRAY_SIZE(queues); i++) {
		p = xasprintf("/sys/class/net/eth0/queues/%s", queues[i]);
		put_in(root, p, "x", "");
		free(p);
	}
	put(root, "/sys/devices/virtual/net/lo/type", "772\n");
	ln(root, "/sys/devices/virtual/net/lo", "/sys/class/net/lo");
	put(root, "/sys/devices/virtual/net/veth0/type", "1\n");
	put(root, "/sys/devices/virtual/net/veth0/mtu", "1500\n");
	ln(root, "/sys/devices/virtual/net/veth0", "/sys/class/net/veth0");
}

/* Intel DMAR with group 0 (a GPU) of @t0 and group 1 (virtio-net) of @t1. */
static char *intel_tree(const char *name, const char *t0, const char *t1,
			const char *cap, const char *kmsg)
{
	char *root = new_root(name);
	const char *u = "/sys/devices/virtual/iommu/dmar0";

	put(root, "/sys/devices/virtual/iommu/dmar0/intel-iommu/cap", cap);
	put(root, "/sys/devices/virtual/iommu/dmar0/intel-iommu/ecap",
	    "f050da\n");
	ln(root, u, "/sys/class/iommu/dmar0");
	pci_dev(root, "0000:00:02.0", "i915", "0x030000\n", 0);
	virtio_net(root, 1);
	ln(root, "/sys/devices/pci0000:00/0000:00:02.0",
	   "%s/devices/0000:00:02.0", u);
	ln(root, "/sys/devices/pci0000:00/0000:00:03.0",
	   "%s/devices/0000:00:03.0", u);
	put(root, "/sys/kernel/iommu_groups/0/type", t0);
	put(root, "/sys/kernel/iommu_groups/1/type", t1);
	if (kmsg)
		put(root, "/dev/kmsg", kmsg);
	return root;
}

static const char *const lazy_kmsg =
	"6,1,0,-;Linux version 6.1.0-test\n"
	" SUBSYSTEM=fake\n"
	"6,339,208938,-;iommu: Default domain type: Translated\n"
	"6,340,208943,-;iommu: DMA domain TLB invalidation policy: lazy "
	"mode\n";

static int rm_one(const char *path, const struct stat *sb, int flag,
		  struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* The scratch directory every tree of the test lives in. */
static void tree_init(void)
{
	if (!mkdtemp(tmpdir))
		tap_skip_all("cannot create a scratch directory");
}

static void tree_done(void)
{
	if (nftw(tmpdir, rm_one, 16, FTW_DEPTH | FTW_PHYS))
		tap_diag("could not remove %s", tmpdir);
}

#endif /* IOMMU_BENCH_TEST_HOSTFACTS_TREE_H */

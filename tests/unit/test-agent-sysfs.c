// SPDX-License-Identifier: GPL-2.0-only
/*
 * mode.sysfs on a scratch tree shaped like /sys: the NIC's device link,
 * its group, a bound driver whose unbind and bind are plain files; a
 * virtio-net NIC whose group is its PCI parent's; root file systems on
 * stacked block devices. The writes land in those files, and the steps
 * say in which order; the guards refuse before anything is written. The
 * addresses' side (rtnetlink) is test-agent-netaddr's: with a scratch
 * tree there is no real interface and it is skipped.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/agent/agent-sysfs.h"
#include "bench/agent/agent.h"
#include "errmsg.h"
#include "log.h"
#include "scratch-files.h"
#include "subprocess.h"
#include "tap.h"
#include "util.h"

#define PCI "0000:00:03.0"
#define VPCI "0000:00:01.0"
#define DEVS "sys/devices/pci0000:00/"

static char root[] = "/tmp/agent-sysfs-XXXXXX";
/* root with its links resolved, as the steps' paths are */
static char *real_root;

static void put(const char *rel, const char *text)
{
	char *p = xasprintf("%s/%s", root, rel);

	scratch__put(p, text);
	free(p);
}

static void link_to(const char *rel, const char *target)
{
	char *p = xasprintf("%s/%s", root, rel);

	unlink(p);
	if (symlink(target, p) < 0)
		tap_diag("symlink %s: %s", p, strerror(errno));
	free(p);
}

/* A link to @target_rel, a path under the scratch root. */
static void link_abs(const char *rel, const char *target_rel)
{
	char *t = xasprintf("%s/%s", root, target_rel);

	link_to(rel, t);
	free(t);
}

static void rm(const char *rel)
{
	char *p = xasprintf("%s/%s", root, rel);

	unlink(p);
	free(p);
}

static char *get(const char *rel)
{
	char *p = xasprintf("%s/%s", root, rel);
	char *s = agent_sysfs__read(p);

	free(p);
	return s;
}

/* The file @rel of the scratch tree holds @want. */
static void is_file(const char *rel, const char *want, const char *what)
{
	char *s = get(rel);

	is_str(s, want, "%s", what);
	free(s);
}

static void build_tree(const char *type)
{
	put(DEVS PCI "/net/eth1/operstate", "up\n");
	put("sys/kernel/iommu_groups/7/type", type);
	put("sys/kernel/iommu_groups/7/devices/.keep", "");
	put("sys/bus/pci/drivers/virtio-pci/bind", "");
	put("sys/bus/pci/drivers/virtio-pci/unbind", "");
	put("sys/class/net/.keep", "");
	link_to("sys/class/net/eth1",
		"../../devices/pci0000:00/" PCI "/net/eth1");
	link_to(DEVS PCI "/iommu_group", "../../../kernel/iommu_groups/7");
	link_to(DEVS PCI "/driver", "../../../bus/pci/drivers/virtio-pci");
	link_to(DEVS PCI "/subsystem", "../../../bus/pci");
	link_to("sys/kernel/iommu_groups/7/devices/" PCI,
		"../../../../devices/pci0000:00/" PCI);
	link_to("sys/class/net/eth1/device", "../../../" PCI);
	rm("proc/self/mountinfo");
	rm("proc/net/route");
	rm("proc/net/ipv6_route");
}

/*
 * As the testbed guest has it: eth0's device is virtio0, whose parent,
 * the PCI function under virtio-pci, has the group.
 */
static void build_virtio(const char *type)
{
	build_tree("DMA\n");
	put(DEVS VPCI "/virtio0/net/eth0/operstate", "up\n");
	put("sys/kernel/iommu_groups/3/type", type);
	put("sys/kernel/iommu_groups/3/devices/.keep", "");
	put("sys/bus/virtio/drivers/virtio_net/bind", "");
	put("sys/bus/virtio/drivers/virtio_net/unbind", "");
	put("sys/bus/pci/drivers/virtio-pci/bind", "");
	put("sys/bus/pci/drivers/virtio-pci/unbind", "");
	link_to("sys/class/net/eth0",
		"../../devices/pci0000:00/" VPCI "/virtio0/net/eth0");
	link_to(DEVS VPCI "/virtio0/net/eth0/device", "../../../virtio0");
	link_to(DEVS VPCI "/virtio0/driver",
		"../../../../bus/virtio/drivers/virtio_net");
	link_to(DEVS VPCI "/virtio0/subsystem", "../../../../bus/virtio");
	link_to(DEVS VPCI "/iommu_group", "../../../kernel/iommu_groups/3");
	link_to(DEVS VPCI "/driver", "../../../bus/pci/drivers/virtio-pci");
	link_to(DEVS VPCI "/subsystem", "../../../bus/pci");
	link_to("sys/kernel/iommu_groups/3/devices/" VPCI,
		"../../../../devices/pci0000:00/" VPCI);
}

static int run_nic(const char *nic, const char *type, json_t *guard,
		   json_t **steps, char **err)
{
	struct sysfs_switch sw = { .root = root, .nic = nic, .type = type };
	int ret;

	sw.guard = guard;
	sw.steps = json_array();
	*err = NULL;
	ret = agent_sysfs__switch(&sw, 2000, err);
	*steps = json_incref(sw.steps);
	agent_sysfs__release(&sw);
	return ret;
}

static int run_switch(const char *type, json_t *guard, json_t **steps,
		      char **err)
{
	return run_nic("eth1", type, guard, steps, err);
}

static const char *step(json_t *steps, size_t i, const char *key)
{
	return json_string_value(
		json_object_get(json_array_get(steps, i), key));
}

static void test_switch(void)
{
	json_t *steps;
	char *err, *want;
	int ret;

	build_tree("DMA-FQ\n");
	ret = run_switch("identity", NULL, &steps, &err);
	is_int(ret, 0, "DMA-FQ -> identity on the scratch tree (%s)",
	       err ? err : "ok");
	is_int(json_array_size(steps), 3, "three writes");
	want = xasprintf("%s/" DEVS PCI "/driver/unbind", real_root);
	is_str(step(steps, 0, "write"), want, "first the unbind");
	free(want);
	has_str(step(steps, 1, "write"), "/sys/kernel/iommu_groups/7/type",
		"then the group's type");
	has_str(step(steps, 2, "write"), "/sys/bus/pci/drivers/virtio-pci/bind",
		"then the driver's bind");
	is_file("sys/bus/pci/drivers/virtio-pci/unbind", PCI,
		"unbind got the PCI address");
	is_file("sys/kernel/iommu_groups/7/type", "identity",
		"the type was written");
	is_file("sys/bus/pci/drivers/virtio-pci/bind", PCI,
		"bind got the PCI address");
	json_decref(steps);
	errmsg__clear(&err);

	put("sys/bus/pci/drivers/virtio-pci/unbind", "");
	put("sys/kernel/iommu_groups/7/type", "DMA\n");
	ret = run_switch("DMA-FQ", NULL, &steps, &err);
	is_int(ret, 0, "DMA -> DMA-FQ");
	is_int(json_array_size(steps), 1, "one write: no unbind while bound");
	is_file("sys/bus/pci/drivers/virtio-pci/unbind", "",
		"unbind untouched");
	json_decref(steps);
	errmsg__clear(&err);

	ret = run_switch("DMA-FQ", NULL, &steps, &err);
	is_int(ret, 0, "same type again");
	is_int(json_array_size(steps), 0, "nothing written");
	json_decref(steps);
	errmsg__clear(&err);
}

/* "/" mounted from @majmin, a @fstype on @source, as mountinfo says. */
static void put_root_mount(const char *majmin, const char *fstype,
			   const char *source)
{
	char *line = xasprintf("21 1 0:20 / /proc rw - proc proc rw\n"
			       "25 1 %s / / rw,relatime - %s %s rw\n"
			       "30 25 0:25 / /run rw - tmpfs tmpfs rw\n",
			       majmin, fstype, source);

	put("proc/self/mountinfo", line);
	free(line);
}

/* Refused with -EBUSY, an error containing @why, and nothing written. */
static void is_refused(const char *nic, json_t *guard, const char *why,
		       const char *what)
{
	json_t *steps;
	char *err;
	int ret;

	ret = run_nic(nic, "identity", guard, &steps, &err);
	is_int(ret, -EBUSY, "%s is refused", what);
	has_str(err, why, "... saying why");
	is_int(json_array_size(steps), 0, "... before writing anything");
	is_file("sys/bus/pci/drivers/virtio-pci/unbind", "",
		"... and nothing was unbound");
	json_decref(steps);
	free(err);
}

static void is_allowed(const char *nic, json_t *guard, const char *what)
{
	json_t *steps;
	char *err;
	int ret;

	ret = run_nic(nic, "identity", guard, &steps, &err);
	is_int(ret, 0, "%s goes ahead (%s)", what, err ? err : "ok");
	json_decref(steps);
	free(err);
}

static void test_guards(void)
{
	json_t *steps,
		*guard = json_pack("{s:[s]}", "refuse_if_carries", "ssh");
	char *err;
	int ret;

	build_tree("DMA\n");
	put("proc/net/route", "Iface\tDestination\tGateway\n"
			      "eth1\t00000000\t0101A8C0\n");
	ret = run_switch("identity", guard, &steps, &err);
	is_int(ret, -EBUSY, "the NIC with the default route is refused");
	has_str(err, PCI, "... naming the device");
	has_str(err, "eth1", "... and the interface");
	is_int(json_array_size(steps), 0, "... before writing anything");
	json_decref(steps);
	errmsg__clear(&err);
	is_allowed("eth1", NULL, "without the ssh guard it");

	/* DMA -> DMA-FQ unbinds nothing: the guard has nothing to guard. */
	build_tree("DMA\n");
	put("proc/net/route", "Iface\tDestination\tGateway\n"
			      "eth1\t00000000\t0101A8C0\n");
	ret = run_switch("DMA-FQ", guard, &steps, &err);
	is_int(ret, 0, "DMA -> DMA-FQ on the default route's NIC is fine (%s)",
	       err ? err : "ok");
	is_int(json_array_size(steps), 1, "... one write, no unbind");
	json_decref(steps);
	errmsg__clear(&err);

	build_tree("DMA\n");
	put("proc/net/ipv6_route",
	    "20010db8000000000000000000000000 40 "
	    "00000000000000000000000000000000 00 "
	    "00000000000000000000000000000000 00000100 00000001 00000000 "
	    "00000001     eth1\n");
	is_allowed("eth1", guard, "an IPv6 route that is not the default:");
	build_tree("DMA\n");
	put("proc/net/ipv6_route",
	    "00000000000000000000000000000000 00 "
	    "00000000000000000000000000000000 00 "
	    "fe800000000000000000000000000001 00000400 00000001 00000000 "
	    "00450003     eth1\n");
	is_refused("eth1", guard, "default route",
		   "the NIC with the IPv6 default route");

	json_decref(guard);
}

/* Root file systems on stacked block devices, followed to the disks. */
static void test_rootfs(void)
{
	build_tree("DMA\n");
	put(DEVS PCI "/virtio1/block/vda/dev", "254:0\n");
	put("sys/dev/block/.keep", "");
	link_abs("sys/dev/block/254:0", DEVS PCI "/virtio1/block/vda");
	put_root_mount("254:0", "ext4", "/dev/vda");
	is_refused("eth1", NULL, "root file system",
		   "the root file system's device");

	/* LVM on dm-crypt on a partition of a disk below the NIC. */
	build_tree("DMA\n");
	put(DEVS PCI "/virtio1/block/vdb/vdb2/partition", "2\n");
	put("sys/devices/virtual/block/dm-0/slaves/.keep", "");
	put("sys/devices/virtual/block/dm-1/slaves/.keep", "");
	link_abs("sys/devices/virtual/block/dm-0/slaves/vdb2",
		 DEVS PCI "/virtio1/block/vdb/vdb2");
	link_abs("sys/devices/virtual/block/dm-1/slaves/dm-0",
		 "sys/devices/virtual/block/dm-0");
	link_abs("sys/dev/block/253:1", "sys/devices/virtual/block/dm-1");
	put_root_mount("253:1", "ext4", "/dev/mapper/vg-root");
	is_refused("eth1", NULL, "vdb2", "LVM on dm-crypt on a partition");

	/* A partition of an md array of partitions. */
	build_tree("DMA\n");
	put("sys/devices/virtual/block/md0/md0p1/partition", "1\n");
	put("sys/devices/virtual/block/md0/slaves/.keep", "");
	put(DEVS PCI "/virtio1/block/vdc/vdc1/partition", "1\n");
	link_abs("sys/devices/virtual/block/md0/slaves/vdc1",
		 DEVS PCI "/virtio1/block/vdc/vdc1");
	link_abs("sys/dev/block/259:1", "sys/devices/virtual/block/md0/md0p1");
	put_root_mount("259:1", "xfs", "/dev/md0p1");
	is_refused("eth1", NULL, "vdc1", "a partition of md on partitions");

	/* btrfs over two disks; mountinfo names only the first. */
	build_tree("DMA\n");
	put(DEVS "0000:00:09.0/virtio5/block/vdd/dev", "254:48\n");
	put(DEVS PCI "/virtio1/block/vde/dev", "254:64\n");
	put("sys/fs/btrfs/features/.keep", "");
	put("sys/fs/btrfs/6b1c0a3e-1c1b-4c4f-9d5a-1f2e3d4c5b6a/devices/.keep",
	    "");
	link_abs("sys/fs/btrfs/6b1c0a3e-1c1b-4c4f-9d5a-1f2e3d4c5b6a/devices/"
		 "vdd",
		 DEVS "0000:00:09.0/virtio5/block/vdd");
	link_abs("sys/fs/btrfs/6b1c0a3e-1c1b-4c4f-9d5a-1f2e3d4c5b6a/devices/"
		 "vde",
		 DEVS PCI "/virtio1/block/vde");
	put_root_mount("0:33", "btrfs", "/dev/vdd");
	is_refused("eth1", NULL, "vde", "a btrfs root with a member below it");

	/* The root elsewhere: nothing to do with this NIC. */
	build_tree("DMA\n");
	put(DEVS "0000:00:09.0/virtio5/block/vdz/dev", "254:16\n");
	link_abs("sys/dev/block/254:16", DEVS "0000:00:09.0/virtio5/block/vdz");
	put_root_mount("254:16", "ext4", "/dev/vdz");
	is_allowed("eth1", NULL, "a root disk on another device:");
}

static void test_virtio(void)
{
	struct agent a = { 0 };
	json_t *steps, *args, *res = NULL;
	char *err = NULL, *want;
	int ret;

	build_virtio("DMA-FQ\n");
	ret = run_nic("eth0", "identity", NULL, &steps, &err);
	is_int(ret, 0, "virtio-net: DMA-FQ -> identity (%s)", err ? err : "ok");
	is_int(json_array_size(steps), 3, "three writes");
	want = xasprintf("%s/" DEVS VPCI "/driver/unbind", real_root);
	is_str(step(steps, 0, "write"), want,
	       "the PCI parent is unbound, not virtio0");
	free(want);
	is_str(step(steps, 0, "value"), VPCI, "... by its PCI address");
	has_str(step(steps, 1, "write"), "/sys/kernel/iommu_groups/3/type",
		"the parent's group");
	has_str(step(steps, 2, "write"), "/sys/bus/pci/drivers/virtio-pci/bind",
		"rebound to virtio-pci on the pci bus");
	is_file("sys/bus/virtio/drivers/virtio_net/unbind", "",
		"virtio_net untouched");
	is_file("sys/bus/pci/drivers/virtio-pci/bind", VPCI,
		"virtio-pci bound again");
	json_decref(steps);
	free(err);
	err = NULL;

	build_virtio("DMA-FQ\n");
	setenv("IOMMU_BENCH_SYSFS_ROOT", root, 1);
	args = json_pack("{s:s, s:s}", "nic", "eth0", "type", "DMA");
	is_int(agent_verb__mode_sysfs(&a, args, &res, &err), 0,
	       "the verb on virtio-net (%s)", err ? err : "ok");
	is_str(json_string_value(json_object_get(res, "pci")), VPCI,
	       "... reports the PCI function");
	is_str(json_string_value(json_object_get(res, "driver")), "virtio-pci",
	       "... and its driver");
	ok(json_is_array(json_object_get(res, "restored")) &&
		   !json_array_size(json_object_get(res, "restored")),
	   "... restored nothing: a scratch tree has no interface");
	ok(json_is_array(json_object_get(res, "restored_routes")),
	   "... and says so for routes too");
	json_decref(res);
	json_decref(args);
	unsetenv("IOMMU_BENCH_SYSFS_ROOT");

	/* Another bound device under the parent would go with it. */
	build_virtio("DMA-FQ\n");
	put(DEVS VPCI "/virtio1/power/.keep", "");
	link_to(DEVS VPCI "/virtio1/driver",
		"../../../../bus/virtio/drivers/virtio_net");
	is_refused("eth0", NULL, "virtio1",
		   "a parent with another bound device below it");
	rm(DEVS VPCI "/virtio1/driver");

	/* Neither virtio0 nor its parent is translated. */
	build_virtio("DMA-FQ\n");
	rm(DEVS VPCI "/iommu_group");
	ret = run_nic("eth0", "identity", NULL, &steps, &err);
	is_int(ret, -ENODEV, "no group on the way up: no IOMMU");
	has_str(err, "virtio0 (eth0) is in no IOMMU group",
		"... naming the device and the interface");
	json_decref(steps);
	free(err);
}

static void test_args(void)
{
	struct agent a = { 0 };
	json_t *res = NULL, *args;
	char *err = NULL;

	args = json_pack("{s:s, s:s}", "nic", "eth1", "type", "strict");
	is_int(agent_verb__mode_sysfs(&a, args, &res, &err), -EINVAL,
	       "a type that is not a group type is refused");
	has_str(err, "'strict'", "... naming it");
	has_str(err, "DMA, DMA-FQ, identity or auto",
		"... and what is expected");
	json_decref(args);
	free(err);
	err = NULL;
	args = json_pack("{s:s, s:s}", "nic", "../eth1", "type", "DMA");
	is_int(agent_verb__mode_sysfs(&a, args, &res, &err), -EINVAL,
	       "a nic with a slash is refused");
	json_decref(args);
	free(err);
	err = NULL;
	setenv("IOMMU_BENCH_SYSFS_ROOT", root, 1);
	args = json_pack("{s:s, s:s}", "nic", "eth9", "type", "DMA");
	is_int(agent_verb__mode_sysfs(&a, args, &res, &err), -ENODEV,
	       "an unknown nic: no device");
	has_str(err, "'eth9'", "... naming it");
	json_decref(args);
	free(err);
	unsetenv("IOMMU_BENCH_SYSFS_ROOT");
}

int main(void)
{
	const char *argv[] = { "rm", "-rf", root, NULL };
	struct spawn sp;

	if (!mkdtemp(root))
		tap_skip_all("no scratch directory");
	real_root = realpath(root, NULL);
	test_switch();
	test_guards();
	test_rootfs();
	test_virtio();
	test_args();
	spawn__run(&sp, argv, &(struct spawn_opts){ 0 }, 10000);
	spawn__release(&sp);
	free(real_root);
	return tap_done();
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * mode.sysfs on a scratch tree shaped like /sys: the NIC's device link,
 * its group, a bound driver whose unbind and bind are plain files. The
 * writes land in those files, and the steps say in which order; the
 * guards refuse before anything is written.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "bench/agent-sysfs.h"
#include "bench/agent.h"
#include "collectors/spawn.h"
#include "log.h"
#include "tap.h"
#include "util.h"

#define PCI "0000:00:03.0"

static char root[] = "/tmp/agent-sysfs-XXXXXX";

static void put(const char *rel, const char *text)
{
	char *p = xasprintf("%s/%s", root, rel), *d = xstrdup(p);
	const char *argv[] = { "mkdir", "-p", d, NULL };
	struct spawn sp;
	FILE *f;

	*strrchr(d, '/') = '\0';
	spawn__run(&sp, argv, &(struct spawn_opts){ 0 }, 5000);
	spawn__release(&sp);
	f = fopen(p, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
	free(d);
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

static char *get(const char *rel)
{
	char *p = xasprintf("%s/%s", root, rel);
	char *s = agent_sysfs__read(p);

	free(p);
	return s;
}

static void build_tree(const char *type)
{
	const char *dev = "sys/devices/pci0000:00/" PCI;

	put("sys/devices/pci0000:00/" PCI "/net/eth1/operstate", "up\n");
	put("sys/kernel/iommu_groups/7/type", type);
	put("sys/kernel/iommu_groups/7/devices/.keep", "");
	put("sys/bus/pci/drivers/virtio-pci/bind", "");
	put("sys/bus/pci/drivers/virtio-pci/unbind", "");
	put("sys/class/net/.keep", "");
	link_to("sys/class/net/eth1",
		"../../devices/pci0000:00/" PCI "/net/eth1");
	link_to("sys/devices/pci0000:00/" PCI "/iommu_group",
		"../../../kernel/iommu_groups/7");
	link_to("sys/devices/pci0000:00/" PCI "/driver",
		"../../../bus/pci/drivers/virtio-pci");
	link_to("sys/kernel/iommu_groups/7/devices/" PCI,
		"../../../../devices/pci0000:00/" PCI);
	link_to("sys/class/net/eth1/device", "../../../" PCI);
	(void)dev;
}

static int run_switch(const char *type, json_t *guard, json_t **steps,
		      char **err)
{
	struct sysfs_switch sw = { .root = root, .nic = "eth1", .type = type };
	int ret;

	sw.guard = guard;
	sw.steps = json_array();
	*err = NULL;
	ret = agent_sysfs__switch(&sw, 2000, err);
	*steps = json_incref(sw.steps);
	agent_sysfs__release(&sw);
	return ret;
}

static const char *step(json_t *steps, size_t i, const char *key)
{
	return json_string_value(
		json_object_get(json_array_get(steps, i), key));
}

static void test_switch(void)
{
	json_t *steps;
	char *err, *s, *want;
	int ret;

	build_tree("DMA-FQ\n");
	ret = run_switch("identity", NULL, &steps, &err);
	is_int(ret, 0, "DMA-FQ -> identity on the scratch tree (%s)",
	       err ? err : "ok");
	is_int(json_array_size(steps), 3, "three writes");
	want = xasprintf("%s/sys/class/net/eth1/device/driver/unbind", root);
	is_str(step(steps, 0, "write"), want, "first the unbind");
	free(want);
	has_str(step(steps, 1, "write"), "/sys/kernel/iommu_groups/7/type",
		"then the group's type");
	has_str(step(steps, 2, "write"), "/sys/bus/pci/drivers/virtio-pci/bind",
		"then the driver's bind");
	s = get("sys/bus/pci/drivers/virtio-pci/unbind");
	is_str(s, PCI, "unbind got the PCI address");
	free(s);
	s = get("sys/kernel/iommu_groups/7/type");
	is_str(s, "identity", "the type was written");
	free(s);
	s = get("sys/bus/pci/drivers/virtio-pci/bind");
	is_str(s, PCI, "bind got the PCI address");
	free(s);
	json_decref(steps);
	free(err);

	put("sys/bus/pci/drivers/virtio-pci/unbind", "");
	put("sys/kernel/iommu_groups/7/type", "DMA\n");
	ret = run_switch("DMA-FQ", NULL, &steps, &err);
	is_int(ret, 0, "DMA -> DMA-FQ");
	is_int(json_array_size(steps), 1, "one write: no unbind while bound");
	s = get("sys/bus/pci/drivers/virtio-pci/unbind");
	is_str(s, "", "unbind untouched");
	free(s);
	json_decref(steps);
	free(err);

	ret = run_switch("DMA-FQ", NULL, &steps, &err);
	is_int(ret, 0, "same type again");
	is_int(json_array_size(steps), 0, "nothing written");
	json_decref(steps);
	free(err);
}

static void test_guards(void)
{
	json_t *steps,
		*guard = json_pack("{s:[s]}", "refuse_if_carries", "ssh");
	struct stat st;
	char *rel, *err, *s;
	int ret;

	build_tree("DMA\n");
	put("proc/net/route", "Iface\tDestination\tGateway\n"
			      "eth1\t00000000\t0101A8C0\n");
	ret = run_switch("identity", guard, &steps, &err);
	is_int(ret, -EBUSY, "the NIC with the default route is refused");
	has_str(err, PCI, "... naming the device");
	is_int(json_array_size(steps), 0, "... before writing anything");
	json_decref(steps);
	free(err);
	ret = run_switch("identity", NULL, &steps, &err);
	is_int(ret, 0, "without the ssh guard it goes ahead");
	json_decref(steps);
	free(err);

	build_tree("DMA\n");
	ok(!stat("/", &st), "stat /");
	put("sys/devices/pci0000:00/" PCI "/virtio1/block/vda/dev", "");
	put("sys/dev/block/.keep", "");
	rel = xasprintf("sys/dev/block/%u:%u", major(st.st_dev),
			minor(st.st_dev));
	link_to(rel, "../../devices/pci0000:00/" PCI "/virtio1/block/vda");
	ret = run_switch("identity", NULL, &steps, &err);
	is_int(ret, -EBUSY, "the root file system's device is refused");
	has_str(err, "root file system", "... saying why");
	s = get("sys/bus/pci/drivers/virtio-pci/unbind");
	is_str(s, "", "... and nothing was unbound");
	free(s);
	json_decref(steps);
	free(err);
	free(rel);
	json_decref(guard);
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
	test_switch();
	test_guards();
	test_args();
	spawn__run(&sp, argv, &(struct spawn_opts){ 0 }, 10000);
	spawn__release(&sp);
	return tap_done();
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * IOMMU units, groups and the DMA policy on fake sysfs/procfs trees: each
 * IOMMU kind, and the inference (strict, lazy, passthrough, mixed, none,
 * a command line the groups overrule, a caching-mode IOMMU), and the
 * command-line keys as the kernel reads them. The real host is probe.t's.
 */
#include <zlib.h>

#include "collectors/hostfacts/hostfacts-priv.h"
#include "collectors/hostfacts/hostfacts.h"
#include "hostfacts-tree.h"

static bool has_evidence(const struct hostfacts_dma_policy *p,
			 const char *needle)
{
	size_t i;

	if (p->summary && strstr(p->summary, needle))
		return true;
	for (i = 0; i < p->nr_evidence; i++)
		if (strstr(p->evidence[i], needle))
			return true;
	tap_diag("summary: %s", p->summary);
	for (i = 0; i < p->nr_evidence; i++)
		tap_diag("evidence: %s", p->evidence[i]);
	return false;
}

static void test_intel(void)
{
	char *root = intel_tree("intel", "DMA-FQ\n", "DMA-FQ\n",
				"d2008c40660462\n", lazy_kmsg);
	struct hostfacts_iommu_unit *u;
	struct hostfacts_dma_policy p;
	struct hostfacts_group *g;
	size_t nu, ng;

	is_int(hostfacts__iommu_units(root, &u, &nu), 0, "intel: units read");
	is_int(nu, 1, "intel: one unit");
	is_str(u[0].name, "dmar0", "intel: unit name");
	is_str(hostfacts__iommu_kind_name(u[0].kind), "intel-vtd",
	       "intel: kind from intel-iommu/");
	is_int(u[0].caching_mode, 0, "intel: CAP.CM clear");
	is_int(u[0].nr_devices, 2, "intel: unit translates two devices");
	hostfacts__iommu_units_free(u, nu);

	is_int(hostfacts__iommu_groups(root, &g, &ng), 0, "intel: groups read");
	is_int(ng, 2, "intel: two groups");
	is_str(g[1].type, "DMA-FQ", "intel: group 1 type");
	is_int(g[1].nr_devices, 1, "intel: group 1 has one device");
	is_str(g[1].devices[0].name, "0000:00:03.0", "intel: device address");
	is_str(g[1].devices[0].driver, "virtio-pci", "intel: device driver");
	is_str(g[1].devices[0].class, "0x020000", "intel: device class");
	is_str(g[1].devices[0].bus, "pci", "intel: device bus");
	ok(g[1].devices[0].nr_net == 1 &&
		   !strcmp(g[1].devices[0].net[0], "eth0"),
	   "intel: the virtio child's eth0 is the device's interface");
	is_int(g[0].devices[0].nr_net, 0, "intel: the GPU has no interface");
	hostfacts__iommu_groups_free(g, ng);

	hostfacts__dma_policy(root, &p);
	is_str(hostfacts__dma_mode_name(p.mode), "lazy", "intel: lazy");
	is_str(hostfacts__dma_source_name(p.source), "groups",
	       "intel: decided by the groups");
	is_int(p.kmsg, HOSTFACTS_DMA_LAZY, "intel: kmsg line read");
	is_int(p.nr_kmsg_lines, 2, "intel: two kmsg lines, prefix stripped");
	is_str(p.kmsg_lines[1],
	       "iommu: DMA domain TLB invalidation policy: lazy mode",
	       "intel: kmsg record prefix stripped");
	ok(has_evidence(&p, "2 IOMMU groups: 0 DMA (strict), 2 DMA-FQ"),
	   "intel: evidence counts the group types");
	ok(has_evidence(&p, "the kernel log says 'iommu: DMA domain TLB"),
	   "intel: evidence quotes the kernel log");
	hostfacts__dma_policy_release(&p);
	free(root);
}

static void check_policy(const char *name, const char *t0, const char *t1,
			 const char *kmsg, enum hostfacts_dma_mode want,
			 const char *evidence, const char *summary)
{
	char *root = intel_tree(name, t0, t1, "d2008c40660462\n", kmsg);
	struct hostfacts_dma_policy p;

	hostfacts__dma_policy(root, &p);
	is_str(hostfacts__dma_mode_name(p.mode), hostfacts__dma_mode_name(want),
	       "%s: mode", name);
	if (evidence)
		ok(has_evidence(&p, evidence), "%s: evidence says '%s'", name,
		   evidence);
	if (summary)
		is_str(p.summary, summary, "%s: the summary", name);
	hostfacts__dma_policy_release(&p);
	free(root);
}

static void test_policies(void)
{
	char *root;
	struct hostfacts_dma_policy p;

	check_policy("strict", "DMA\n", "DMA\n",
		     "6,1,1,-;iommu: DMA domain TLB invalidation policy: "
		     "strict mode\n",
		     HOSTFACTS_DMA_STRICT, "all 2 IOMMU groups", NULL);
	check_policy("passthrough", "identity\n", "identity\n",
		     "6,1,1,-;iommu: Default domain type: Passthrough (set via "
		     "kernel command line)\n",
		     HOSTFACTS_DMA_PASSTHROUGH,
		     "Default domain type: Passthrough", NULL);
	check_policy(
		"mixed", "DMA\n", "DMA-FQ\n", lazy_kmsg, HOSTFACTS_DMA_MIXED,
		"group 0 is DMA (strict)",
		"mixed: the groups disagree (1 DMA, 1 DMA-FQ, 0 identity)");
	check_policy("blocked", "blocked\n", "unmanaged\n", NULL,
		     HOSTFACTS_DMA_UNKNOWN, "2 other",
		     "unknown: no group has a DMA-API type (DMA, DMA-FQ or "
		     "identity)");

	/* The command line asked for lazy; the groups are DMA. */
	root = intel_tree("overruled", "DMA\n", "DMA\n", "d2008c40660462\n",
			  lazy_kmsg);
	put(root, "/proc/cmdline", "root=/dev/vda iommu.strict=0\n");
	hostfacts__dma_policy(root, &p);
	is_str(hostfacts__dma_mode_name(p.mode), "strict",
	       "overruled: the group type wins");
	is_int(p.cmdline, HOSTFACTS_DMA_LAZY, "overruled: cmdline said lazy");
	ok(has_evidence(&p, "the command line asks for lazy (iommu.strict=0),"
			    " but the groups are strict (DMA): the group type "
			    "wins"),
	   "overruled: the evidence says the group type wins");
	ok(has_evidence(&p, "lazy mode', but the groups are strict"),
	   "overruled: the kernel log is overruled too");
	hostfacts__dma_policy_release(&p);
	free(root);

	/* QEMU's vIOMMU with caching-mode=on: strict whatever was asked. */
	root = intel_tree("caching", "DMA\n", "DMA\n", "d2008c40660486\n",
			  "6,1,1,-;DMAR: IOMMU batching disallowed due to "
			  "virtualization\n");
	hostfacts__dma_policy(root, &p);
	is_str(hostfacts__dma_mode_name(p.mode), "strict", "caching: strict");
	ok(has_evidence(&p, "dmar0 reports caching mode"),
	   "caching: evidence names CAP.CM");
	ok(has_evidence(&p, "IOMMU batching disallowed"),
	   "caching: evidence quotes the batching line");
	hostfacts__dma_policy_release(&p);
	free(root);
}

static void test_other_kinds(void)
{
	struct hostfacts_iommu_unit *u;
	struct hostfacts_dma_policy p;
	char *root;
	size_t n;

	root = new_root("amd");
	put(root,
	    "/sys/devices/pci0000:00/0000:00:00.2/iommu/ivhd0/amd-iommu/cap",
	    "0x190b6423\n");
	ln(root, "/sys/devices/pci0000:00/0000:00:00.2/iommu/ivhd0",
	   "/sys/class/iommu/ivhd0");
	virtio_net(root, 7);
	put(root, "/sys/kernel/iommu_groups/7/type", "DMA-FQ\n");
	hostfacts__iommu_units(root, &u, &n);
	ok(n == 1 && u[0].kind == HOSTFACTS_IOMMU_AMD, "amd: AMD-Vi unit");
	is_str(u[0].cap, "0x190b6423", "amd: capability read");
	hostfacts__iommu_units_free(u, n);
	hostfacts__dma_policy(root, &p);
	is_int(p.mode, HOSTFACTS_DMA_LAZY, "amd: DMA-FQ group is lazy");
	hostfacts__dma_policy_release(&p);
	free(root);

	/* Debian arm64: strict by config, and says so in the log. */
	root = new_root("smmuv3");
	ln(root, "/sys/devices/platform/arm-smmu-v3.0.auto",
	   "/sys/devices/platform/arm-smmu-v3.0.auto/iommu/"
	   "smmu3.0x0000000009050000/device");
	ln(root,
	   "/sys/devices/platform/arm-smmu-v3.0.auto/iommu/"
	   "smmu3.0x0000000009050000",
	   "/sys/class/iommu/smmu3.0x0000000009050000");
	ln(root, "/sys/bus/platform/drivers/arm-smmu-v3",
	   "/sys/devices/platform/arm-smmu-v3.0.auto/driver");
	virtio_net(root, 3);
	put(root, "/sys/kernel/iommu_groups/3/type", "DMA\n");
	put(root, "/boot/config-6.1.0-test",
	    "CONFIG_ARM_SMMU_V3=y\nCONFIG_IOMMU_DEFAULT_DMA_STRICT=y\n"
	    "# CONFIG_IOMMU_DEFAULT_DMA_LAZY is not set\n");
	put(root, "/dev/kmsg",
	    "[    0.3] iommu: DMA domain TLB invalidation policy: strict "
	    "mode\n");
	hostfacts__iommu_units(root, &u, &n);
	ok(n == 1 && u[0].kind == HOSTFACTS_IOMMU_SMMU_V3, "smmuv3: kind");
	is_str(u[0].driver, "arm-smmu-v3", "smmuv3: driver of the device");
	hostfacts__iommu_units_free(u, n);
	hostfacts__dma_policy(root, &p);
	is_int(p.mode, HOSTFACTS_DMA_STRICT, "smmuv3: strict");
	is_int(p.config, HOSTFACTS_DMA_STRICT, "smmuv3: config default read");
	is_str(p.config_source, "/boot/config-6.1.0-test",
	       "smmuv3: /boot/config-RELEASE first");
	is_int(p.kmsg, HOSTFACTS_DMA_STRICT, "smmuv3: dmesg-style line read");
	ok(has_evidence(&p, "the kernel config defaults to strict"),
	   "smmuv3: evidence cites the config");
	hostfacts__dma_policy_release(&p);
	free(root);

	/* virtio-iommu names its unit after the PCI function under it. */
	root = new_root("virtio");
	ln(root, "/sys/devices/pci0000:00/0000:00:04.0/virtio1",
	   "/sys/devices/pci0000:00/0000:00:04.0/virtio1/iommu/0000:00:04.0/"
	   "device");
	ln(root,
	   "/sys/devices/pci0000:00/0000:00:04.0/virtio1/iommu/0000:00:04.0",
	   "/sys/class/iommu/0000:00:04.0");
	ln(root, "/sys/bus/virtio/drivers/virtio_iommu",
	   "/sys/devices/pci0000:00/0000:00:04.0/virtio1/driver");
	hostfacts__iommu_units(root, &u, &n);
	ok(n == 1 && u[0].kind == HOSTFACTS_IOMMU_VIRTIO,
	   "virtio: virtio-iommu from its driver");
	hostfacts__iommu_units_free(u, n);
	/* A unit but no group: the log line tells what devices would get. */
	put(root, "/dev/kmsg", lazy_kmsg);
	hostfacts__dma_policy(root, &p);
	is_int(p.mode, HOSTFACTS_DMA_LAZY, "no groups: mode from the log");
	is_int(p.source, HOSTFACTS_SRC_KMSG, "no groups: source is kmsg");
	ok(has_evidence(&p, "no device is translated"),
	   "no groups: evidence says nothing is translated");
	hostfacts__dma_policy_release(&p);
	free(root);
}

static void gz_put(const char *root, const char *path, const char *text)
{
	char *full = xasprintf("%s%s", root, path);
	gzFile gz;

	scratch__parent_dir(full);
	gz = gzopen(full, "wb");
	gzputs(gz, text);
	gzclose(gz);
	free(full);
}

static void test_no_iommu(void)
{
	char *root = new_root("none");
	struct hostfacts_dma_policy p;

	put(root, "/dev/kmsg", lazy_kmsg);
	put(root, "/proc/cmdline", "quiet -- iommu.strict=1\n");
	gz_put(root, "/proc/config.gz",
	       "# CONFIG_INTEL_IOMMU is not set\n# CONFIG_AMD_IOMMU is not "
	       "set\nCONFIG_IOMMU_DEFAULT_DMA_LAZY=y\n");
	dir(root, "/sys/firmware/acpi/tables");
	hostfacts__dma_policy(root, &p);
	is_int(p.mode, HOSTFACTS_DMA_NONE, "none: no IOMMU");
	has_str(p.summary, "no IOMMU: DMA is not translated",
		"none: the summary says so plainly");
	ok(has_evidence(&p, "/sys/class/iommu lists no IOMMU unit"),
	   "none: evidence from /sys/class/iommu");
	ok(has_evidence(&p, "no IOMMU driver (CONFIG_INTEL_IOMMU=n"),
	   "none: evidence from the gzip'ed config");
	ok(has_evidence(&p, "no ACPI table describes an IOMMU"),
	   "none: evidence from the ACPI tables");
	ok(has_evidence(&p, "only the default for DMA domains"),
	   "none: the log line is explained away");
	is_int(p.nr_keys, 0, "none: keys after '--' are init's");
	is_str(p.config_source, "/proc/config.gz", "none: config.gz read");
	hostfacts__dma_policy_release(&p);

	put(root, "/sys/firmware/acpi/tables/DMAR", "x");
	put(root, "/proc/cmdline", "intel_iommu=off\n");
	hostfacts__dma_policy(root, &p);
	ok(has_evidence(&p, "ACPI DMAR table describes an IOMMU that no"),
	   "none: a DMAR table without a driver is pointed out");
	ok(has_evidence(&p, "turns the IOMMU off (intel_iommu=off)"),
	   "none: intel_iommu=off is pointed out");
	hostfacts__dma_policy_release(&p);
	free(root);
}

static enum hostfacts_dma_mode cmdline_mode(const char *cmdline, bool *off)
{
	struct hostfacts_cmdline_key *k;
	enum hostfacts_dma_mode m;
	size_t n;

	hostfacts__cmdline_keys(cmdline, &k, &n);
	m = hf_cmdline_mode(k, n, off);
	hostfacts__cmdline_keys_free(k, n);
	return m;
}

static void test_cmdline(void)
{
	struct hostfacts_cmdline_key *k;
	enum hostfacts_dma_mode m;
	bool off;
	size_t n;

	hostfacts__cmdline_keys("ro iommu.strict=0 intel_iommu=on,sm_on "
				"foo=\"a b\" iommu=pt -- iommu.strict=1",
				&k, &n);
	is_int(n, 3, "cmdline: three IOMMU keys before '--'");
	is_str(k[1].key, "intel_iommu", "cmdline: key");
	is_str(k[1].value, "on,sm_on", "cmdline: value");
	is_int(k[0].means, HOSTFACTS_DMA_LAZY, "cmdline: iommu.strict=0 lazy");
	is_int(k[2].means, HOSTFACTS_DMA_PASSTHROUGH, "cmdline: iommu=pt");
	hostfacts__cmdline_keys_free(k, n);

	is_int(cmdline_mode("iommu.strict=0 iommu=pt", &off),
	       HOSTFACTS_DMA_PASSTHROUGH, "cmdline: passthrough trumps lazy");
	is_int(cmdline_mode("iommu.strict=1 iommu.strict=off", &off),
	       HOSTFACTS_DMA_LAZY, "cmdline: the last word wins (kstrtobool)");
	is_int(cmdline_mode("intel_iommu=on,strict", &off),
	       HOSTFACTS_DMA_STRICT, "cmdline: intel_iommu=strict");
	is_int(cmdline_mode("amd_iommu=fullflush", &off), HOSTFACTS_DMA_STRICT,
	       "cmdline: amd_iommu=fullflush");
	is_int(cmdline_mode("iommu=pt iommu.passthrough=0", &off),
	       HOSTFACTS_DMA_UNKNOWN, "cmdline: passthrough undone");
	m = cmdline_mode("\"iommu.strict=y\" amd_iommu=off", &off);
	ok(m == HOSTFACTS_DMA_STRICT && off,
	   "cmdline: quotes removed, amd_iommu=off disables");
	is_int(cmdline_mode("iommu.strict iommu.strict=maybe", &off),
	       HOSTFACTS_DMA_UNKNOWN, "cmdline: bad values ask for nothing");
}

int main(void)
{
	tree_init();
	test_intel();
	test_policies();
	test_other_kinds();
	test_no_iommu();
	test_cmdline();
	tree_done();
	return tap_done();
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host facts other than the IOMMU on fake trees: the identity the store
 * keys on (and that it does key on it), boot_id, release, the build-id
 * note, NICs, CPUs, memory, and the gathered JSON as a whole.
 */
#include "collectors/hostfacts/hostfacts-priv.h"
#include "collectors/hostfacts/hostfacts.h"
#include "hostfacts-tree.h"
#include "store/store.h"

static void test_identity(void)
{
	char *root = new_root("identity"), *s = NULL;
	struct hostfacts_identity id;
	struct store *st;
	int64_t h1 = 0, h2 = 0;
	char *db;

	put(root, "/sys/class/dmi/id/product_uuid",
	    "4C4C4544-0042-3510-8052-B4C04F564433\n");
	put(root, "/sys/class/dmi/id/product_serial", "To Be Filled By O.E.M.");
	is_int(hostfacts__identity(root, &id), 0, "identity: read");
	is_str(id.key,
	       "machine-id=3d1219c7c4c5404aaa1f6d2a48adfda4;product-uuid="
	       "4c4c4544-0042-3510-8052-b4c04f564433",
	       "identity: machine-id and DMI uuid, lower-cased");
	ok(!id.product_serial, "identity: placeholder serial dropped");
	db = xasprintf("%s/store.db", tmpdir);
	if (!store__open(db, STORE_CREATE | STORE_MIGRATE, &st)) {
		store__host_upsert(st, "sut", id.key, &h1);
		hostfacts__identity_release(&id);
		hostfacts__identity(root, &id);
		store__host_upsert(st, "sut", id.key, &h2);
		store__close(st);
	}
	ok(h1 > 0 && h1 == h2, "identity: the store keys both reads as one");
	hostfacts__identity_release(&id);
	free(db);

	put(root, "/etc/machine-id", "uninitialized\n");
	put(root, "/sys/class/dmi/id/product_uuid",
	    "03000200-0400-0500-0006-000700080009\n");
	put(root, "/sys/class/dmi/id/board_serial", " /ABC 123/\n");
	hostfacts__identity(root, &id);
	is_str(id.key, "board-serial=/ABC_123/",
	       "identity: placeholders skipped, serial made one word");
	hostfacts__identity_release(&id);
	put(root, "/sys/class/dmi/id/board_serial", "0\n");
	ok(hostfacts__identity(root, &id) == -ENOENT && !id.key,
	   "identity: nothing stable is -ENOENT");
	hostfacts__identity_release(&id);

	is_int(hostfacts__boot_id(root, &s), 0, "boot_id read");
	is_str(s, "1625183a-e602-4b08-a994-45f7324c7095", "boot_id value");
	free(s);
	put(root, "/proc/sys/kernel/random/boot_id", "garbage\n");
	is_int(hostfacts__boot_id(root, &s), -EINVAL, "boot_id: junk refused");
	put(root, "/proc/sys/kernel/osrelease", "../x\n");
	is_int(hostfacts__kernel_release(root, &s), -EINVAL,
	       "release: a path is refused");
	free(root);
}

static void note(FILE *fp, const char *name, uint32_t type,
		 const unsigned char *desc, uint32_t descsz)
{
	uint32_t hdr[3] = { strlen(name) + 1, descsz, type };
	static const char zero[4];

	fwrite(hdr, sizeof(hdr), 1, fp);
	fwrite(name, hdr[0], 1, fp);
	fwrite(zero, (4 - hdr[0] % 4) % 4, 1, fp);
	fwrite(desc, descsz, 1, fp);
	fwrite(zero, (4 - descsz % 4) % 4, 1, fp);
}

static void test_build_id(void)
{
	static const unsigned char id[20] = { 0x85, 0xc7, 0xe4, 0xe2, 0xed,
					      0x76, 0xf4, 0x41, 0x7e, 0x8a };
	char *root = new_root("notes"), *path, *s = NULL;
	FILE *fp;

	path = xasprintf("%s/sys/kernel/notes", root);
	scratch__parent_dir(path);
	fp = fopen(path, "w");
	note(fp, "Xen", 6, (const unsigned char *)"6.1.102", 7);
	note(fp, "GNU", 3, id, sizeof(id));
	fclose(fp);
	is_int(hostfacts__build_id(root, &s), 0, "build id: found");
	is_str(s, "85c7e4e2ed76f4417e8a00000000000000000000",
	       "build id: hex of the GNU note after another note");
	free(s);
	/* Cut inside the GNU note's desc, then inside its header. */
	ok(!truncate(path, 45) && hostfacts__build_id(root, &s) == -EINVAL,
	   "build id: a truncated desc is refused");
	ok(!truncate(path, 30) && hostfacts__build_id(root, &s) == -EINVAL,
	   "build id: a header cut short is refused");
	free(path);
	free(root);
}

static void test_nics_cpu(void)
{
	char *root = intel_tree("nics", "DMA\n", "DMA\n", "0\n", NULL);
	struct hostfacts_memory mem;
	struct hostfacts_nic *n;
	struct hostfacts_cpu cpu;
	size_t nr;

	is_int(hostfacts__nics(root, &n, &nr), 0, "nics: read");
	is_int(nr, 2, "nics: loopback left out");
	is_str(n[0].name, "eth0", "nics: sorted by name");
	is_str(n[0].driver, "virtio_net", "nics: driver from sysfs");
	is_str(n[0].pci, "0000:00:03.0", "nics: the PCI function above virtio");
	is_int(n[0].iommu_group, 1, "nics: IOMMU group of the PCI function");
	is_int(n[0].numa_node, 0, "nics: NUMA node of the PCI function");
	ok(n[0].rx_queues == 2 && n[0].tx_queues == 2, "nics: queues counted");
	ok(n[0].mtu == 9000 && n[0].speed_mbps == -1, "nics: mtu, no speed");
	ok(n[1].is_virtual && n[1].iommu_group == -1 && !n[1].pci,
	   "nics: veth is virtual, without group");
	hostfacts__nics_free(n, nr);

	put(root, "/sys/devices/system/cpu/online", "0-3\n");
	put(root, "/sys/devices/system/cpu/possible", "0-7\n");
	for (int i = 0; i < 4; i++) {
		char *p = xasprintf("/sys/devices/system/cpu/cpu%d/topology/"
				    "physical_package_id",
				    i);
		put(root, p, i < 2 ? "0\n" : "1\n");
		free(p);
	}
	put(root, "/sys/devices/system/cpu/cpu0/topology/thread_siblings_list",
	    "0-1\n");
	put(root, "/sys/devices/system/cpu/cpufreq/policy0/scaling_governor",
	    "performance\n");
	put(root, "/sys/devices/system/cpu/cpufreq/policy2/scaling_governor",
	    "powersave\n");
	put(root, "/proc/cpuinfo",
	    "processor\t: 0\nCPU implementer\t: 0x41\nCPU part\t: 0xd4f\n");
	is_int(hostfacts__cpu(root, &cpu), 0, "cpu: read");
	ok(cpu.online == 4 && cpu.possible == 8, "cpu: counts from lists");
	ok(cpu.sockets == 2 && cpu.threads_per_core == 2, "cpu: topology");
	is_str(cpu.governor, "performance,powersave", "cpu: governors");
	is_str(cpu.model, "Arm Neoverse-V2", "cpu: Arm part named");
	hostfacts__cpu_release(&cpu);

	put(root, "/proc/meminfo",
	    "MemTotal:       24683656 kB\nMemAvailable:   1000 kB\n"
	    "HugePages_Total:      16\nHugepagesize:       2048 kB\n");
	is_int(hostfacts__memory(root, &mem), 0, "memory: read");
	ok(mem.total_kib == 24683656 && mem.hugepages == 16 &&
		   mem.hugepage_kib == 2048,
	   "memory: meminfo parsed");
	hostfacts__memory_release(&mem);
	free(root);
}

static void test_gather(void)
{
	static const char *const keys[] = {
		"format", "identity", "kernel", "iommu",      "dma_policy",
		"nics",	  "cpu",      "memory", "collectors", "warnings"
	};
	struct hostfacts_opts o = { .collectors = true };
	char *root =
		intel_tree("gather", "DMA-FQ\n", "DMA-FQ\n", "0\n", lazy_kmsg);
	json_t *j = NULL;
	bool all = true;
	size_t i;

	o.root = root;
	is_int(hostfacts__gather_opts(&o, &j), 0, "gather: fake tree");
	for (i = 0; i < ARRAY_SIZE(keys); i++)
		all &= json_object_get(j, keys[i]) != NULL;
	ok(all, "gather: every documented key");
	is_str(json_string_value(json_object_get(
		       json_object_get(j, "dma_policy"), "mode")),
	       "lazy", "gather: dma_policy.mode");
	ok(json_is_null(json_object_get(j, "collectors")),
	   "gather: collectors not asked about a copied tree");
	json_decref(j);
	o.root = "/nonexistent/iommu-bench";
	is_int(hostfacts__gather_opts(&o, &j), -ENOENT,
	       "gather: a missing root is an error");
	free(root);

	is_int(hf_cpulist_count("0-3,8-11"), 8, "cpulist: ranges");
	is_int(hf_cpulist_count("0-3x"), 0, "cpulist: junk");
	j = json_string_or_null("a\xff");
	is_str(json_string_value(j), "a?", "json: bad UTF-8 replaced");
	json_decref(j);
}

int main(void)
{
	tree_init();
	test_identity();
	test_build_id();
	test_nics_cpu();
	test_gather();
	tree_done();
	return tap_done();
}

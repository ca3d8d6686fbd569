// SPDX-License-Identifier: GPL-2.0-only
/*
 * The testbed VM's QEMU argv and guest command line from a matrix: the
 * arguments that decide what the guest's IOMMU does (caching mode off
 * unless asked, the NIC behind the vIOMMU, the mode's words last), and
 * the matrix keys that reach them; and the vCPU threads pinned to the
 * CPUs affinity names, on a real QEMU when there is one.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/host/qemu/qemu.h"
#include "capture.h"
#include "matrix-load.h"
#include "tap.h"
#include "util.h"

#define MATRIX(qemu_extra)                                                  \
	"[hosts.vm]\ntransport = \"qemu\"\nrole = \"sut\"\n"                \
	"address = \"10.77.0.2/24\"\nlink = \"peer\"\n"                     \
	"[hosts.vm.qemu]\nmemory = \"1G\"\ncpus = 3\n" qemu_extra           \
	"[hosts.peer]\ntransport = \"netns\"\naddress = \"10.77.0.1/24\"\n" \
	"[[kernels]]\nname = \"deb\"\npackage = "                           \
	"\"linux-image-6.1.0-57-amd64\"\n"                                  \
	"[[workloads]]\nname = \"rx\"\nserver = \"vm\"\nclient = \"peer\"\n"

/* A TCG boot with a tap; each test changes what it looks at. */
#define TCG_BOOT(console_arg)                                                  \
	{                                                                      \
		.accel = ACCEL_TCG, .image = "/c/vmlinuz",                     \
		.initrd = "/c/initrd", .cmdline = console_arg, .tap = "tap-x", \
		.agent_sock = "/run/x/agent.sock",                             \
		.console = "/run/x/console.log"                                \
	}

/*
 * The words as one string, joined by '|', for substring checks; @a is
 * released.
 */
static char *joined(struct strvec *a)
{
	char *s = xstrdup("|");
	size_t i;

	for (i = 0; i < a->nr; i++) {
		char *n = xasprintf("%s%s|", s, a->v[i]);

		free(s);
		s = n;
	}
	strvec__release(a);
	return s;
}

/* The VM's QEMU argv, joined; its argv[0] in @argv0 where asked. */
static char *argv_of(const struct matrix_host *h, const struct qemu_boot *b,
		     char **argv0)
{
	struct strvec a = { 0 };

	qemu__argv(h, b, &a);
	if (argv0)
		*argv0 = xstrdup(a.v[0]);
	return joined(&a);
}

/* The host "vm" of a matrix that must have loaded, or NULL (said). */
static const struct matrix_host *vm_of(const struct matrix *m, const char *what)
{
	if (!ok(m, "%s", what))
		return NULL;
	return &m->hosts[matrix__find_host(m, "vm")];
}

/* A matrix the loader must refuse, and the words it must say. */
struct refusal {
	const char *toml;
	const char *want;
	const char *what;
};

static void check_refusals(const struct refusal *r, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		load_refused(r[i].toml, r[i].want, r[i].what);
}

static void test_defaults(void)
{
	struct matrix *m = load(MATRIX(""));
	const struct matrix_host *h;
	struct qemu_boot b = TCG_BOOT("console=ttyS0");
	char *s, *argv0;

	b.agent_sock = "/run/x,y/agent.sock";
	b.qmp_sock = "/run/x,y/qmp.sock";
	h = vm_of(m, "a qemu host with a package kernel loads");
	if (!h)
		return;
	is_str(h->nic, "eth0", "the guest's NIC defaults to eth0");
	is_int(qemu_conf(h)->cpus, 3, "cpus");
	ok(qemu_conf(h)->iommu == QEMU_IOMMU_INTEL,
	   "the intel vIOMMU by default");
	ok(!qemu_conf(h)->caching_mode, "caching mode off by default");
	is_str(m->kernels[0].release, "6.1.0-57-amd64",
	       "the release comes with the package name");
	ok(m->kernels[0].kind == KERNEL_PACKAGE, "a package kernel");

	s = argv_of(h, &b, &argv0);
	is_str(argv0, "qemu-system-x86_64", "argv[0]");
	free(argv0);
	has_str(s, "|-device|intel-iommu,intremap=on,caching-mode=off|",
		"an Intel vIOMMU, caching mode off");
	has_str(s,
		"virtio-net-pci,netdev=n0,iommu_platform=on,"
		"disable-legacy=on|",
		"the NIC's DMA goes through the vIOMMU");
	has_str(s, "|-netdev|tap,id=n0,ifname=tap-x,script=no,downscript=no|",
		"the tap");
	has_str(s, "|-accel|tcg,thread=multi|-cpu|max|", "TCG");
	has_str(s, "|-m|1024M|-device|", "memory in MiB");
	has_str(s, "|-smp|3|", "cpus");
	has_str(s, "socket,id=agent,path=/run/x,,y/agent.sock,server=on",
		"a "
		"comma in a path is doubled, not an option separator");
	has_str(s, "|-qmp|unix:/run/x,,y/qmp.sock,server=on,wait=off|",
		"QEMU's monitor on a socket, to ask a silent guest's CPUs");
	has_str(s, "readonly=on", "the host's root is shared read-only");
	has_str(s, "|-no-reboot|", "a guest reboot or panic ends QEMU");
	has_str(s, "|-name|iommu-bench-vm,debug-threads=on|",
		"named threads: how the vCPUs are found to pin them");
	ok(!strstr(s, "-daemonize"), "QEMU stays our child");
	free(s);

	b.accel = ACCEL_KVM;
	b.tap = NULL;
	s = argv_of(h, &b, NULL);
	has_str(s, "|q35,kernel-irqchip=split|", "KVM: split irqchip");
	has_str(s, "|-accel|kvm|-cpu|host|", "KVM: host CPU");
	has_str(s, "|-netdev|user,id=n0,restrict=on|",
		"no link: a user-mode NIC that reaches nothing");
	free(s);
	matrix__free(m);
}

#define MATRIX_ARM64(qemu_extra)                                            \
	"[hosts.vm]\ntransport = \"qemu\"\nrole = \"sut\"\n"                \
	"address = \"10.77.0.2/24\"\nlink = \"peer\"\n"                     \
	"[hosts.vm.qemu]\narch = \"arm64\"\n" qemu_extra                    \
	"[hosts.peer]\ntransport = \"netns\"\naddress = \"10.77.0.1/24\"\n" \
	"[[kernels]]\nname = \"deb\"\npackage = "                           \
	"\"linux-image-6.1.0-57-arm64\"\n"                                  \
	"[[workloads]]\nname = \"rx\"\nserver = \"vm\"\nclient = \"peer\"\n"

/* The Arm guest: virt, GICv3, SMMUv3, an A57 under TCG, ttyAMA0. */
static void test_arm64(void)
{
	struct matrix *m = load(MATRIX_ARM64(""));
	const struct matrix_host *h;
	struct qemu_boot b = TCG_BOOT("console=ttyAMA0");
	char *s, *c, *argv0;

	h = vm_of(m, "an arm64 qemu host loads");
	if (!h)
		return;
	is_str(qemu_conf(h)->arch->name, "arm64", "arch");
	ok(qemu_conf(h)->iommu == QEMU_IOMMU_SMMUV3,
	   "arm64's vIOMMU by default: "
	   "the SMMUv3");
	is_str(qemu__machine(h)->binary, "qemu-system-aarch64", "its QEMU");
	s = argv_of(h, &b, &argv0);
	is_str(argv0, "qemu-system-aarch64", "argv[0]");
	free(argv0);
	has_str(s, "|-machine|virt,gic-version=3,iommu=smmuv3|",
		"virt with a GICv3 and an SMMUv3 before its PCIe root");
	has_str(s, "|-accel|tcg,thread=multi|-cpu|cortex-a57|",
		"an A57 under TCG (max emulates pointer authentication, 5x "
		"slower)");
	has_str(s,
		"virtio-net-pci,netdev=n0,iommu_platform=on,"
		"disable-legacy=on|",
		"the NIC's DMA goes through the SMMU");
	ok(!strstr(s, "intel-iommu"), "no Intel vIOMMU");
	free(s);
	c = qemu__cmdline(h, "/x/.output/arm64/iommu-bench", NULL, 0);
	has_str(c, "console=ttyAMA0 panic=-1 ", "the PL011 console");
	ok(!strstr(c, "intel_iommu"), "no intel_iommu=on");
	ok(!strstr(c, "no_timer_check"), "no x86 timer check to skip");
	ok(!strstr(c, "tsc=reliable"), "no TSC to trust: arm64's timer");
	has_str(c, "iommu_bench.exe=/x/.output/arm64/iommu-bench",
		"the agent named is the arm64 one");
	free(c);
	matrix__free(m);

	m = load(MATRIX_ARM64("iommu = \"none\"\n"));
	h = vm_of(m, "an arm64 host without a vIOMMU loads");
	if (!h)
		return;
	s = argv_of(h, &b, NULL);
	has_str(s, "|-machine|virt,gic-version=3|", "no SMMUv3");
	has_str(s, "|virtio-net-pci,netdev=n0,disable-legacy=on|",
		"no iommu_platform without an IOMMU");
	free(s);
	matrix__free(m);
}

/* The other vIOMMUs QEMU emulates: AMD-Vi on q35, virtio-iommu on both. */
static void test_iommus(void)
{
	static const struct {
		const char *toml, *device, *what;
	} cases[] = {
		{ MATRIX("iommu = \"amd\"\n"), "|-device|amd-iommu|",
		  "AMD-Vi on q35" },
		{ MATRIX("iommu = \"virtio\"\n"), "|-device|virtio-iommu-pci|",
		  "virtio-iommu on q35" },
		{ MATRIX_ARM64("iommu = \"virtio\"\n"),
		  "|-device|virtio-iommu-pci|", "virtio-iommu on virt" },
	};
	struct qemu_boot b = TCG_BOOT("c");
	struct strvec mods = { 0 };
	const struct matrix_host *h;
	struct matrix *m;
	size_t i;
	char *s;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		m = load(cases[i].toml);
		h = vm_of(m, cases[i].what);
		if (!h)
			continue;
		s = argv_of(h, &b, NULL);
		has_str(s, cases[i].device, cases[i].what);
		ok(!strstr(s, "intel-iommu") && !strstr(s, "iommu=smmuv3"),
		   "%s: and no other vIOMMU", cases[i].what);
		has_str(s, "iommu_platform=on",
			"the NIC's DMA goes through it");
		free(s);
		s = qemu__cmdline(h, "/x/iommu-bench", NULL, 0);
		ok(!strstr(s, "intel_iommu"), "%s: no intel_iommu=on",
		   cases[i].what);
		free(s);
		qemu__guest_modules(h, &mods);
		s = joined(&mods);
		if (qemu_conf(h)->iommu == QEMU_IOMMU_VIRTIO)
			is_str(s, "|virtio_iommu|",
			       "virtio-iommu's driver loaded first");
		else
			is_int(mods.nr, 0, "AMD-Vi's driver is built in");
		free(s);
		strvec__release(&mods);
		matrix__free(m);
	}
}

static void test_cmdline(void)
{
	struct matrix *m = load(MATRIX("cmdline = [\"loglevel=4\"]\n"
				       "caching_mode = true\n"));
	const char *args[] = { "iommu.strict=0", "quiet" };
	const struct matrix_host *h;
	struct qemu_boot b = TCG_BOOT("c");
	char *c, *s;

	h = vm_of(m, "qemu cmdline and caching_mode load");
	if (!h)
		return;
	c = qemu__cmdline(h, "/usr/bin/iommu-bench", args, 2);
	has_str(c,
		"console=ttyS0 panic=-1 no_timer_check tsc=reliable "
		"sysrq_always_enabled intel_iommu=on ",
		"console, panic, no boot-time timer check (a busy host "
		"fails it), the TSC kept as the clock, sysrq-l allowed, the "
		"vIOMMU on");
	has_str(c,
		" iommu_bench.ip=10.77.0.2/24 iommu_bench.nic=eth0 "
		"iommu_bench.exe=/usr/bin/iommu-bench ",
		"the keys the guest's init reads");
	has_str(c, "loglevel=4 iommu.strict=0 quiet",
		"the host's words, then the kernel's and mode's, last");
	ok(strstr(c, "iommu_bench.machine_id=") &&
		   strlen(strstr(c, "iommu_bench.machine_id=") +
			  strlen("iommu_bench.machine_id=")) > 32,
	   "a machine id");
	free(c);
	s = argv_of(h, &b, NULL);
	has_str(s, "caching-mode=on", "caching_mode = true reaches QEMU");
	free(s);
	matrix__free(m);
}

static const struct refusal matrix_refusals[] = {
	{ MATRIX("caching_mode = 1\n"), "caching_mode",
	  "caching_mode must be a boolean" },
	{ MATRIX("iommu = \"arm\"\n"), "iommu",
	  "an unknown vIOMMU is refused" },
	{ MATRIX("iommu = \"smmuv3\"\n"),
	  "it has \"intel\", \"none\", \"amd\", \"virtio\"",
	  "one another arch has is refused, naming this arch's" },
	{ MATRIX("iommu = \"none\"\ncaching_mode = true\n"),
	  "only the intel vIOMMU has it",
	  "caching mode without the intel vIOMMU" },
	{ "[hosts.vm]\ntransport = \"qemu\"\nrole = \"sut\"\n"
	  "[hosts.peer]\ntransport = \"ssh\"\naddress = \"p\"\n"
	  "[[kernels]]\nname = \"deb\"\npackage = \"linux-headers-6.1\"\n"
	  "[[workloads]]\nname = \"rx\"\nserver = \"vm\"\n"
	  "client = \"peer\"\n",
	  "not a Debian kernel image package",
	  "a package that is not linux-image-*" },
	{ "[hosts.sut]\ntransport = \"local\"\nrole = \"sut\"\n"
	  "[hosts.peer]\ntransport = \"ssh\"\naddress = \"p\"\n"
	  "[[kernels]]\nname = \"deb\"\n"
	  "package = \"linux-image-6.1.0-57-amd64\"\n"
	  "[[workloads]]\nname = \"rx\"\nserver = \"sut\"\n"
	  "client = \"peer\"\n",
	  "an ssh host installs with its dpkg; host 'sut' is neither",
	  "a package kernel on this machine is refused" },
	{ MATRIX("") "[[kernels]]\nname = \"k2\"\nimage = \"/boot/x\"\n"
		     "keep = true\n",
	  "keep: kernel 'k2' is no package",
	  "keep on a kernel that is no package" },
	{ MATRIX("") "[modes.x]\nmethod = \"reboot\"\ngroup_type = \"DMA\"\n",
	  "boots with the mode's cmdline", "method reboot needs a cmdline" },
};

static const struct refusal affinity_refusals[] = {
	{ MATRIX("affinity = { vcpus = [1, 2] }\n"),
	  "vcpus: 2 CPUs for 3 vCPUs; give one per vCPU",
	  "a CPU for each vCPU" },
	{ MATRIX("affinity = { vcpus = 1 }\n"),
	  "vcpus: 3 vCPUs need one CPU each", "a number only for one vCPU" },
	{ MATRIX("affinity = { vcpus = [1, 2, 3], i0 = 0 }\n"),
	  "did you mean 'io'?", "a misspelt key" },
	{ MATRIX("affinity = { io = -1 }\n"), "io: CPU -1 is out of range",
	  "a negative CPU" },
};

static void test_affinity(void)
{
	struct matrix *m;
	char *e;

	m = load(MATRIX("affinity = { vcpus = [1, 2, 3], io = 0 }\n"));
	if (ok(m, "affinity loads")) {
		const struct matrix_host *h =
			&m->hosts[matrix__find_host(m, "vm")];

		ok(qemu_conf(h)->nr_vcpu_cpus == 3 &&
			   qemu_conf(h)->vcpu_cpus[0] == 1 &&
			   qemu_conf(h)->vcpu_cpus[2] == 3 &&
			   qemu_conf(h)->io_cpu == 0,
		   "one CPU per vCPU, and QEMU's own");
	}
	matrix__free(m);
	m = load(MATRIX(""));
	ok(m && !qemu_conf(&m->hosts[0])->nr_vcpu_cpus &&
		   qemu_conf(&m->hosts[0])->io_cpu == -1,
	   "not pinned by default");
	matrix__free(m);
	check_refusals(affinity_refusals, ARRAY_SIZE(affinity_refusals));

	/* The check at open: CPU 4095 is no CPU this machine runs us on. */
	m = load(MATRIX("affinity = { vcpus = [0, 0, 4095] }\n"));
	if (m) {
		e = NULL;
		is_int(qemu__check_affinity(&m->hosts[0], &e), -EINVAL,
		       "a CPU the controller may not run on is refused");
		has_str(e, "CPU 4095 is not one this controller may run on",
			"and named");
		free(e);
	}
	matrix__free(m);
	m = load(MATRIX("affinity = { vcpus = [0, 0, 0], io = 0 }\n"));
	ok(m && !qemu__check_affinity(&m->hosts[0], NULL),
	   "CPU 0 is one it may run on");
	matrix__free(m);
}

/* The second seed's devices: an e1000e at a jumbo MTU, an NVMe disk. */
static void test_devices(void)
{
	struct matrix *m = load(MATRIX(
		"nic = \"e1000e\"\nmtu = 9000\n"
		"disks = [{ name = \"nvme0\", model = \"nvme\", size = "
		"\"64M\" }, { name = \"scratch-b\", size = \"1G\" }]\n"));
	const char *disks[] = { "/run/q/disk-nvme0.img", "/run/q,x/b.img" };
	struct qemu_boot b = TCG_BOOT("console=ttyS0");
	const struct matrix_host *h;
	struct strvec a = { 0 };
	char *s;

	b.disks = disks;
	h = vm_of(m, "nic, mtu and disks load");
	if (!h)
		return;
	ok(qemu_conf(h)->nic == QEMU_NIC_E1000E, "nic e1000e");
	is_int(qemu_conf(h)->mtu, 9000, "mtu");
	is_int(qemu_conf(h)->nr_disks, 2, "two disks");
	is_int(qemu_conf(h)->disks[0].size, 64 << 20, "a disk's size");
	ok(qemu_conf(h)->disks[1].model == QEMU_DISK_NVME, "nvme by default");
	ok(matrix_host__disk(h, "scratch-b") == &qemu_conf(h)->disks[1],
	   "a disk found by name");
	ok(!matrix_host__disk(h, "nvme1"), "an unknown disk is not found");
	s = argv_of(h, &b, NULL);
	has_str(s, "|-device|e1000e,netdev=n0|", "an e1000e NIC");
	ok(!strstr(s, "virtio-net"), "and no virtio NIC");
	has_str(s,
		"|-drive|file=/run/q/disk-nvme0.img,if=none,id=disk0,"
		"format=raw,cache=unsafe|-device|nvme,drive=disk0,"
		"serial=nvme0|",
		"an NVMe disk whose serial is its name");
	has_str(s, "file=/run/q,,x/b.img,", "a comma in its image doubled");
	free(s);
	qemu__guest_modules(h, &a);
	s = joined(&a);
	is_str(s, "|e1000e|nvme|", "the guest gets their drivers, once each");
	free(s);
	s = qemu__cmdline(h, "/x/iommu-bench", NULL, 0);
	has_str(s, " iommu_bench.mtu=9000 ", "the guest sets the MTU");
	free(s);
	s = argv_of(h, &b, NULL);
	ok(!strstr(s, "edu"), "no spare device unless a dma_map asks");
	free(s);
	matrix__free(m);

	m = load(MATRIX("") "[[workloads]]\nname = \"dm\"\ntype = \"dma_map\"\n"
			    "host = \"vm\"\n");
	h = m ? &m->hosts[0] : NULL;
	s = h ? argv_of(h, &b, NULL) : NULL;
	ok(s && strstr(s, "|-device|edu,addr=0x10|"),
	   "a dma_map without a device: the VM gets the spare one at slot 0x10");
	free(s);
	matrix__free(m);

	m = load(MATRIX(""));
	if (m) {
		h = &m->hosts[0];
		ok(qemu_conf(h)->nic == QEMU_NIC_VIRTIO && !qemu_conf(h)->mtu &&
			   !qemu_conf(h)->nr_disks,
		   "virtio, the default MTU and no disks by default");
		s = qemu__cmdline(h, "/x/iommu-bench", NULL, 0);
		ok(!strstr(s, "mtu"), "no MTU asked of the guest");
		free(s);
		qemu__guest_modules(h, &a);
		is_int(a.nr, 0, "no drivers beyond the testbed's own");
		strvec__release(&a);
		matrix__free(m);
	}
}

static const struct refusal device_refusals[] = {
	{ MATRIX("nic = \"e1000\"\n"), "did you mean 'e1000e'",
	  "nic e1000: did you mean" },
	{ MATRIX("nic = \"e1000\"\n"),
	  ":9:7:", "at the value's line and column" },
	{ MATRIX("nic = \"e1000e\"\nmtu = 9216\n"),
	  "mtu: 9216 is more than an e1000e NIC takes (68..9000)",
	  "an e1000e's jumbo limit" },
	{ MATRIX("mtu = 70000\n"), "mtu", "an MTU out of range" },
	{ MATRIX("mtu = 70000\n"), "70000", "names the value" },
	{ MATRIX("disks = [{ name = \"d\" }]\n"), "has no size",
	  "a disk without a size" },
	{ MATRIX("disks = [{ name = \"d\", size = \"1G\", "
		 "model = \"nmve\" }]\n"),
	  "did you mean 'nvme'", "a model typo" },
	{ MATRIX("disks = [{ name = \"d\", size = \"1G\" }, "
		 "{ name = \"d\", size = \"1G\" }]\n"),
	  "two disks named 'd'", "two disks of one name" },
	{ MATRIX("disks = [{ name = \"../x\", size = \"1G\" }]\n"), "name",
	  "a disk name that is not a safe name" },
	{ MATRIX("disks = [{ name = \"a23456789012345678901\", "
		 "size = \"1G\" }]\n"),
	  "longer than 20", "a name too long for a serial number" },
	{ MATRIX("disks = [{ name = \"d\", size = \"1K\" }]\n"), "out of range",
	  "a disk too small" },
	{ MATRIX("disks = { name = \"d\" }\n"), "expected a list of tables",
	  "disks not a list" },
};

#define FIO(keys) "[[workloads]]\nname = \"f\"\ntype = \"fio\"\n" keys
/* The VM with one disk of that name. */
#define DISK(name) MATRIX("disks = [{ name = \"" name "\", size = \"1G\" }]\n")

static const struct refusal fio_refusals[] = {
	{ DISK("nvme0") FIO("host = \"vm\"\ntarget = \"nvme1\"\n"),
	  "did you mean 'nvme0'", "an unknown disk: did you mean" },
	{ MATRIX("") FIO("host = \"vm\"\ntarget = \"nvme0\"\n"),
	  "host 'vm' has no disks", "a host without that disk" },
	{ MATRIX("") FIO("host = \"peer\"\ntarget = \"d\"\n"),
	  "'peer' is a peer", "fio measures a SUT" },
	{ DISK("d") FIO("server = \"vm\"\nhost = \"vm\"\ntarget = \"d\"\n"),
	  "server", "fio takes host, not server and client" },
	{ DISK("d") FIO("host = \"vm\"\ntarget = \"d\"\nrw = \"randwirte\"\n"),
	  "did you mean 'randwrite'", "an rw typo" },
	{ "[run]\nmodes = [\"lazy\"]\n[modes.lazy]\nmethod = \"sysfs\"\n" DISK(
		  "d") FIO("host = \"vm\"\ntarget = \"d\"\n"),
	  "switches the IOMMU group of host 'vm''s NIC",
	  "a sysfs switch where a fio workload measures a disk" },
	{ MATRIX_ARM64("disks = [{ name = \"d\", size = \"1G\" }]\n")
		  FIO("host = \"vm\"\ntarget = \"d\"\n"),
	  "needs a guest of this machine's arch",
	  "fio in a guest of another arch" },
	{ DISK("d") FIO("host = \"vm\"\ntarget = \"d\"\nbs = \"1000\"\n"),
	  "multiple of 512", "a block size the device cannot take" },
	{ "[hosts.s]\ntransport = \"ssh\"\nrole = \"sut\"\naddress = \"s\"\n"
	  "disks = [{ name = \"data\", path = \"/srv/x\" }]\n" FIO(
		  "host = \"s\"\ntarget = \"data\"\n"),
	  "not under /dev", "an ssh host's disk is a device" },
};

static void test_fio(void)
{
	const struct matrix_workload *w;
	struct matrix *m;

	m = load(DISK("nvme0") FIO("host = \"vm\"\ntarget = \"nvme0\"\n"
				   "rw = \"write\"\nbs = \"64K\"\niodepth = 8\n"
				   "duration = \"3s\"\n"));
	if (ok(m, "a fio workload on the VM's disk loads")) {
		w = &m->workloads[matrix__find_workload(m, "f")];
		ok(w->type == WORKLOAD_FIO && w->sut == w->server &&
			   w->server == w->client &&
			   !strcmp(m->hosts[w->sut].name, "vm"),
		   "one host: the SUT it runs on");
		ok(w->u.fio.rw == FIO_WRITE && w->u.fio.bs == 65536 &&
			   w->u.fio.iodepth == 8 && w->u.fio.numjobs == 1 &&
			   w->u.fio.direct,
		   "rw, bs, iodepth; one job and O_DIRECT by default");
		is_str(matrix_fio__disk(m, w)->name, "nvme0", "its disk");
		is_int(matrix_workload__trial_ms(w), 3000, "3 s a trial");
		matrix__free(m);
	}
	check_refusals(fio_refusals, ARRAY_SIZE(fio_refusals));
	m = load(DISK("d") FIO("host = \"vm\"\ntarget = \"d\"\n"));
	if (ok(m, "lazy with method auto on a host with a fio workload")) {
		ok(matrix__apply(&m->hosts[0],
				 &m->modes[matrix__find_mode(m, "lazy")]) ==
			   APPLY_RESTART,
		   "is booted, not switched through the NIC's group");
		matrix__free(m);
	}
	m = load("[run]\nmodes = [\"current\"]\n"
		 "[hosts.s]\ntransport = \"ssh\"\nrole = \"sut\"\n"
		 "address = \"s\"\n"
		 "disks = [{ name = \"data\", path = \"/dev/nvme1n1\" }]\n" FIO(
			 "host = \"s\"\ntarget = \"data\"\n"
			 "rw = \"randwrite\"\ndestructive = true\n"));
	if (ok(m, "an ssh host's disk by path, a destructive write")) {
		w = &m->workloads[0];
		is_str(matrix_fio__disk(m, w)->path, "/dev/nvme1n1",
		       "the path the agent will check");
		ok(w->u.fio.destructive, "destructive");
		matrix__free(m);
	}
}

static void test_escape(void)
{
	char *e = qemu__escape("a,b,,c");

	is_str(e, "a,,b,,,,c", "commas doubled");
	free(e);
}

/*
 * The VM's state folder: one run at a time holds it, a refused run
 * leaves the holder's lock alone, and the last holder takes the folder
 * away unless something (a console) is kept in it.
 */
static void test_state_dir(void)
{
	struct matrix *m = load(MATRIX(""));
	char base[] = "/tmp/test-qemu.XXXXXX", *err = NULL, *p;
	struct qemu_vm a = { 0 }, b = { 0 }, c = { 0 };
	struct host h = { 0 };
	struct stat sb;

	if (!m || !mkdtemp(base)) {
		ok(0, "a matrix and a scratch folder");
		return;
	}
	h.m = &m->hosts[matrix__find_host(m, "vm")];
	h.matrix = m;
	h.state_dir = base;
	is_int(qemu_vm__lock(&h, &a, "qemu", &err), 0,
	       "the first run locks it");
	is_int(qemu_vm__lock(&h, &b, "qemu", &err), -EBUSY,
	       "a second is refused");
	has_str(err, "is in use by another run", "... saying so");
	free(err);
	err = NULL;
	ok(b.lock_fd < 0, "... and holds no descriptor of its lock");
	qemu_vm__release(&h, &b);
	p = xasprintf("%s/qemu-vm/lock", base);
	ok(!stat(p, &sb), "the refused run's release leaves the holder's lock");
	qemu_vm__release(&h, &a);
	ok(stat(p, &sb) && errno == ENOENT, "the holder's release removes it");
	free(p);
	p = xasprintf("%s/qemu-vm", base);
	ok(stat(p, &sb) && errno == ENOENT, "... and the empty folder");

	is_int(qemu_vm__lock(&h, &c, "qemu", &err), 0,
	       "the next run locks anew");
	free(err);
	err = NULL;
	free(p);
	p = xasprintf("%s/qemu-vm/console.log", base);
	fclose(fopen(p, "w"));
	qemu_vm__release(&h, &c);
	ok(!stat(p, &sb), "a folder with a console kept stays");
	unlink(p);
	free(p);
	p = xasprintf("%s/qemu-vm", base);
	rmdir(p);
	free(p);
	rmdir(base);
	matrix__free(m);
}

/*
 * A console as a silent 6.1 guest left it (CI, stop 53): two late
 * initcalls after the patch, then nothing; and the answers to sysrq-l,
 * CPU 0's taken from a real one here, CPU 1's as the profile trial's
 * NMI backtraces found a CPU caught on a stale int3.
 */
#define SILENT_AFTER_PATCH                                                  \
	"[    1.824004] sched_clock: Marking stable (1792072797, 30972780)" \
	"->(1989099049, -166053472)\r\n"                                    \
	"[    1.833613] registered taskstats version 1\r\n"                 \
	"[    1.835242] Loading compiled-in X.509 certificates\r\n"
#define MARKING_STABLE \
	"[    1.441325] sched_clock: Marking stable (1, 2)->(3, 4)\n"
#define SYSRQ_CPU0_WAITS                                                 \
	"[   61.307459] sysrq: Show backtrace of all active CPUs\r\n"    \
	"[   61.307823] NMI backtrace for cpu 0\r\n"                     \
	"[   61.307975] CPU: 0 PID: 0 Comm: swapper/0 Not tainted "      \
	"6.1.0-57-amd64 #1  Debian 6.1.192-3\r\n"                        \
	"[   61.308298] Call Trace:\r\n"                                 \
	"[   61.308828]  <IRQ>\r\n"                                      \
	"[   61.309089]  dump_stack_lvl+0x44/0x5c\r\n"                   \
	"[   61.309336]  nmi_cpu_backtrace.cold+0x32/0x79\r\n"           \
	"[   61.309461]  __handle_sysrq.cold+0x44/0x11c\r\n"             \
	"[   61.309674]  atkbd_interrupt+0x64b/0x6e0\r\n"                \
	"[   61.310039]  </IRQ>\r\n"                                     \
	"[   61.310064]  <TASK>\r\n"                                     \
	"[   61.310083]  asm_common_interrupt+0x22/0x40\r\n"             \
	"[   61.310219] RIP: 0010:native_safe_halt+0xb/0x10\r\n"         \
	"[   61.310524] RSP: 0018:ffffffffae003e98 EFLAGS: 00000246\r\n" \
	"[   61.310928]  default_idle_call+0x38/0xf0\r\n"                \
	"[   61.311298]  </TASK>\r\n"                                    \
	"[   61.311394] Sending NMI from CPU 0 to CPUs 1:\r\n"
#define SYSRQ_CPU1_INT3                                               \
	"[   61.312134] NMI backtrace for cpu 1\r\n"                  \
	"[   61.312200] Call Trace:\r\n"                              \
	"[   61.312210]  <NMI>\r\n"                                   \
	"[   61.312220]  nmi_cpu_backtrace.cold+0x32/0x79\r\n"        \
	"[   61.312230]  </NMI>\r\n"                                  \
	"[   61.312240]  <TASK>\r\n"                                  \
	"[   61.312250] RIP: 0010:kprobe_int3_handler+0x2a/0x1b0\r\n" \
	"[   61.312260]  exc_int3+0x3d/0x80\r\n"                      \
	"[   61.312270]  asm_exc_int3+0x35/0x40\r\n"                  \
	"[   61.312280] RIP: 0010:sched_clock_cpu+0xa/0x1c0\r\n"      \
	"[   61.312290]  </TASK>\r\n"
#define SYSRQ_CPU1_IDLE                                              \
	"[   61.312134] NMI backtrace for cpu 1 skipped: idling at " \
	"native_safe_halt+0xb/0x10\r\n"

/* Where the CPUs were, in words, from the answers to sysrq-l. */
static void test_cpus_said(void)
{
	static const char two[] = SYSRQ_CPU0_WAITS SYSRQ_CPU1_INT3
		SYSRQ_CPU0_WAITS SYSRQ_CPU1_IDLE;
	bool int3 = true;
	char *s;

	s = qemu__cpus_said(SILENT_AFTER_PATCH, strlen(SILENT_AFTER_PATCH),
			    &int3);
	ok(!s && !int3, "no sysrq answer on the console: nothing said");
	free(s);
	s = qemu__cpus_said(two, strlen(two), &int3);
	is_str(s,
	       "cpu 0 at native_safe_halt+0xb/0x10; cpu 1 at "
	       "kprobe_int3_handler+0x2a/0x1b0, in the int3 handler; "
	       "cpu 1 idle at native_safe_halt+0xb/0x10",
	       "each CPU's place, where the NMI found it, once per place");
	ok(int3, "... and a CPU was in the int3 handler");
	free(s);
}

/*
 * The boots qemu_host__restart() boots again: the two ends seen of the
 * guest's code patching under TCG, and nothing else.
 */
static void test_patch_race(void)
{
	static const char *const cases[][2] = {
		{ "[    2.1] Oops: int3: 0000 [#1] PREEMPT SMP NOPTI\n"
		  "[    2.1] RIP: 0010:sched_clock_cpu+0x9/0x1c0\n"
		  "[    2.2] Kernel panic - not syncing: Fatal exception\n",
		  "Oops: int3" },
		{ "[    1.440728] IPI shorthand broadcast: enabled\r\n"
		  "[    1.441325] sched_clock: Marking stable (1413170315, "
		  "26360189)->(1463799687, -24269183)\r\n\r\n",
		  "sched_clock: Marking stable" },
		/* The boot went on after the patch: a hang elsewhere. */
		{ "[    1.441325] sched_clock: Marking stable (1, 2)->(3, 4)\n"
		  "[    1.452001] registered taskstats version 1\n",
		  NULL },
		{ "[    2.0] general protection fault, probably for "
		  "non-canonical address\n[    2.1] Kernel panic - not "
		  "syncing: Fatal exception\n",
		  NULL },
		{ "", NULL },
		/* Silent after the patch, then a CPU caught in the loop. */
		{ SILENT_AFTER_PATCH SYSRQ_CPU0_WAITS SYSRQ_CPU1_INT3,
		  "kept trapping on a breakpoint" },
		/* Asked, and no CPU was at an int3: a guest's hang. */
		{ SILENT_AFTER_PATCH SYSRQ_CPU0_WAITS SYSRQ_CPU1_IDLE, NULL },
		/* The CPUs' answer outweighs the last line... */
		{ MARKING_STABLE SYSRQ_CPU0_WAITS SYSRQ_CPU1_IDLE, NULL },
		/* ... which counts when the question got no answer. */
		{ MARKING_STABLE "[   61.3] " QEMU_SYSRQ_LINE "\n",
		  "sched_clock: Marking stable" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const char *got =
			qemu__patch_race(cases[i][0], strlen(cases[i][0]));

		if (cases[i][1])
			ok(got && strstr(got, cases[i][1]),
			   "patch race %zu: named as %s (got: %s)", i,
			   cases[i][1], got ? got : "none");
		else
			ok(!got, "console %zu is no patch race (got: %s)", i,
			   got ? got : "none");
	}
}

int main(void)
{
	test_defaults();
	test_arm64();
	test_iommus();
	test_cmdline();
	check_refusals(matrix_refusals, ARRAY_SIZE(matrix_refusals));
	test_affinity();
	test_devices();
	check_refusals(device_refusals, ARRAY_SIZE(device_refusals));
	test_fio();
	test_escape();
	test_state_dir();
	test_patch_race();
	test_cpus_said();
	config_errors__release(&errs);
	return tap_done();
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * The qemu transport's keys: [hosts.NAME.qemu], the VM the tool starts
 * per boot (host-qemu.c makes it QEMU's argv), and the hooks by which
 * the matrix asks what only the VM knows (its arch, its disks, its
 * spare PCI function).
 */
#include <stdlib.h>
#include <string.h>

#include "bench/host/host-transports.h"
#include "bench/host/qemu/qemu-conf.h"
#include "bench/matrix/matrix-priv.h"
#include "util.h"

static const char *const host_keys[] = {
	"address",	"nic",		 "link", "allow_reboot", "reboot",
	"boot_timeout", "boot_estimate", "qemu", "kernel_dir",	 NULL,
};

static const char *const accel_names[] = { "auto", "kvm", "tcg", NULL };
/* In the order of enum qemu_iommu. */
static const char *const iommu_names[] = { "intel", "none",   "smmuv3",
					   "amd",   "virtio", NULL };

/*
 * Where QEMU emulates each: Intel's and AMD's on q35, SMMUv3 on Arm's
 * virt, virtio-iommu on both (found through ACPI's VIOT table on x86).
 */
static const char *const iommu_arches[][3] = {
	[QEMU_IOMMU_INTEL] = { "x86_64" },
	[QEMU_IOMMU_NONE] = { "x86_64", "arm64" },
	[QEMU_IOMMU_SMMUV3] = { "arm64" },
	[QEMU_IOMMU_AMD] = { "x86_64" },
	[QEMU_IOMMU_VIRTIO] = { "x86_64", "arm64" },
};

bool qemu_iommu__emulated(enum qemu_iommu iommu, const struct arch *arch)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(iommu_arches[0]); i++)
		if (iommu_arches[iommu][i] &&
		    !strcmp(iommu_arches[iommu][i], arch->name))
			return true;
	return false;
}
/* In the order of enum qemu_nic and enum qemu_disk_model. */
static const char *const nic_names[] = { "virtio", "e1000e", NULL };
static const char *const spare_names[] = { "edu", "virtio", NULL };
static const char *const spare_models[] = { "edu", "virtio-rng-pci" };
/*
 * The largest MTU each NIC model takes: virtio-net's MAX_MTU, and the
 * 82574's 9018-byte jumbo frame less its Ethernet header and FCS.
 */
static const unsigned int nic_max_mtu[] = { 65535, 9000 };
/* The guests the testbed knows how to build and boot. */
static const char *const qemu_arch_names[] = { "x86_64", "arm64", NULL };

/* affinity = { vcpus = [1], io = 0 }: which host CPU runs what. */
static void parse_qemu_affinity(struct mx *mx, struct matrix_host *h,
				const struct toml_value *a)
{
	static const char *const keys[] = { "vcpus", "io", NULL };
	size_t nr = 0;
	int *io = NULL;

	if (!a || !mx_is(mx, a, TOML_TABLE, "affinity"))
		return;
	mx_check_keys(mx, a, keys, "affinity");
	mx_cpus(mx, a, "vcpus", qemu_conf(h)->cpus, "vCPU", "vCPUs",
		&qemu_conf(h)->vcpu_cpus, &qemu_conf(h)->nr_vcpu_cpus);
	if (mx_cpus(mx, a, "io", 1, "thread", "threads", &io, &nr) > 0)
		qemu_conf(h)->io_cpu = io[0];
	free(io);
}

/* This machine's, where the testbed has a guest for it. */
static const struct arch *qemu_arch__default(void)
{
	const struct arch *a = arch__native();
	size_t i;

	for (i = 0; a && qemu_arch_names[i]; i++)
		if (!strcmp(a->name, qemu_arch_names[i]))
			return a;
	return arch__find("x86_64");
}

const char *qemu_iommu__name(enum qemu_iommu iommu)
{
	return iommu_names[iommu];
}

enum qemu_iommu qemu_iommu__default(const struct arch *arch)
{
	return arch && !strcmp(arch->name, "arm64") ? QEMU_IOMMU_SMMUV3 :
						      QEMU_IOMMU_INTEL;
}

/* arch = "arm64": the kernel's names, with the toolchains' pointed at. */
static void parse_qemu_arch(struct mx *mx, struct matrix_host *h,
			    const struct toml_value *tab)
{
	const struct toml_value *v = toml_table__get(tab, "arch");
	const struct arch *by_machine;
	int arch;

	if (v && v->type == TOML_STRING && !arch__find(v->u.str.ptr)) {
		by_machine = arch__by_machine(v->u.str.ptr);
		if (!by_machine)
			by_machine = arch__find(v->u.str.ptr);
		if (by_machine && !strcmp(v->u.str.ptr, by_machine->machine)) {
			mx_err(mx, v->pos,
			       "arch: '%s' is uname's name; the kernel's, "
			       "which the matrix uses, is '%s'",
			       v->u.str.ptr, by_machine->name);
			return;
		}
	}
	if (v && v->type == TOML_STRING && !strcmp(v->u.str.ptr, "amd64")) {
		mx_err(mx, v->pos,
		       "arch: 'amd64' is Debian's name; the kernel's, which "
		       "the matrix uses, is 'x86_64'");
		return;
	}
	if (mx_enum(mx, tab, "arch", qemu_arch_names, &arch) > 0)
		qemu_conf(h)->arch = arch__find(qemu_arch_names[arch]);
}

/* Each vIOMMU exists on one machine type only. */
const char *qemu_nic__name(enum qemu_nic nic)
{
	return nic_names[nic];
}

const char *qemu_spare__model(enum qemu_spare spare)
{
	return spare_models[spare];
}

static void parse_qemu_nic(struct mx *mx, struct matrix_host *h,
			   const struct toml_value *tab)
{
	unsigned int max;
	int nic;

	if (mx_enum(mx, tab, "nic", nic_names, &nic) > 0)
		qemu_conf(h)->nic = nic;
	max = nic_max_mtu[qemu_conf(h)->nic];
	if (mx_uint32(mx, tab, "mtu", 68, 65535, &qemu_conf(h)->mtu) > 0 &&
	    qemu_conf(h)->mtu > max)
		mx_err(mx, mx_val_pos(tab, "mtu", h->pos),
		       "mtu: %u is more than an %s NIC takes (68..%u)",
		       qemu_conf(h)->mtu, nic_names[qemu_conf(h)->nic], max);
}

static void check_qemu_iommu(struct mx *mx, struct matrix_host *h,
			     const struct toml_value *tab)
{
	char has[80] = "";
	size_t i, n = 0;

	if (qemu_iommu__emulated(qemu_conf(h)->iommu, qemu_conf(h)->arch))
		return;
	for (i = 0; iommu_names[i]; i++)
		if (qemu_iommu__emulated(i, qemu_conf(h)->arch))
			snprintf(has + strlen(has), sizeof(has) - strlen(has),
				 "%s\"%s\"", n++ ? ", " : "", iommu_names[i]);
	mx_err(mx, mx_val_pos(tab, "iommu", h->pos),
	       "iommu: \"%s\" is not emulated on an %s guest (host '%s'); "
	       "it has %s",
	       iommu_names[qemu_conf(h)->iommu], qemu_conf(h)->arch->name,
	       h->name, has);
}

void qemu_conf__parse(struct mx *mx, struct matrix_host *h,
		      const struct toml_value *tab)
{
	static const char *const keys[] = {
		"memory",	"cpus",	   "arch",     "accel", "iommu",
		"caching_mode", "cmdline", "affinity", "nic",	"mtu",
		"disks",	"spare",   NULL,
	};
	/*
	 * What a LAVA job can set of the VM its qemu device starts: the
	 * rest (affinity, accel, disks) is the worker's.
	 */
	static const char *const lava_keys[] = {
		"memory",	"cpus",	   "arch", "iommu",
		"caching_mode", "cmdline", "nic",  NULL,
	};
	bool lava = h->transport == HOST_LAVA;
	char where[96];
	int accel, iommu, spare;

	if (!mx_is(mx, tab, TOML_TABLE, "qemu"))
		return;
	snprintf(where, sizeof(where), "[hosts.%s.qemu]", h->name);
	mx_check_keys(mx, tab, keys, where);
	for (size_t i = 0; lava && i < tab->u.tab.n; i++) {
		const struct toml_kv *kv = &tab->u.tab.items[i];
		const char *const *k;

		const char *const *known;

		for (k = lava_keys; *k && strcmp(*k, kv->key); k++)
			;
		for (known = keys; *known && strcmp(*known, kv->key); known++)
			;
		if (!*k && *known)
			mx_err(mx, kv->pos,
			       "%s: a LAVA device's VM is the worker's to "
			       "set up; a job sets only %s",
			       kv->key,
			       "memory, cpus, arch, iommu, caching_mode, "
			       "cmdline and nic");
	}
	if (mx_size(mx, tab, "memory", &qemu_conf(h)->memory) > 0 &&
	    (qemu_conf(h)->memory < (128ULL << 20) ||
	     qemu_conf(h)->memory > (1ULL << 40)))
		mx_err(mx, mx_val_pos(tab, "memory", h->pos),
		       "memory: out of range (128M..1T)");
	mx_uint32(mx, tab, "cpus", 1, 256, &qemu_conf(h)->cpus);
	parse_qemu_arch(mx, h, tab);
	if (mx_enum(mx, tab, "accel", accel_names, &accel) > 0)
		qemu_conf(h)->accel = accel;
	if (qemu_conf(h)->accel == ACCEL_KVM &&
	    qemu_conf(h)->arch != arch__native())
		mx_err(mx, mx_val_pos(tab, "accel", h->pos),
		       "accel: KVM runs only guests of this machine's arch "
		       "(%s), and host '%s' is %s; use \"tcg\" or \"auto\"",
		       arch__native() ? arch__native()->name : "unknown",
		       h->name, qemu_conf(h)->arch->name);
	if (mx_enum(mx, tab, "iommu", iommu_names, &iommu) > 0)
		qemu_conf(h)->iommu = iommu;
	else
		qemu_conf(h)->iommu = qemu_iommu__default(qemu_conf(h)->arch);
	check_qemu_iommu(mx, h, tab);
	mx_bool(mx, tab, "caching_mode", &qemu_conf(h)->caching_mode);
	if (qemu_conf(h)->caching_mode &&
	    qemu_conf(h)->iommu != QEMU_IOMMU_INTEL)
		mx_err(mx, mx_val_pos(tab, "caching_mode", h->pos),
		       "caching_mode: only the intel vIOMMU has it");
	mx_strings(mx, tab, "cmdline", MX_KARG, &qemu_conf(h)->cmdline,
		   &qemu_conf(h)->nr_cmdline);
	parse_qemu_affinity(mx, h, toml_table__get(tab, "affinity"));
	parse_qemu_nic(mx, h, tab);
	if (mx_enum(mx, tab, "spare", spare_names, &spare) > 0)
		qemu_conf(h)->spare = spare;
	matrix_host__parse_disks(mx, h, toml_table__get(tab, "disks"), true,
				 &qemu_conf(h)->disks, &qemu_conf(h)->nr_disks);
}

void qemu_conf__defaults(struct matrix_qemu *q, uint64_t memory,
			 const struct arch *arch)
{
	q->memory = memory;
	q->cpus = 2;
	q->io_cpu = -1;
	q->arch = arch;
	q->iommu = qemu_iommu__default(arch);
}

void qemu_conf__release(struct matrix_qemu *q)
{
	strv_free(q->cmdline, q->nr_cmdline);
	free(q->vcpu_cpus);
	for (size_t i = 0; i < q->nr_disks; i++)
		free(q->disks[i].name);
	free(q->disks);
}

/* A VM, booted afresh for each kernel unless it kexecs inside. */
static void qemu_defaults(struct matrix_host *h)
{
	h->allow_reboot = true;
	h->reboot = REBOOT_RESTART;
	h->boot_timeout_ms = 5 * 60 * 1000;
	h->conf = xcalloc(1, sizeof(struct matrix_qemu));
	qemu_conf__defaults(h->conf, 2ULL << 30, qemu_arch__default());
}

static void qemu_parse(struct mx *mx, struct matrix_host *h,
		       const struct toml_value *tab)
{
	const struct toml_value *q = toml_table__get(tab, "qemu");

	matrix_host__parse_address(mx, h, tab);
	/* A kexec in the testbed: the kernel sent (~10 s), then its boot. */
	if (h->reboot == REBOOT_KEXEC && !toml_table__get(tab, "boot_estimate"))
		h->boot_estimate_ms = 30 * 1000;
	if (q)
		qemu_conf__parse(mx, h, q);
}

static void qemu_release(struct matrix_host *h)
{
	if (h->conf)
		qemu_conf__release(h->conf);
	free(h->conf);
	h->conf = NULL;
}

static const struct arch *qemu_arch(const struct matrix_host *h)
{
	return qemu_conf(h)->arch;
}

static const struct matrix_disk *qemu_disks(const struct matrix_host *h,
					    size_t *nr)
{
	*nr = qemu_conf(h)->nr_disks;
	return qemu_conf(h)->disks;
}

static void qemu_lend_spare(struct matrix_host *h)
{
	qemu_conf(h)->spare_pci = true;
}

static bool qemu_spare_held(const struct matrix_host *h)
{
	return qemu_conf(h)->spare_pci &&
	       qemu_conf(h)->spare == QEMU_SPARE_VIRTIO;
}

const struct matrix_transport qemu_transport = {
	.name = "qemu",
	.id = HOST_QEMU,
	.keys = host_keys,
	.vm = true,
	.restarts = true,
	/* the guest's only writable places are in RAM */
	.kernel_dir = "/run/iommu-bench/kernels",
	.defaults = qemu_defaults,
	.parse = qemu_parse,
	.release = qemu_release,
	/* What the checks ask of the VM. */
	.arch = qemu_arch,
	.disks = qemu_disks,
	.lend_spare = qemu_lend_spare,
	.spare_held = qemu_spare_held,
};

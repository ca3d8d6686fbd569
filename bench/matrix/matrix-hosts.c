// SPDX-License-Identifier: GPL-2.0-only
/*
 * [hosts.NAME]: the machines (or namespaces, or VMs) of the matrix and
 * how to reach, reboot and link them.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "matrix-priv.h"
#include "util.h"

static const char *const transport_names[] = { "local", "netns", "ssh",
					       "qemu",	"lava",	 NULL };
static const char *const role_names[] = { "peer", "sut", NULL };
/* What a file may write: qemu hosts restart, or kexec inside the VM. */
static const char *const reboot_values[] = { "none", "kexec", "grub", NULL };
static const char *const qemu_reboot_values[] = { "restart", "kexec", NULL };
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
static const char *const disk_model_names[] = { "nvme", NULL };
static const char *const spare_names[] = { "edu", "virtio", NULL };
static const char *const spare_models[] = { "edu", "virtio-rng-pci" };
/*
 * The largest MTU each NIC model takes: virtio-net's MAX_MTU, and the
 * 82574's 9018-byte jumbo frame less its Ethernet header and FCS.
 */
static const unsigned int nic_max_mtu[] = { 65535, 9000 };
/* The guests the testbed knows how to build and boot. */
static const char *const qemu_arch_names[] = { "x86_64", "arm64", NULL };

const char *host_transport__name(enum host_transport t)
{
	return transport_names[t];
}

const char *host_role__name(enum host_role r)
{
	return role_names[r];
}

/* Every key any transport knows, so that a typo gets a suggestion. */
static const char *const all_keys[] = {
	"transport",   "role",	       "description",	"address",
	"nic",	       "link",	       "netns",		"data_address",
	"user",	       "port",	       "allow_reboot",	"reboot",
	"power_cycle", "boot_timeout", "boot_estimate", "qemu",
	"kernel_dir",  "disks",	       "lava",		"ssh_key",
	"known_hosts", "labvm",	       "console",	NULL,
};

/* Which keys each transport takes beyond the common ones. */
static const char *const transport_keys[][16] = {
	[HOST_LOCAL] = { "address", "nic", "link", "allow_reboot", "reboot",
			 "disks", "labvm" },
	[HOST_NETNS] = { "address", "nic", "link", "netns", "allow_reboot",
			 "reboot" },
	[HOST_SSH] = { "address", "nic", "data_address", "user", "port",
		       "allow_reboot", "reboot", "power_cycle", "boot_timeout",
		       "boot_estimate", "kernel_dir", "disks", "ssh_key",
		       "known_hosts", "labvm", "console" },
	[HOST_QEMU] = { "address", "nic", "link", "allow_reboot", "reboot",
			"boot_timeout", "boot_estimate", "qemu", "kernel_dir" },
	/* The lab boots it, once per job: no reboot of its own. */
	[HOST_LAVA] = { "address", "nic", "boot_timeout", "boot_estimate",
			"qemu", "lava" },
};

static bool transport_takes(enum host_transport t, const char *key)
{
	size_t i;

	if (!strcmp(key, "transport") || !strcmp(key, "role") ||
	    !strcmp(key, "description"))
		return true;
	for (i = 0; i < ARRAY_SIZE(transport_keys[t]) && transport_keys[t][i];
	     i++)
		if (!strcmp(transport_keys[t][i], key))
			return true;
	return false;
}

void matrix_host__release(struct matrix_host *h)
{
	free_all(h->name, h->description, h->address, h->data_address, h->user,
		 h->nic, h->ssh_key, h->known_hosts, h->labvm, h->console);
	strv_free(h->power_cycle, h->nr_power_cycle);
	free_all(h->netns, h->kernel_dir, h->lava.server, h->lava.token_file,
		 h->lava.token_env, h->lava.device_type);
	strv_free(h->lava.tags, h->lava.nr_tags);
	free_all(h->lava.peer_address, h->lava.controller, h->lava.gateway);
	strv_free(h->qemu.cmdline, h->qemu.nr_cmdline);
	free(h->qemu.vcpu_cpus);
	for (size_t i = 0; i < h->qemu.nr_disks; i++)
		free(h->qemu.disks[i].name);
	free(h->qemu.disks);
	for (size_t i = 0; i < h->nr_disks; i++) {
		free(h->disks[i].name);
		free(h->disks[i].path);
	}
	free(h->disks);
}

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
	mx_cpus(mx, a, "vcpus", h->qemu.cpus, "vCPU", "vCPUs",
		&h->qemu.vcpu_cpus, &h->qemu.nr_vcpu_cpus);
	if (mx_cpus(mx, a, "io", 1, "thread", "threads", &io, &nr) > 0)
		h->qemu.io_cpu = io[0];
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
		h->qemu.arch = arch__find(qemu_arch_names[arch]);
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

const char *qemu_disk_model__name(enum qemu_disk_model model)
{
	return disk_model_names[model];
}

bool matrix_host__is_vm(const struct matrix_host *h)
{
	return h->transport == HOST_QEMU || h->transport == HOST_LAVA;
}

const struct matrix_disk *matrix_host__disks(const struct matrix_host *h,
					     size_t *nr)
{
	if (h->transport == HOST_QEMU) {
		*nr = h->qemu.nr_disks;
		return h->qemu.disks;
	}
	*nr = h->nr_disks;
	return h->disks;
}

const struct matrix_disk *matrix_host__disk(const struct matrix_host *h,
					    const char *name)
{
	const struct matrix_disk *d;
	size_t nr;

	d = matrix_host__disks(h, &nr);
	return TABLE_FIND(d, nr, name, name);
}

/* qemu: a scratch image of a size; ssh, local: a block device by path. */
static void parse_disk(struct mx *mx, struct matrix_host *h,
		       const struct toml_value *tab, struct matrix_disk *disks,
		       size_t *nr)
{
	static const char *const vm_keys[] = { "name", "model", "size", NULL };
	static const char *const dev_keys[] = { "name", "path", NULL };
	bool vm = h->transport == HOST_QEMU;
	struct matrix_disk *d = &disks[*nr];
	char where[96];
	int model;
	size_t i;

	snprintf(where, sizeof(where), "a disk of [hosts.%s%s]", h->name,
		 vm ? ".qemu" : "");
	mx_check_keys(mx, tab, vm ? vm_keys : dev_keys, where);
	d->pos = tab->pos;
	if (mx_string(mx, tab, "name", MX_NAME, &d->name) <= 0) {
		if (!toml_table__get(tab, "name"))
			mx_err(mx, tab->pos,
			       "disks: a disk of host '%s' has no name "
			       "(name = \"%s\")",
			       h->name, vm ? "nvme0" : "data");
		d->name = NULL;
		return;
	}
	if (strlen(d->name) > MATRIX_DISK_NAME_MAX) {
		mx_err(mx, mx_val_pos(tab, "name", tab->pos),
		       "name: '%s' is longer than %d characters (it is the "
		       "disk's serial number in the guest)",
		       d->name, MATRIX_DISK_NAME_MAX);
		free(d->name);
		d->name = NULL;
		return;
	}
	for (i = 0; i < *nr; i++) {
		if (strcmp(disks[i].name, d->name))
			continue;
		mx_err(mx, mx_val_pos(tab, "name", tab->pos),
		       "name: host '%s' has two disks named '%s'", h->name,
		       d->name);
		free(d->name);
		d->name = NULL;
		return;
	}
	(*nr)++;
	if (!vm) {
		if (!toml_table__get(tab, "path"))
			mx_err(mx, tab->pos,
			       "disks: disk '%s' of host '%s' has no path "
			       "(path = \"/dev/nvme1n1\")",
			       d->name, h->name);
		else if (mx_string(mx, tab, "path", MX_HOSTPATH, &d->path) >
				 0 &&
			 strncmp(d->path, "/dev/", 5))
			mx_err(mx, mx_val_pos(tab, "path", tab->pos),
			       "path: '%s' is not under /dev: a disk is a "
			       "block device",
			       d->path);
		return;
	}
	if (mx_enum(mx, tab, "model", disk_model_names, &model) > 0)
		d->model = model;
	if (!toml_table__get(tab, "size"))
		mx_err(mx, tab->pos,
		       "disks: disk '%s' of host '%s' has no size "
		       "(size = \"1G\")",
		       d->name, h->name);
	else if (mx_size(mx, tab, "size", &d->size) > 0 &&
		 (d->size < (1ULL << 20) || d->size > (1ULL << 40) ||
		  d->size % 4096))
		mx_err(mx, mx_val_pos(tab, "size", tab->pos),
		       "size: %llu bytes is out of range: 1M..1T, a "
		       "multiple of 4K",
		       (unsigned long long)d->size);
}

static void parse_disks(struct mx *mx, struct matrix_host *h,
			const struct toml_value *v, struct matrix_disk **disks,
			size_t *nr)
{
	size_t i;

	if (!v)
		return;
	if (v->type != TOML_ARRAY) {
		mx_err(mx, v->pos,
		       "disks: expected a list of tables, [{ name = %s }]",
		       h->transport == HOST_QEMU ?
			       "\"nvme0\", model = \"nvme\", size = \"1G\"" :
			       "\"data\", path = \"/dev/nvme1n1\"");
		return;
	}
	*disks = xcalloc(v->u.arr.n + 1, sizeof(**disks));
	for (i = 0; i < v->u.arr.n; i++)
		if (mx_is(mx, v->u.arr.items[i], TOML_TABLE, "disks"))
			parse_disk(mx, h, v->u.arr.items[i], *disks, nr);
}

static void parse_qemu_nic(struct mx *mx, struct matrix_host *h,
			   const struct toml_value *tab)
{
	unsigned int max;
	int nic;

	if (mx_enum(mx, tab, "nic", nic_names, &nic) > 0)
		h->qemu.nic = nic;
	max = nic_max_mtu[h->qemu.nic];
	if (mx_uint32(mx, tab, "mtu", 68, 65535, &h->qemu.mtu) > 0 &&
	    h->qemu.mtu > max)
		mx_err(mx, mx_val_pos(tab, "mtu", h->pos),
		       "mtu: %u is more than an %s NIC takes (68..%u)",
		       h->qemu.mtu, nic_names[h->qemu.nic], max);
}

static void check_qemu_iommu(struct mx *mx, struct matrix_host *h,
			     const struct toml_value *tab)
{
	char has[80] = "";
	size_t i, n = 0;

	if (qemu_iommu__emulated(h->qemu.iommu, h->qemu.arch))
		return;
	for (i = 0; iommu_names[i]; i++)
		if (qemu_iommu__emulated(i, h->qemu.arch))
			snprintf(has + strlen(has), sizeof(has) - strlen(has),
				 "%s\"%s\"", n++ ? ", " : "", iommu_names[i]);
	mx_err(mx, mx_val_pos(tab, "iommu", h->pos),
	       "iommu: \"%s\" is not emulated on an %s guest (host '%s'); "
	       "it has %s",
	       iommu_names[h->qemu.iommu], h->qemu.arch->name, h->name, has);
}

static void parse_qemu(struct mx *mx, struct matrix_host *h,
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
	if (mx_size(mx, tab, "memory", &h->qemu.memory) > 0 &&
	    (h->qemu.memory < (128ULL << 20) || h->qemu.memory > (1ULL << 40)))
		mx_err(mx, mx_val_pos(tab, "memory", h->pos),
		       "memory: out of range (128M..1T)");
	mx_uint32(mx, tab, "cpus", 1, 256, &h->qemu.cpus);
	parse_qemu_arch(mx, h, tab);
	if (mx_enum(mx, tab, "accel", accel_names, &accel) > 0)
		h->qemu.accel = accel;
	if (h->qemu.accel == ACCEL_KVM && h->qemu.arch != arch__native())
		mx_err(mx, mx_val_pos(tab, "accel", h->pos),
		       "accel: KVM runs only guests of this machine's arch "
		       "(%s), and host '%s' is %s; use \"tcg\" or \"auto\"",
		       arch__native() ? arch__native()->name : "unknown",
		       h->name, h->qemu.arch->name);
	if (mx_enum(mx, tab, "iommu", iommu_names, &iommu) > 0)
		h->qemu.iommu = iommu;
	else
		h->qemu.iommu = qemu_iommu__default(h->qemu.arch);
	check_qemu_iommu(mx, h, tab);
	mx_bool(mx, tab, "caching_mode", &h->qemu.caching_mode);
	if (h->qemu.caching_mode && h->qemu.iommu != QEMU_IOMMU_INTEL)
		mx_err(mx, mx_val_pos(tab, "caching_mode", h->pos),
		       "caching_mode: only the intel vIOMMU has it");
	mx_strings(mx, tab, "cmdline", MX_KARG, &h->qemu.cmdline,
		   &h->qemu.nr_cmdline);
	parse_qemu_affinity(mx, h, toml_table__get(tab, "affinity"));
	parse_qemu_nic(mx, h, tab);
	if (mx_enum(mx, tab, "spare", spare_names, &spare) > 0)
		h->qemu.spare = spare;
	parse_disks(mx, h, toml_table__get(tab, "disks"), &h->qemu.disks,
		    &h->qemu.nr_disks);
	if (!lava || h->lava.template == LAVA_TEMPLATE_IOMMU_BENCH)
		return;
	if (h->qemu.arch != arch__find("x86_64"))
		mx_err(mx, mx_val_pos(tab, "arch", h->pos),
		       "arch: LAVA's stock qemu device type runs the x86_64 "
		       "guest only; an arm64 guest (virt, SMMUv3) needs the "
		       "lab's device type to extend ours (template = "
		       "\"iommu-bench\", docs/lava.md)");
	/* LAVA's template adds the NIC as -net nic,model=...: no device
	 * properties, so no virtio-net behind the vIOMMU. */
	if (h->qemu.nic != QEMU_NIC_E1000E)
		mx_err(mx, mx_val_pos(tab, "nic", h->pos),
		       "nic: LAVA's stock qemu device type adds the NIC "
		       "without device properties, so a virtio NIC would not "
		       "go through the vIOMMU; use \"e1000e\", or a device "
		       "type that extends ours (template = \"iommu-bench\")");
}

/* [hosts.NAME.lava]: the lab, the device, the token's whereabouts. */
static void parse_lava(struct mx *mx, struct matrix_host *h,
		       const struct toml_value *tab)
{
	static const char *const keys[] = {
		"server",      "token_file", "token_env",    "device_type",
		"tags",	       "priority",   "peer_address", "queue_timeout",
		"job_timeout", "token",	     "controller",   "http_port",
		"agent_port",  "gateway",    "template",     NULL,
	};
	static const char *const lava_template_names[] = { "qemu",
							   "iommu-bench",
							   NULL };
	const struct toml_value *v;
	char where[96];
	int template;

	snprintf(where, sizeof(where), "[hosts.%s.lava]", h->name);
	if (!tab) {
		mx_err(mx, h->pos,
		       "host '%s' has transport \"lava\" but no %s table "
		       "(server, token_file or token_env, device_type)",
		       h->name, where);
		return;
	}
	if (!mx_is(mx, tab, TOML_TABLE, "lava"))
		return;
	mx_check_keys(mx, tab, keys, where);
	v = toml_table__get(tab, "token");
	if (v)
		/* Not even echoed: it would land in logs and the store. */
		mx_err(mx, v->pos,
		       "token: the API token never goes in the matrix (it "
		       "is stored with every run); name where it is with "
		       "token_file = \"/etc/iommu-bench/lava.token\" or "
		       "token_env = \"LAVA_TOKEN\"");
	if (!mx_string(mx, tab, "server", MX_URL, &h->lava.server))
		mx_err(mx, tab->pos,
		       "missing key 'server' in %s (the lab's URL, like "
		       "\"http://lava.example:8000\")",
		       where);
	mx_string(mx, tab, "token_file", MX_PATH, &h->lava.token_file);
	mx_string(mx, tab, "token_env", MX_ENVNAME, &h->lava.token_env);
	if (!!h->lava.token_file == !!h->lava.token_env && !v)
		mx_err(mx, tab->pos,
		       "%s needs one of token_file (a file holding the API "
		       "token) and token_env (a variable holding it)%s",
		       where, h->lava.token_file ? ", not both" : "");
	mx_string(mx, tab, "device_type", MX_NAME, &h->lava.device_type);
	if (mx_enum(mx, tab, "template", lava_template_names, &template) > 0)
		h->lava.template = template;
	mx_strings(mx, tab, "tags", MX_NAME, &h->lava.tags, &h->lava.nr_tags);
	mx_uint32(mx, tab, "priority", 0, 100, &h->lava.priority);
	mx_string(mx, tab, "peer_address", MX_IP, &h->lava.peer_address);
	if (!mx_string(mx, tab, "controller", MX_IP, &h->lava.controller))
		mx_err(mx, tab->pos,
		       "missing key 'controller' in %s (this machine's "
		       "address as the lab's workers and devices reach it, "
		       "like \"192.0.2.10\": they fetch the job's files from "
		       "it and its agent connects to it)",
		       where);
	mx_string(mx, tab, "gateway", MX_IP, &h->lava.gateway);
	mx_uint32(mx, tab, "http_port", 1, 65535, &h->lava.http_port);
	mx_uint32(mx, tab, "agent_port", 1, 65535, &h->lava.agent_port);
	if (h->lava.http_port == h->lava.agent_port)
		mx_err(mx, mx_val_pos(tab, "agent_port", tab->pos),
		       "agent_port: %u is http_port's too; the two need "
		       "ports of their own",
		       h->lava.agent_port);
	mx_duration(mx, tab, "queue_timeout", &h->lava.queue_timeout_ms);
	if (mx_duration(mx, tab, "job_timeout", &h->lava.job_timeout_ms) > 0 &&
	    h->lava.job_timeout_ms < 60 * 1000)
		mx_err(mx, mx_val_pos(tab, "job_timeout", h->pos),
		       "job_timeout: at least 1m (every trial of a boot must "
		       "fit in it)");
}

static void parse_reboot(struct mx *mx, struct matrix_host *h,
			 const struct toml_value *tab)
{
	const struct toml_value *pc = toml_table__get(tab, "power_cycle");
	int reboot;

	mx_bool(mx, tab, "allow_reboot", &h->allow_reboot);
	/*
	 * A qemu host is a fresh VM per boot ("restart"), or one VM that
	 * kexecs from inside like a lab host ("kexec"), which is how the
	 * lab's install-and-kexec path gets tested for real. No power
	 * button: the tool owns the VM.
	 */
	if (h->transport == HOST_QEMU) {
		pc = NULL;
		if (mx_enum(mx, tab, "reboot", qemu_reboot_values, &reboot) > 0)
			h->reboot = reboot ? REBOOT_KEXEC : REBOOT_RESTART;
	} else if (mx_enum(mx, tab, "reboot", reboot_values, &reboot) > 0) {
		h->reboot = reboot;
	}
	if (!mx_string(mx, tab, "kernel_dir", MX_HOSTPATH, &h->kernel_dir))
		h->kernel_dir = xstrdup(h->transport == HOST_QEMU ?
						/* the guest's only writable
						 * places are in RAM */
						"/run/iommu-bench/kernels" :
						"/var/lib/iommu-bench/kernels");
	if (pc && pc->type == TOML_STRING) {
		/* Never a shell string: this runs as root on the controller. */
		mx_err(mx, pc->pos,
		       "power_cycle: expected an argument vector "
		       "like [\"ipmitool\", \"-H\", \"bmc1\", \"power\", "
		       "\"cycle\"], found a string (it is run without a shell)");
	} else if (pc && mx_strings(mx, tab, "power_cycle", MX_ARGV,
				    &h->power_cycle, &h->nr_power_cycle) > 0) {
		if (!h->nr_power_cycle)
			mx_err(mx, pc->pos,
			       "power_cycle: the command is empty");
		else if (h->power_cycle[0][0] == '-')
			mx_err(mx, pc->pos,
			       "power_cycle: the command '%s' "
			       "starts with '-'",
			       h->power_cycle[0]);
		else if (!h->allow_reboot)
			mx_warn(mx, pc->pos,
				"power_cycle: unused, since host "
				"'%s' does not allow reboots",
				h->name);
	}
	mx_duration(mx, tab, "boot_timeout", &h->boot_timeout_ms);
	mx_duration(mx, tab, "boot_estimate", &h->boot_estimate_ms);
	if (!h->boot_timeout_ms)
		mx_err(mx, mx_val_pos(tab, "boot_timeout", h->pos),
		       "boot_timeout: must be longer than 0s");
}

/* The controller and its namespaces share one kernel: never rebooted. */
static void check_no_reboot(struct mx *mx, struct matrix_host *h,
			    const struct toml_value *tab)
{
	const char *what = h->transport == HOST_LOCAL ?
				   "is this machine (transport 'local')" :
				   "is a namespace of this machine";

	if (h->allow_reboot)
		mx_err(mx, mx_val_pos(tab, "allow_reboot", h->pos),
		       "allow_reboot: host '%s' %s; the run cannot reboot the "
		       "machine it runs on",
		       h->name, what);
	if (h->reboot != REBOOT_NONE)
		mx_err(mx, mx_val_pos(tab, "reboot", h->pos),
		       "reboot: host '%s' %s; rebooting it would end the run",
		       h->name, what);
	h->allow_reboot = false;
	h->reboot = REBOOT_NONE;
}

/* A VM, here or in a lab: booted afresh for each kernel, never kexec'd. */
static void set_vm_defaults(struct matrix_host *h, uint64_t memory)
{
	h->allow_reboot = true;
	h->reboot = REBOOT_RESTART;
	h->qemu.memory = memory;
	h->qemu.cpus = 2;
	h->qemu.io_cpu = -1;
}

static void set_defaults(struct matrix_host *h)
{
	h->role = ROLE_PEER;
	h->boot_timeout_ms = 10 * 60 * 1000;
	switch (h->transport) {
	case HOST_SSH:
		h->reboot = REBOOT_KEXEC;
		break;
	case HOST_QEMU:
		set_vm_defaults(h, 2ULL << 30);
		h->boot_timeout_ms = 5 * 60 * 1000;
		h->qemu.arch = qemu_arch__default();
		h->qemu.iommu = qemu_iommu__default(h->qemu.arch);
		break;
	case HOST_LAVA:
		set_vm_defaults(h, 1ULL << 30);
		h->qemu.arch = arch__find("x86_64");
		h->qemu.iommu = QEMU_IOMMU_INTEL;
		h->qemu.nic = QEMU_NIC_E1000E;
		h->lava.device_type = xstrdup("qemu");
		h->lava.priority = 50;
		/* QEMU's user-mode networking: the guest's gateway is the
		 * worker's loopback. */
		h->lava.gateway = xstrdup("10.0.2.2");
		h->lava.http_port = LAVA_HTTP_PORT;
		h->lava.agent_port = LAVA_AGENT_PORT;
		h->lava.queue_timeout_ms = 30 * 60 * 1000;
		h->lava.job_timeout_ms = 2 * 60 * 60 * 1000;
		break;
	default:
		h->reboot = REBOOT_NONE;
		break;
	}
}

/* What a boot costs, for the estimate: kexec skips firmware, grub not. */
static uint64_t boot_estimate(const struct matrix_host *h)
{
	/* A kexec in the testbed: the kernel sent (~10 s), then its boot. */
	if (h->transport == HOST_QEMU && h->reboot == REBOOT_KEXEC)
		return 30 * 1000;
	/* The scheduler's and the worker's 20 s polls, then a TCG boot. */
	if (h->transport == HOST_LAVA)
		return 60 * 1000;
	switch (h->reboot) {
	case REBOOT_GRUB:
		return 5 * 60 * 1000;
	case REBOOT_RESTART:
		return 20 * 1000;
	default:
		return 60 * 1000;
	}
}

/*
 * A file ssh reads by an -o option: it must exist here, and hold nothing
 * ssh would split or expand (blanks, quotes, its %-tokens).
 */
static void ssh_file(struct mx *mx, const struct toml_value *tab,
		     const char *key, char **out)
{
	const struct toml_pos *pos;

	if (mx_string(mx, tab, key, MX_PATH, out) <= 0)
		return;
	pos = &toml_table__get(tab, key)->pos;
	if (strpbrk(*out, " \t\n\"'%\\"))
		mx_err(mx, *pos,
		       "%s: '%s' holds a blank, a quote, '%%' or '\\', which "
		       "ssh would split or expand; use a path without them",
		       key, *out);
	else if (access(*out, R_OK))
		mx_err(mx, *pos, "%s: cannot read '%s': %s", key, *out,
		       strerror(errno));
}

static void parse_address(struct mx *mx, struct matrix_host *h,
			  const struct toml_value *tab)
{
	switch (h->transport) {
	case HOST_SSH:
		/* A lab machine's comes with it, or its error says why not. */
		if (!mx_string(mx, tab, "address", MX_HOSTADDR, &h->address) &&
		    !h->address && !toml_table__get(tab, "labvm"))
			mx_err(mx, h->pos,
			       "missing key 'address' in "
			       "[hosts.%s] (the ssh destination)",
			       h->name);
		mx_string(mx, tab, "data_address", MX_HOSTADDR,
			  &h->data_address);
		mx_string(mx, tab, "user", MX_NAME, &h->user);
		mx_uint32(mx, tab, "port", 1, 65535, &h->port);
		ssh_file(mx, tab, "ssh_key", &h->ssh_key);
		ssh_file(mx, tab, "known_hosts", &h->known_hosts);
		/* Read when a boot is awaited: it may not exist yet. */
		mx_string(mx, tab, "console", MX_PATH, &h->console);
		break;
	case HOST_NETNS:
		if (!mx_string(mx, tab, "address", MX_CIDR, &h->address))
			mx_err(mx, h->pos,
			       "missing key 'address' in "
			       "[hosts.%s] (its veth address, like "
			       "'10.77.0.2/24')",
			       h->name);
		if (!mx_string(mx, tab, "netns", MX_NAME, &h->netns)) {
			/* Prefixed, so that no namespace of the user's is hit. */
			h->netns = xasprintf("iommu-bench-%s", h->name);
			if (strlen(h->netns) > 64)
				mx_err(mx, h->pos,
				       "host name '%s' is too long "
				       "for a namespace name; set netns",
				       h->name);
		}
		break;
	case HOST_LAVA:
		/* user-mode networking's own guest address */
		if (!toml_table__get(tab, "address"))
			h->address = xstrdup("10.0.2.15/24");
		/* fall through */
	case HOST_LOCAL:
	case HOST_QEMU: {
		const struct toml_value *a = toml_table__get(tab, "address");

		if (a && a->type == TOML_STRING && strchr(a->u.str.ptr, '/'))
			mx_string(mx, tab, "address", MX_CIDR, &h->address);
		else
			mx_string(mx, tab, "address", MX_IP, &h->address);
		break;
	}
	}
}

static void parse_host(struct mx *mx, struct matrix_host *h,
		       const struct toml_value *tab)
{
	int transport, role;
	char where[96];
	size_t i;

	snprintf(where, sizeof(where), "[hosts.%s]", h->name);
	mx_check_keys(mx, tab, all_keys, where);
	if (mx_enum(mx, tab, "transport", transport_names, &transport) <= 0) {
		if (!toml_table__get(tab, "transport"))
			mx_err(mx, h->pos,
			       "missing key 'transport' in %s "
			       "(local, netns, ssh, qemu or lava)",
			       where);
		return;
	}
	h->transport = transport;
	for (i = 0; i < tab->u.tab.n; i++) {
		const struct toml_kv *kv = &tab->u.tab.items[i];
		const char *const *k;

		for (k = all_keys; *k && strcmp(*k, kv->key); k++)
			;
		if (*k && !transport_takes(h->transport, kv->key))
			mx_err(mx, kv->pos,
			       "key '%s' does not apply to "
			       "transport '%s'",
			       kv->key, transport_names[h->transport]);
	}
	set_defaults(h);
	mx_text(mx, tab, "description", &h->description);
	if (mx_enum(mx, tab, "role", role_names, &role) > 0)
		h->role = role;
	mx_labvm(mx, h, tab);
	parse_address(mx, h, tab);
	mx_string(mx, tab, "nic", MX_IFNAME, &h->nic);
	/* The testbed's guest has no udev to rename its one NIC. */
	if (!h->nic && matrix_host__is_vm(h))
		h->nic = xstrdup("eth0");
	if (h->transport == HOST_LOCAL || h->transport == HOST_SSH)
		parse_disks(mx, h, toml_table__get(tab, "disks"), &h->disks,
			    &h->nr_disks);
	if (h->transport == HOST_LOCAL || h->transport == HOST_NETNS) {
		int reboot;

		mx_bool(mx, tab, "allow_reboot", &h->allow_reboot);
		if (mx_enum(mx, tab, "reboot", reboot_values, &reboot) > 0)
			h->reboot = reboot;
		check_no_reboot(mx, h, tab);
		return;
	}
	if (h->transport == HOST_LAVA) {
		mx_duration(mx, tab, "boot_timeout", &h->boot_timeout_ms);
		mx_duration(mx, tab, "boot_estimate", &h->boot_estimate_ms);
		h->kernel_dir = xstrdup("/run/iommu-bench/kernels");
		parse_lava(mx, h, toml_table__get(tab, "lava"));
		if (toml_table__get(tab, "qemu"))
			parse_qemu(mx, h, toml_table__get(tab, "qemu"));
	} else {
		parse_reboot(mx, h, tab);
	}
	if (!h->boot_estimate_ms)
		h->boot_estimate_ms = boot_estimate(h);
	if (h->transport == HOST_QEMU && toml_table__get(tab, "qemu"))
		parse_qemu(mx, h, toml_table__get(tab, "qemu"));
}

/* Same subnet, for two ends of a veth pair. */
static bool cidr__same_net(const char *a, const char *b, bool *same_addr)
{
	unsigned char x[16], y[16];
	char ax[64], bx[64];
	int bits, i, af;

	snprintf(ax, sizeof(ax), "%s", a);
	snprintf(bx, sizeof(bx), "%s", b);
	*strchr(ax, '/') = '\0';
	*strchr(bx, '/') = '\0';
	af = strchr(ax, ':') ? AF_INET6 : AF_INET;
	if (inet_pton(af, ax, x) != 1 || inet_pton(af, bx, y) != 1)
		return false;
	*same_addr = !memcmp(x, y, af == AF_INET ? 4 : 16);
	bits = atoi(strchr(a, '/') + 1);
	if (bits != atoi(strchr(b, '/') + 1))
		return false;
	for (i = 0; i < bits; i++)
		if ((x[i / 8] ^ y[i / 8]) & (0x80 >> (i % 8)))
			return false;
	return true;
}

static void check_pair(struct mx *mx, struct matrix_host *a,
		       struct matrix_host *b, struct toml_pos pos)
{
	bool same_addr = false;

	if (!a->address || !b->address || !strchr(a->address, '/') ||
	    !strchr(b->address, '/')) {
		mx_err(mx, pos,
		       "link: hosts '%s' and '%s' are linked by a veth "
		       "pair, so both need an address with a prefix length",
		       a->name, b->name);
		return;
	}
	if (!cidr__same_net(a->address, b->address, &same_addr))
		mx_err(mx, pos,
		       "link: hosts '%s' (%s) and '%s' (%s) are "
		       "linked but not in one subnet",
		       a->name, a->address, b->name, b->address);
	else if (same_addr)
		mx_err(mx, pos,
		       "link: hosts '%s' and '%s' have the same "
		       "address %s",
		       a->name, b->name, a->address);
}

static void resolve_links(struct mx *mx)
{
	struct matrix *m = mx->m;
	const char **names = xcalloc(m->nr_hosts + 1, sizeof(*names));
	size_t i;

	for (i = 0; i < m->nr_hosts; i++)
		names[i] = m->hosts[i].name;
	for (i = 0; i < m->nr_hosts; i++) {
		struct matrix_host *h = &m->hosts[i], *o;
		const struct toml_value *v = toml_table__get(h->src, "link");
		char *name = NULL;
		long idx;

		if (!v || mx_string(mx, h->src, "link", MX_NAME, &name) <= 0)
			continue;
		idx = mx_ref(mx, v->pos, "link", "host", name, names,
			     m->nr_hosts);
		free(name);
		if (idx < 0)
			continue;
		o = &m->hosts[idx];
		if (o == h) {
			mx_err(mx, v->pos,
			       "link: host '%s' cannot be linked "
			       "to itself",
			       h->name);
		} else if (o->transport == HOST_SSH) {
			mx_err(mx, v->pos,
			       "link: host '%s' is reached by ssh; "
			       "a veth pair links hosts of this machine",
			       o->name);
		} else if (o->has_link && o->link != (size_t)i) {
			mx_err(mx, v->pos,
			       "link: host '%s' is already linked "
			       "to '%s'",
			       o->name, m->hosts[o->link].name);
		} else {
			h->link = idx;
			h->has_link = true;
			o->link = i;
			o->has_link = true;
			check_pair(mx, h, o, v->pos);
		}
	}
	free(names);
}

static void check_unique(struct mx *mx)
{
	struct matrix *m = mx->m;
	long local = -1;
	size_t i, j;

	for (i = 0; i < m->nr_hosts; i++) {
		struct matrix_host *h = &m->hosts[i];

		if (h->transport == HOST_LOCAL) {
			if (local >= 0) {
				mx_err(mx, h->pos,
				       "hosts '%s' and '%s' are both "
				       "this machine (transport 'local')",
				       m->hosts[local].name, h->name);
				mx_note(mx, m->hosts[local].pos,
					"host '%s' is defined here",
					m->hosts[local].name);
			}
			local = i;
		}
		if (h->transport == HOST_NETNS && !h->has_link)
			mx_err(mx, h->pos,
			       "host '%s' is a namespace linked to "
			       "nothing; set link to the host at the other end "
			       "of its veth pair",
			       h->name);
		for (j = 0; h->netns && j < i; j++) {
			if (m->hosts[j].netns &&
			    !strcmp(m->hosts[j].netns, h->netns)) {
				mx_err(mx, mx_val_pos(h->src, "netns", h->pos),
				       "hosts '%s' and '%s' use the same "
				       "namespace '%s'",
				       m->hosts[j].name, h->name, h->netns);
				mx_note(mx, m->hosts[j].pos,
					"host '%s' is defined here",
					m->hosts[j].name);
			}
		}
	}
}

void matrix__parse_hosts(struct mx *mx, const struct toml_value *v)
{
	struct matrix *m = mx->m;
	size_t i;

	if (!mx_is(mx, v, TOML_TABLE, "hosts"))
		return;
	m->hosts = xcalloc(v->u.tab.n ? v->u.tab.n : 1, sizeof(*m->hosts));
	for (i = 0; i < v->u.tab.n; i++) {
		const struct toml_kv *kv = &v->u.tab.items[i];
		const char *why = mx_kind__check(MX_NAME, kv->key);
		struct matrix_host *h;

		if (why || strlen(kv->key) != kv->keylen) {
			mx_err(mx, kv->pos,
			       "host name '%s' is not a safe name: %s", kv->key,
			       why ? why : "it holds a NUL byte");
			continue;
		}
		if (!mx_is(mx, kv->val, TOML_TABLE, kv->key))
			continue;
		h = &m->hosts[m->nr_hosts++];
		h->name = xstrdup(kv->key);
		h->pos = kv->pos;
		h->src = kv->val;
		parse_host(mx, h, kv->val);
	}
	resolve_links(mx);
	check_unique(mx);
}

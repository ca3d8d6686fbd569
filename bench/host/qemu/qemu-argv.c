// SPDX-License-Identifier: GPL-2.0-only
/*
 * QEMU's argument vector for one boot of the testbed VM. What was
 * measured by hand decides the devices: on x86, q35 with an Intel vIOMMU
 * whose caching mode is off unless asked (on, the guest driver forces
 * strict); on arm64, virt with an SMMUv3 in front of its PCIe root and a
 * GICv3 (its ITS carries the MSIs); a virtio-net NIC that goes through
 * the vIOMMU (iommu_platform) or an e1000e, NVMe scratch disks, and the
 * controller's root shared read-only over 9p so that the guest runs this
 * very binary as its agent, on a virtio-serial port wired to a unix
 * socket.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arch.h"
#include "bench/host/qemu/qemu.h"
#include "bench/testbed/testbed.h"
#include "dma-map-opts.h"
#include "sha256.h"
#include "util.h"

static const struct qemu_machine machines[] = {
	/* "max" is as fast as any model on x86 and has every feature. */
	{ "x86_64", "qemu-system-x86_64", "q35", "ttyS0", "max" },
	/* "max" emulates pointer authentication with QARMA, 5x slower to
	 * boot (measured); the A57 has none and boots Debian's kernels. */
	{ "arm64", "qemu-system-aarch64", "virt", "ttyAMA0", "cortex-a57" },
};

const struct qemu_machine *qemu__machine(const struct matrix_host *m)
{
	size_t i;

	for (i = 0; qemu_conf(m)->arch && i < ARRAY_SIZE(machines); i++)
		if (!strcmp(qemu_conf(m)->arch->name, machines[i].arch))
			return &machines[i];
	return NULL;
}

static bool is_arm64(const struct matrix_host *m)
{
	return qemu_conf(m)->arch && !strcmp(qemu_conf(m)->arch->name, "arm64");
}

char *qemu__escape(const char *value)
{
	size_t n = strlen(value), i, o = 0;
	char *s = xmalloc(2 * n + 1);

	for (i = 0; i < n; i++) {
		s[o++] = value[i];
		if (value[i] == ',')
			s[o++] = ',';
	}
	s[o] = '\0';
	return s;
}

/* Stable per host name: the store knows the VM as one machine. */
static void machine_id(const char *name, char out[33])
{
	char hex[SHA256_HEX_SIZE];
	char *s = xasprintf("iommu-bench-testbed:%s", name);

	sha256__hex(s, strlen(s), hex);
	free(s);
	memcpy(out, hex, 32);
	out[32] = '\0';
}

static void append(char **s, size_t *len, const char *word)
{
	size_t n = strlen(word);

	*s = xrealloc(*s, *len + n + 2);
	if (*len)
		(*s)[(*len)++] = ' ';
	memcpy(*s + *len, word, n + 1);
	*len += n;
}

char *qemu__cmdline(const struct matrix_host *m, const char *exe,
		    const char *const *args, size_t nr_args)
{
	const struct qemu_machine *qm = qemu__machine(m);
	char *s = NULL, *w, id[33];
	size_t len = 0, i;

	w = xasprintf("console=%s", qm ? qm->console : "ttyS0");
	append(&s, &len, w);
	free(w);
	/* panic=-1 with -no-reboot: a guest that panics ends QEMU at once,
	 * so a broken boot is seen in seconds, not at the boot timeout. */
	append(&s, &len, "panic=-1");
	/*
	 * x86 checks its IO-APIC timer at boot by counting ticks over a
	 * delay loop: a vCPU that a busy host leaves unscheduled that long
	 * fails it, and with interrupt remapping the kernel panics ("timer
	 * doesn't work through Interrupt-remapped IO-APIC", seen beside a
	 * kernel build). The emulated timer works: skip the check, as VM
	 * images do.
	 */
	if (qm && !strcmp(qm->arch, "x86_64"))
		append(&s, &len, "no_timer_check");
	/*
	 * The TSC is the clock, as on a machine. The kernel's watchdog
	 * compares it with the HPET and, when a loaded host stalls a TCG
	 * vCPU between the two reads, calls the TSC unstable and switches
	 * to the HPET for good: every clock read (each probe's, each
	 * timer's) is then an emulated MMIO access: read_hpet held 29% of
	 * a skip-sync profile trial's samples, read_tsc 0.1% with this
	 * (docs/testbed-noise.md). QEMU's TSC is one host clock for every
	 * vCPU, so nothing is lost by trusting it.
	 */
	if (qm && !strcmp(qm->arch, "x86_64"))
		append(&s, &len, "tsc=reliable");
	/*
	 * A guest that goes silent is asked for its CPUs' backtraces by
	 * sysrq-l on its keyboard (qemu-hang.c); Debian's kernels leave
	 * that key off by default (kernel.sysrq=438).
	 */
	if (qm && !strcmp(qm->arch, "x86_64"))
		append(&s, &len, "sysrq_always_enabled");
	if (qemu_conf(m)->iommu == QEMU_IOMMU_INTEL)
		append(&s, &len, "intel_iommu=on");
	if (m->address) {
		w = xasprintf("iommu_bench.ip=%s", m->address);
		append(&s, &len, w);
		free(w);
	}
	if (m->nic) {
		w = xasprintf("iommu_bench.nic=%s", m->nic);
		append(&s, &len, w);
		free(w);
	}
	if (qemu_conf(m)->mtu) {
		w = xasprintf("iommu_bench.mtu=%u", qemu_conf(m)->mtu);
		append(&s, &len, w);
		free(w);
	}
	w = xasprintf("iommu_bench.exe=%s", exe);
	append(&s, &len, w);
	free(w);
	machine_id(m->name, id);
	w = xasprintf("iommu_bench.machine_id=%s", id);
	append(&s, &len, w);
	free(w);
	for (i = 0; i < qemu_conf(m)->nr_cmdline; i++)
		append(&s, &len, qemu_conf(m)->cmdline[i]);
	for (i = 0; i < nr_args; i++)
		append(&s, &len, args[i]);
	return s;
}

/*
 * A PCI device behind the vIOMMU is translated by it; virtio alone
 * bypasses it unless told (iommu_platform), like a device that trusts
 * its hypervisor.
 */
const char *qemu__nic_device(const struct matrix_host *m)
{
	switch (qemu_conf(m)->nic) {
	case QEMU_NIC_E1000E:
		return "e1000e,netdev=n0";
	case QEMU_NIC_VIRTIO:
		return qemu_conf(m)->iommu != QEMU_IOMMU_NONE ?
			       "virtio-net-pci,netdev=n0,"
			       "iommu_platform=on,disable-legacy=on" :
			       "virtio-net-pci,netdev=n0,disable-legacy=on";
	}
	return "e1000e,netdev=n0";
}

char *qemu__nic_device_on(const struct matrix_host *m, const char *netdev)
{
	const char *d = qemu__nic_device(m), *n = strstr(d, "netdev=n0");

	/* The same device, its netdev= @netdev. */
	return xasprintf("%.*snetdev=%s%s", (int)(n - d), d, netdev,
			 n + strlen("netdev=n0"));
}

char *qemu__machine_arg(const struct matrix_host *m, bool kvm)
{
	if (is_arm64(m))
		return xasprintf("virt,gic-version=%s%s", kvm ? "host" : "3",
				 qemu_conf(m)->iommu == QEMU_IOMMU_SMMUV3 ?
					 ",iommu=smmuv3" :
					 "");
	/* intremap under KVM needs the split irqchip. */
	return xstrdup(kvm ? "q35,kernel-irqchip=split" : "q35");
}

/*
 * The guest finds a disk by its serial number, the matrix's name: what
 * order the kernel probes them in does not matter then. cache=unsafe:
 * a scratch image need not survive the host, and the host's page cache
 * keeps the disk's speed out of what the guest's DMA path measures.
 */
static void disks__push(const struct matrix_host *m, const struct qemu_boot *b,
			struct strvec *out)
{
	size_t i;
	char *e;

	for (i = 0; b->disks && i < qemu_conf(m)->nr_disks; i++) {
		const struct matrix_disk *d = &qemu_conf(m)->disks[i];

		e = qemu__escape(b->disks[i]);
		strvec__push(out, "-drive");
		strvec__pushf(out,
			      "file=%s,if=none,id=disk%zu,format=raw,"
			      "cache=unsafe",
			      e, i);
		free(e);
		strvec__push(out, "-device");
		switch (d->model) {
		case QEMU_DISK_NVME:
			strvec__pushf(out, "nvme,drive=disk%zu,serial=%s", i,
				      d->name);
			break;
		}
	}
}

void qemu__guest_modules(const struct matrix_host *m, struct strvec *out)
{
	size_t i;

	/*
	 * Before the NIC's driver: a device probed with no IOMMU driver
	 * yet bound keeps the direct mapping it started with.
	 */
	if (qemu_conf(m)->iommu == QEMU_IOMMU_VIRTIO)
		strvec__push(out, "virtio_iommu");
	if (qemu_conf(m)->nic == QEMU_NIC_E1000E)
		strvec__push(out, "e1000e");
	for (i = 0; i < qemu_conf(m)->nr_disks; i++)
		if (qemu_conf(m)->disks[i].model == QEMU_DISK_NVME &&
		    !strvec__contains(out, "nvme"))
			strvec__push(out, "nvme");
}

char *qemu__iommu_device(const struct matrix_host *m)
{
	switch (qemu_conf(m)->iommu) {
	case QEMU_IOMMU_INTEL:
		return xasprintf("intel-iommu,intremap=on,caching-mode=%s",
				 qemu_conf(m)->caching_mode ? "on" : "off");
	case QEMU_IOMMU_AMD:
		return xstrdup("amd-iommu");
	case QEMU_IOMMU_VIRTIO:
		return xstrdup("virtio-iommu-pci");
	case QEMU_IOMMU_NONE:
	case QEMU_IOMMU_SMMUV3:
		break;
	}
	return NULL;
}

void qemu__argv(const struct matrix_host *m, const struct qemu_boot *b,
		struct strvec *out)
{
	const struct qemu_machine *qm = qemu__machine(m);
	bool kvm = b->accel == ACCEL_KVM;
	char *e, *dev;

	strvec__push(out, qm ? qm->binary : "qemu-system-x86_64");
	strvec__pushf(out, "-name");
	/* Named threads ("CPU 0/TCG"): how qemu-pin.c finds the vCPUs. */
	strvec__pushf(out, "iommu-bench-%s,debug-threads=on", m->name);
	strvec__push(out, "-machine");
	strvec__push_nodup(out, qemu__machine_arg(m, kvm));
	strvec__push(out, "-accel");
	strvec__push(out, kvm ? "kvm" : "tcg,thread=multi");
	strvec__push(out, "-cpu");
	strvec__push(out, kvm ? "host" : qm ? qm->tcg_cpu : "max");
	strvec__push(out, "-smp");
	strvec__pushf(out, "%u", qemu_conf(m)->cpus);
	strvec__push(out, "-m");
	strvec__pushf(out, "%lluM",
		      (unsigned long long)(qemu_conf(m)->memory >> 20));
	dev = qemu__iommu_device(m);
	if (dev) {
		strvec__push(out, "-device");
		strvec__push(out, dev);
		free(dev);
	}
	strvec__push(out, "-kernel");
	strvec__push(out, b->image);
	strvec__push(out, "-initrd");
	strvec__push(out, b->initrd);
	strvec__push(out, "-append");
	strvec__push(out, b->cmdline);

	strvec__push(out, "-netdev");
	if (b->tap) {
		strvec__pushf(out,
			      "tap,id=n0,ifname=%s,script=no,downscript=no",
			      b->tap);
	} else {
		/* restrict=on: the guest cannot open anything outside. */
		strvec__push(out, "user,id=n0,restrict=on");
	}
	strvec__push(out, "-device");
	strvec__push(out, qemu__nic_device(m));
	disks__push(m, b, out);
	/* The dma_map workload lends it to the benchmark's driver. */
	if (qemu_conf(m)->spare_pci) {
		strvec__push(out, "-device");
		strvec__pushf(out, "%s,addr=0x%x",
			      qemu_spare__model(qemu_conf(m)->spare),
			      DMA_MAP_QEMU_SPARE_SLOT);
	}

	/* The controller's root, read-only: the agent, iperf3, perf, libs. */
	strvec__push(out, "-fsdev");
	strvec__push(out, "local,id=fs0,path=/,security_model=none,readonly=on,"
			  "multidevs=remap");
	strvec__push(out, "-device");
	strvec__push(out, "virtio-9p-pci,fsdev=fs0,mount_tag=" TESTBED_9P_TAG);

	strvec__push(out, "-device");
	strvec__push(out, "virtio-serial-pci");
	strvec__push(out, "-chardev");
	e = qemu__escape(b->agent_sock);
	strvec__pushf(out, "socket,id=agent,path=%s,server=on,wait=off", e);
	free(e);
	strvec__push(out, "-device");
	strvec__push(out,
		     "virtserialport,chardev=agent,name=" TESTBED_PORT_NAME);

	if (b->qmp_sock) {
		strvec__push(out, "-qmp");
		e = qemu__escape(b->qmp_sock);
		strvec__pushf(out, "unix:%s,server=on,wait=off", e);
		free(e);
	}

	strvec__push(out, "-serial");
	e = qemu__escape(b->console);
	strvec__pushf(out, "file:%s", e);
	free(e);
	strvec__push(out, "-display");
	strvec__push(out, "none");
	strvec__push(out, "-nodefaults");
	strvec__push(out, "-no-reboot");
}

enum qemu_accel qemu__detect_accel(void)
{
	return arch__kvm_works() ? ACCEL_KVM : ACCEL_TCG;
}

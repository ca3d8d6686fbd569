/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The VM a qemu host is, as [hosts.NAME.qemu] says (qemu-keys.c): the
 * qemu transport's own part of a matrix host, which a lava host's
 * device shares (its conf begins with one, lava-conf.h).
 */
#ifndef IOMMU_BENCH_QEMU_CONF_H
#define IOMMU_BENCH_QEMU_CONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch.h"
#include "bench/matrix/matrix.h"

enum qemu_accel { ACCEL_AUTO, ACCEL_KVM, ACCEL_TCG };
enum qemu_iommu {
	QEMU_IOMMU_INTEL,
	QEMU_IOMMU_NONE,
	QEMU_IOMMU_SMMUV3,
	QEMU_IOMMU_AMD,
	QEMU_IOMMU_VIRTIO,
};
/*
 * The guest's NIC. virtio-net never calls the DMA sync functions; an
 * e1000e at a jumbo MTU receives small packets into buffers it syncs
 * instead of unmapping (its packet-split path), which is where 6.1 and
 * 6.12 differ (DMA_F_CAN_SKIP_SYNC).
 */
enum qemu_nic { QEMU_NIC_VIRTIO, QEMU_NIC_E1000E };
/*
 * The spare PCI function a dma_map workload lends: QEMU's edu, which no
 * driver claims, or a virtio function (virtio-rng), which virtio-pci
 * holds, for the path of a lab machine's bound device (unbind = true).
 */
enum qemu_spare { QEMU_SPARE_EDU, QEMU_SPARE_VIRTIO };

/* The VM a qemu host is: bench/host/qemu/host-qemu.c makes it QEMU's argv. */
struct matrix_qemu {
	uint64_t memory; /* bytes */
	unsigned int cpus;
	/*
	 * The guest's machine: "x86_64" (q35) or "arm64" (virt), this
	 * machine's by default; another arch than the controller's runs
	 * under TCG, its agent cross-built (Makefile: agent-arm64).
	 */
	const struct arch *arch;
	enum qemu_accel accel;
	/* Default: the arch's own (intel, smmuv3); amd and virtio asked. */
	enum qemu_iommu iommu;
	/*
	 * The vIOMMU reports caching mode (what vfio in the guest needs).
	 * Intel's driver then forces strict: a lazy mode asked for fails
	 * verification, as it must.
	 */
	bool caching_mode;
	char **cmdline; /* kernel arguments of every boot */
	size_t nr_cmdline;
	/*
	 * affinity = { vcpus = [..], io = CPU }: host CPUs for each vCPU's
	 * thread and for the rest of QEMU; NULL / -1: not pinned. On a
	 * small host, a vCPU that competes with QEMU's I/O and the peer's
	 * iperf3 for a CPU makes most of the testbed's noise.
	 */
	int *vcpu_cpus;
	size_t nr_vcpu_cpus;
	int io_cpu;
	enum qemu_nic nic;
	/* The link's MTU, set on the guest's NIC and the peer's tap; 0: 1500. */
	unsigned int mtu;
	struct matrix_disk *disks;
	size_t nr_disks;
	/*
	 * A dma_map workload runs here without naming a device: the VM
	 * gets a spare PCI function for it (DMA_MAP_QEMU_SPARE_BDF), of
	 * the model @spare names.
	 */
	bool spare_pci;
	enum qemu_spare spare;
};

/* The VM of a qemu or lava host. */
static inline struct matrix_qemu *qemu_conf(const struct matrix_host *h)
{
	return h->conf;
}

/* Names for enums, as the file spells them. */
const char *qemu_iommu__name(enum qemu_iommu iommu);
const char *qemu_nic__name(enum qemu_nic nic);
/* QEMU's -device model of the spare: "edu", "virtio-rng-pci". */
const char *qemu_spare__model(enum qemu_spare spare);
/* The vIOMMU a guest of @arch has: intel on x86_64, smmuv3 on arm64. */
enum qemu_iommu qemu_iommu__default(const struct arch *arch);
/* Whether QEMU emulates @iommu on a guest of @arch. */
bool qemu_iommu__emulated(enum qemu_iommu iommu, const struct arch *arch);

/* A VM's defaults, @memory of it, on an @arch guest. */
void qemu_conf__defaults(struct matrix_qemu *q, uint64_t memory,
			 const struct arch *arch);
/* [hosts.NAME.qemu] @tab into @h's VM; a lava host's takes fewer keys. */
void qemu_conf__parse(struct mx *mx, struct matrix_host *h,
		      const struct toml_value *tab);
void qemu_conf__release(struct matrix_qemu *q);

#endif /* IOMMU_BENCH_QEMU_CONF_H */

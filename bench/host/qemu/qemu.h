/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The testbed VM as QEMU sees it: one boot's argument vector and the
 * guest's kernel command line, built from the matrix's [hosts.NAME]
 * and its qemu table. Pure functions, so that a unit test can check
 * every argument that decides what the guest's IOMMU does.
 */
#ifndef IOMMU_BENCH_QEMU_H
#define IOMMU_BENCH_QEMU_H

#include <stdbool.h>
#include <stddef.h>

#include "bench/host/host-priv.h"
#include "bench/host/qemu/qemu-conf.h"
#include "bench/matrix/matrix.h"

/*
 * What differs between the guests the testbed boots: QEMU's binary, its
 * machine and CPU, the serial console's name in the guest.
 */
struct qemu_machine {
	const char *arch;    /* struct arch's name */
	const char *binary;  /* "qemu-system-aarch64" */
	const char *machine; /* QEMU's -machine type: "q35", "virt" */
	const char *console; /* "ttyAMA0" */
	/* -cpu under TCG: the fastest model that boots Debian's kernels */
	const char *tcg_cpu;
};

/* @m's guest; NULL when the testbed has none for its arch. */
const struct qemu_machine *qemu__machine(const struct matrix_host *m);

/* One boot of the VM. */
struct qemu_boot {
	enum qemu_accel accel; /* resolved: kvm or tcg */
	const char *image;
	const char *initrd;
	const char *cmdline; /* the guest's, whole */
	const char *tap;     /* NULL: a user-mode NIC that reaches nothing */
	const char *agent_sock;
	const char *qmp_sock; /* QEMU's monitor, QMP */
	const char *console;
	/* The scratch image of each of the host's qemu.disks, in order. */
	const char *const *disks;
};

/*
 * The guest's kernel command line: the testbed's own arguments (console,
 * panic, the vIOMMU switched on, the iommu_bench.* keys the initramfs
 * reads), then the host's qemu.cmdline, then @args (the kernel's and
 * the mode's, which therefore win). A new string.
 */
char *qemu__cmdline(const struct matrix_host *m, const char *exe,
		    const char *const *args, size_t nr_args);

/* QEMU's argv for @b on host @m, appended to @out. */
/*
 * The -device of @m's vIOMMU when it is one (intel, amd, virtio), for
 * the qemu and lava transports alike; NULL: none, or SMMUv3, which is a
 * property of Arm's virt machine. The caller frees it.
 */
char *qemu__iommu_device(const struct matrix_host *m);
/* The NIC's -device, on the netdev "n0": behind the vIOMMU if any. */
const char *qemu__nic_device(const struct matrix_host *m);
/* The same NIC on netdev @netdev; a new string. */
char *qemu__nic_device_on(const struct matrix_host *m, const char *netdev);
/* The -machine value for @m's arch and vIOMMU (new). */
char *qemu__machine_arg(const struct matrix_host *m, bool kvm);
void qemu__argv(const struct matrix_host *m, const struct qemu_boot *b,
		struct strvec *out);

/*
 * KVM where it can work: /dev/kvm opens and the CPU has vmx or svm. A
 * paravirtual /dev/kvm without them starts QEMU, then hangs the guest
 * in early boot (measured here), so TCG is chosen for it.
 */
enum qemu_accel qemu__detect_accel(void);

/*
 * Whether a boot whose agent gave no answer was lost to the guest
 * kernel's own code patching under TCG (qemu-race.c), from its console
 * @buf: what the kernel did, in words to follow "the guest's kernel",
 * or NULL when the console shows no such loss.
 */
const char *qemu__patch_race(const char *buf, size_t len);

/* What an x86 guest's kernel prints when sysrq-l reaches it. */
#define QEMU_SYSRQ_LINE "sysrq: Show backtrace of all active CPUs"
/*
 * Ask a silent x86 guest for every CPU's backtrace (sysrq-l through the
 * monitor at @qmp), twice, each answer awaited on @console: 0, or a
 * negative errno and *@err (no answer: the keyboard's CPU does not take
 * interrupts, or no keyboard yet).
 */
int qemu__ask_backtraces(const char *qmp, const char *console, char **err);
/*
 * Where the CPUs were, from the backtraces in console @buf after its
 * first sysrq-l ("cpu 0 idle at native_safe_halt+0xb/0x10; cpu 1 at
 * ..."), new; NULL when it holds none. *@int3: a CPU was in the int3
 * handler.
 */
char *qemu__cpus_said(const char *buf, size_t len, bool *int3);

/*
 * [hosts.NAME.qemu] affinity: every CPU it names is one this process may
 * run on (the VM's threads inherit that), or -EINVAL and *@err.
 */
int qemu__check_affinity(const struct matrix_host *m, char **err);
/*
 * Each vCPU thread of QEMU @pid onto its CPU of affinity.vcpus; 0, or
 * -ESRCH when not every vCPU's thread was found by its name.
 */
int qemu__pin_vcpus(const struct matrix_host *m, int pid);

/*
 * The drivers @m's guest needs beyond the testbed's own (its NIC's,
 * its disks'), appended to @out by module name.
 */
void qemu__guest_modules(const struct matrix_host *m, struct strvec *out);
/*
 * 0, or -EOPNOTSUPP and the words when kernel @k cannot drive host @m's
 * vIOMMU (virtio-iommu on a kernel built without it), as far as the
 * testbed cache knows before any download or boot.
 */
int qemu__kernel_check(const struct matrix_host *m,
		       const struct matrix_kernel *k, char **err);

/* A kernel of the matrix, resolved to files QEMU can boot. */
struct qemu_kernel {
	char *image, *initrd; /* NULL: not bootable in a VM */
};

/*
 * One per kernel of @h's matrix, in order: package kernels from the
 * testbed's cache with the drivers @h's guest needs, images and builds
 * with its initramfs. 0, or a negative errno and *@err naming the
 * kernel; *@out is set either way, for qemu__kernels_free().
 */
int qemu__kernels(const struct host *h, struct qemu_kernel **out, char **err);
void qemu__kernels_free(const struct host *h, struct qemu_kernel *kernels);

/* Commas doubled, as QEMU's option syntax wants in a value. New string. */
char *qemu__escape(const char *value);

/*
 * What every host that is a VM keeps, booted here (qemu) or in a lab
 * (lava): its state folder, held for this run alone; the agent's socket
 * and binary; the kernels' files; the agent of a new boot until agent()
 * takes it.
 */
struct qemu_vm {
	char *dir;   /* /run/iommu-bench/KIND-NAME */
	int lock_fd; /* flock of @dir: one run per VM name at a time */
	char *sock;  /* the agent's socket */
	char *agent; /* the agent binary, of the guest's arch */
	struct qemu_kernel *kernels; /* one per matrix kernel */
	struct agent_conn *ready;    /* the new boot's agent, not yet taken */
	unsigned int boots;
};

/* The state folder @kind-NAME, locked (host__state_dir_lock()). */
int qemu_vm__lock(struct host *h, struct qemu_vm *vm, const char *kind,
		  char **err);
/* The agent binary for the guest, and each kernel's files. */
int qemu_vm__files(struct host *h, struct qemu_vm *vm, char **err);
/* The new boot's agent into *@out, once: false when there is none. */
bool qemu_vm__take_ready(struct qemu_vm *vm, struct agent_conn **out);
/* The agent closed, the files freed, the lock let go. */
void qemu_vm__release(struct host *h, struct qemu_vm *vm);

#endif /* IOMMU_BENCH_QEMU_H */

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
#include "bench/matrix/matrix.h"

#define QEMU_BINARY "qemu-system-x86_64"

/* One boot of the VM. */
struct qemu_boot {
	enum qemu_accel accel; /* resolved: kvm or tcg */
	const char *image;
	const char *initrd;
	const char *cmdline; /* the guest's, whole */
	const char *tap;     /* NULL: a user-mode NIC that reaches nothing */
	const char *agent_sock;
	const char *console;
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
void qemu__argv(const struct matrix_host *m, const struct qemu_boot *b,
		struct strvec *out);

/*
 * KVM where it can work: /dev/kvm opens and the CPU has vmx or svm. A
 * paravirtual /dev/kvm without them starts QEMU, then hangs the guest
 * in early boot (measured here), so TCG is chosen for it.
 */
enum qemu_accel qemu__detect_accel(void);

/* Commas doubled, as QEMU's option syntax wants in a value. New string. */
char *qemu__escape(const char *value);

#endif /* IOMMU_BENCH_QEMU_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Machine architectures under the names each tool gives them: the
 * kernel's ARCH= (what the matrix writes), Debian's (package names and
 * multiarch), uname -m's and the GNU triplet's (cross compilers, library
 * folders). One table, so that the testbed, the kernel builder and the
 * matrix never translate between them on their own.
 */
#ifndef IOMMU_BENCH_ARCH_H
#define IOMMU_BENCH_ARCH_H

#include <stdbool.h>
#include <stddef.h>

struct arch {
	const char *name;    /* the kernel's ARCH=: "x86_64", "arm64" */
	const char *deb;     /* Debian's: "amd64", "arm64" */
	const char *machine; /* uname -m: "x86_64", "aarch64" */
	const char *triplet; /* "x86_64-linux-gnu", "aarch64-linux-gnu" */
	int elf_machine;     /* e_machine: EM_X86_64, EM_AARCH64 */
	bool elf64;
};

/* By the kernel's name ("x86_64", "arm64"...), or NULL. */
const struct arch *arch__find(const char *name);
/* This machine's, by uname -m; NULL where the table lacks it. */
const struct arch *arch__native(void);
/* By uname -m ("aarch64"), or NULL. */
const struct arch *arch__by_machine(const char *machine);
/*
 * A Debian kernel package's, from the flavour in its name: one of its
 * dash-separated words is Debian's arch ("linux-image-6.1.0-57-arm64",
 * "linux-image-6.12.48+deb12-cloud-amd64"). NULL: none said.
 */
const struct arch *arch__of_package(const char *package);
/* An ELF file's, from its header; NULL: not ELF, or not in the table. */
const struct arch *arch__of_elf(const void *data, size_t len);

/*
 * KVM where it can work: /dev/kvm opens and the CPU has vmx or svm. A
 * paravirtual /dev/kvm without them starts QEMU, then hangs the guest
 * in early boot (measured here), so it does not count.
 */
bool arch__kvm_works(void);

#endif /* IOMMU_BENCH_ARCH_H */

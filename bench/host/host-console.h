/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What a dead kernel prints on a console, in one list every transport
 * reads (host-console.c): a kernel that panicked, halted or powered off
 * says so there, and a boot that did is given up at once instead of at
 * the boot_timeout; a VM's console tail shows its oops from the first
 * line.
 */
#ifndef IOMMU_BENCH_HOST_CONSOLE_H
#define IOMMU_BENCH_HOST_CONSOLE_H

#include <stddef.h>

/* The kernel's words a transport also looks for by themselves. */
#define CONSOLE_PANIC "Kernel panic - not syncing"
#define CONSOLE_POWER_DOWN "reboot: Power down"

/*
 * Where in the NUL-terminated @buf the kernel began to say what went
 * wrong: the start of the line of its first oops, BUG or panic; NULL
 * when it said none of them.
 */
const char *console__report(const char *buf);

/*
 * The first line of @buf holding a kernel's last words ("Kernel panic -
 * not syncing: ...", "reboot: System halted", "reboot: Power down"),
 * from those words on, newly allocated; NULL if none.
 */
char *console__stopped(const char *buf, size_t len);

#endif /* IOMMU_BENCH_HOST_CONSOLE_H */

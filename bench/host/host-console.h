/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What a dead kernel prints on a console, in one list every transport
 * reads (host-console.c). A lab machine's serial console log is watched
 * while a reboot is awaited: a kernel that panicked, halted or powered
 * off says so there, and its boot is given up at once instead of at the
 * boot_timeout. A VM's console tail shows its oops from the first line.
 */
#ifndef IOMMU_BENCH_HOST_CONSOLE_H
#define IOMMU_BENCH_HOST_CONSOLE_H

#include <stddef.h>
#include <sys/types.h>

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

/* The log's size now, in *@at: what a later look starts from. */
int console__mark(const char *path, off_t *at);

/*
 * The whole lines logged since *@at, looked through: *@line as
 * console__stopped(), and *@at moved past them. 0, or a negative errno
 * when the log cannot be read.
 */
int console__look(const char *path, off_t *at, char **line);

#endif /* IOMMU_BENCH_HOST_CONSOLE_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/* The Environment section's table of machines (report-machine.c). */
#ifndef IOMMU_BENCH_REPORT_MACHINE_H
#define IOMMU_BENCH_REPORT_MACHINE_H

#include "report-priv.h"

/*
 * One row per kind of boot, from its host facts: the machine, firmware,
 * distribution, boot loader and entry, systemd's boot time and the
 * kernel config's IOMMU default. Facts of format 1 lack these: their
 * cells say "not recorded".
 */
void report__machines(struct report_ctx *c);

#endif /* IOMMU_BENCH_REPORT_MACHINE_H */

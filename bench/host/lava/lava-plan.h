/* SPDX-License-Identifier: GPL-2.0-only */
/* The LAVA jobs a plan would submit (`iommu-bench plan`). */
#ifndef IOMMU_BENCH_LAVA_PLAN_H
#define IOMMU_BENCH_LAVA_PLAN_H

#include <stdio.h>

#include "bench/matrix/plan.h"

/*
 * For each lava host of @p's matrix: its jobs, one per boot (kernel,
 * mode), their count and device time, on @fp; nothing when it has none.
 * With @yaml_dir, each job's definition is written there as
 * HOST-jobN.yaml (the testbed's kernel files are made for it, as a run
 * would). 0, or a negative errno and *@err.
 */
int lava_plan__print(const struct plan *p, const char *yaml_dir, FILE *fp,
		     char **err);

#endif /* IOMMU_BENCH_LAVA_PLAN_H */

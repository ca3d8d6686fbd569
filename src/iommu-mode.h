/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The IOMMU's DMA-API modes, once: the name a matrix and the host's facts
 * give each, the type its groups show in sysfs, and the kernel argument
 * that boots it. The matrix, the agent's sysfs switch, the host's facts
 * and the run's verification all read this table, so they cannot drift
 * apart (a drift fails every trial as a mode mismatch).
 */
#ifndef IOMMU_BENCH_IOMMU_MODE_H
#define IOMMU_BENCH_IOMMU_MODE_H

#include <stdbool.h>

/* Other enums (the matrix's group types, the host's modes) keep this order. */
enum iommu_mode {
	IOMMU_MODE_STRICT,
	IOMMU_MODE_LAZY,
	IOMMU_MODE_PASSTHROUGH,
	NR_IOMMU_MODES,
};

struct iommu_mode_info {
	const char *name;	/* "strict" */
	const char *group_type; /* sysfs iommu_group/type: "DMA" */
	/*
	 * The generic iommu.* parameter, not the x86-only iommu=pt or the
	 * driver-specific intel_iommu=strict, so that one matrix serves x86
	 * and arm64 SUTs alike.
	 */
	const char *cmdline;	 /* "iommu.strict=1" */
	const char *description; /* for the plan and the docs */
};

/*
 * What sysfs takes besides the modes' types: the kernel's own default
 * for the group.
 */
#define IOMMU_GROUP_TYPE_AUTO "auto"

const struct iommu_mode_info *iommu_mode__info(enum iommu_mode m);
/* The mode of that name or group type; -ENOENT for anything else. */
int iommu_mode__by_name(const char *name);
int iommu_mode__by_group_type(const char *type);

/*
 * The group types a sysfs write may name, the modes' in their order and
 * then "auto": a NULL-terminated list.
 */
const char *const *iommu_group_types(void);
bool iommu_group_type__writable(const char *type);
/* Those types in words, "DMA, DMA-FQ, identity or auto": free() it. */
char *iommu_group_types__words(void);
/* The modes' types alone, "DMA, DMA-FQ or identity": free() it. */
char *iommu_mode__types_words(void);

#endif

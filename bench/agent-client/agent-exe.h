/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Which binary a host's agent runs: the tool itself, or the same tool
 * cross-built for the host's arch.
 */
#ifndef IOMMU_BENCH_AGENT_EXE_H
#define IOMMU_BENCH_AGENT_EXE_H

struct arch;

/*
 * The agent for a host of @arch: self_exe() for this machine's arch;
 * for another, the same tool cross-built for it (`make agent-arm64`):
 * .output/ARCH/iommu-bench beside a binary in its build tree, or
 * ../lib/iommu-bench/ARCH/iommu-bench beside an installed one. Its ELF
 * header must say @arch and its dynamic loader must exist here (a guest
 * runs it from this machine's root, where multiarch puts the
 * libraries). 0 and a new string in *@path, or -ENOENT and *@err.
 */
int agent_exe__find(const struct arch *arch, char **path, char **err);

#endif /* IOMMU_BENCH_AGENT_EXE_H */

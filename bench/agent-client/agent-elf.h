/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the controller must know of the agent binary and its libraries
 * to run it elsewhere: the loader it asks for and the shared libraries
 * it names. Little-endian ELF64 only, which every arch of the tool is.
 */
#ifndef IOMMU_BENCH_AGENT_ELF_H
#define IOMMU_BENCH_AGENT_ELF_H

#include <stddef.h>

#include "strvec.h"

/* The PT_INTERP of the ELF at @fd into @buf; "" if none. 0 or -ENOEXEC. */
int elf__interp(int fd, char *buf, size_t size);
/*
 * The DT_NEEDED names of the ELF at @path appended to @out, in order.
 * 0, or a negative errno (-ENOEXEC: not a dynamic ELF64 we can read).
 */
int elf__needed(const char *path, struct strvec *out);
/* elf__needed(), and the absolute folders of its RUNPATH in @runpath. */
int elf__dynamic(const char *path, struct strvec *out, struct strvec *runpath);

#endif /* IOMMU_BENCH_AGENT_ELF_H */

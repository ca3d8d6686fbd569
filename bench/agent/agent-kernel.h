/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kernel.stage, kernel.install and kernel.find: a kernel build the
 * controller has (bzImage, modules.tar, maybe an initrd) put on a host
 * through the agent connection, then booted with reboot.prepare's
 * kexec. The layout on the host:
 *
 *   DIR/NAME.staging/   what kernel.stage appends to, 0700
 *   DIR/NAME/           vmlinuz, initrd.img?, installed.json
 *   MODULES_ROOT/RELEASE/.iommu-bench   the build id that installed it
 *   BOOTDIR/vmlinuz-RELEASE, BOOTDIR/initrd.img-RELEASE
 *                       copies for grub's menu, with "boot"; recorded
 *                       with their sha256 in DIR/NAME/installed.json
 *
 * The agent runs as root and takes these names from its controller:
 * every one is checked here before it reaches a path or a command.
 */
#ifndef IOMMU_BENCH_AGENT_KERNEL_H
#define IOMMU_BENCH_AGENT_KERNEL_H

#include <stdbool.h>

#include "bench/agent/agent-proto.h"

/* The most decoded bytes one kernel.stage call takes: cut files to it. */
#define AGENT_KERNEL_STAGE_MAX AGENT_FILE_READ_MAX

/* Written in every modules folder we install; holds the build id. */
#define AGENT_KERNEL_MARKER ".iommu-bench"

#define AGENT_KERNEL_MODULES_ROOT "/lib/modules"

/* The three files kernel.stage takes. */
#define AGENT_KERNEL_IMAGE "vmlinuz"
#define AGENT_KERNEL_INITRD "initrd.img"
#define AGENT_KERNEL_MODULES "modules.tar"

/*
 * An install root or modules root: absolute, [A-Za-z0-9._+/-] only,
 * no "..", no "//", not "/" (one trailing '/' is allowed).
 */
bool agent_kernel__dir_is_safe(const char *dir);
/* An install name or release: [A-Za-z0-9._+-], 1..128, no leading . or -. */
bool agent_kernel__name_is_safe(const char *name);
/* 16..64 hex digits. */
bool agent_kernel__build_id_is_safe(const char *id);

#endif /* IOMMU_BENCH_AGENT_KERNEL_H */

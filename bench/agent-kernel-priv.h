/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What bench/agent-kernel.c, agent-kernel-modules.c and
 * agent-kernel-fs.c share and nobody else needs: kernel.install's
 * state, which the modules install fills in, and the folder and
 * command helpers all three use. bench/agent-kernel.h stays the
 * interface for the rest of the tool.
 */
#ifndef IOMMU_BENCH_AGENT_KERNEL_PRIV_H
#define IOMMU_BENCH_AGENT_KERNEL_PRIV_H

#include <jansson.h>
#include <stddef.h>
#include <sys/types.h>

#include "bench/agent-kernel.h"

#define AGENT_KERNEL_BUILD_ID_MAX 64
/* A modules tree is 6 deep; this bounds the fds a walk holds. */
#define AGENT_KERNEL_WALK_MAX_DEPTH 32

/* DIR and NAME, and the two folders they make. */
struct kernel_paths {
	char *dir;
	const char *name;
	char *staging; /* DIR/NAME.staging */
	char *final;   /* DIR/NAME */
};

/*
 * One kernel.install call; agent_kernel__install_modules() sets
 * modules_dir and extract, which the verb reports and cleans up.
 */
struct kernel_install {
	const char *verb;
	struct kernel_paths kp;
	const char *release, *build_id, *initrd;
	char *modules_root;
	json_t *sha256; /* file name -> lower-case hex */
	char *gen;	/* the initramfs generator's path ("generate") */
	const char *gen_name;
	char *modules_dir; /* MODULES_ROOT/RELEASE, with modules.tar */
	char *extract;	   /* where modules.tar is unpacked */
	const char *initrd_by;
};

/* agent-kernel-fs.c: 0 or -errno; those with @verb and @err fill *@err. */
int agent_kernel__dir_check(const char *verb, const char *dir, char **err);
int agent_kernel__dir_make(const char *verb, const char *dir, mode_t mode,
			   char **err);
int agent_kernel__rm_tree(const char *path);
int agent_kernel__replace_dir(const char *from, const char *to,
			      const char *aside);
int agent_kernel__run_argv(const char *verb, const char *const *argv, int ms,
			   const char *skip, char **out, char **err);
char *agent_kernel__which(const char *prog);

/* agent-kernel-modules.c */
int agent_kernel__marker_read(const char *dir, char *out, size_t size);
int agent_kernel__install_modules(struct kernel_install *in, char **err);

#endif /* IOMMU_BENCH_AGENT_KERNEL_PRIV_H */

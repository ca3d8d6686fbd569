/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What bench/agent/agent-kernel.c, agent-kernel-modules.c, agent-kernel-boot.c
 * and agent-kernel-fs.c share and nobody else needs: kernel.install's
 * state, which the modules install and the boot copies fill in, and the
 * folder and command helpers they all use. bench/agent/agent-kernel.h stays
 * the interface for the rest of the tool.
 */
#ifndef IOMMU_BENCH_AGENT_KERNEL_PRIV_H
#define IOMMU_BENCH_AGENT_KERNEL_PRIV_H

#include <jansson.h>
#include <stddef.h>
#include <sys/types.h>

#include "bench/agent/agent-kernel.h"
#include "sha256.h"

#define AGENT_KERNEL_BUILD_ID_MAX 64
/* A modules tree is 6 deep; this bounds the fds a walk holds. */
#define AGENT_KERNEL_WALK_MAX_DEPTH 32
/* In DIR/NAME: what was installed, and what it placed elsewhere. */
#define AGENT_KERNEL_INSTALLED "installed.json"

/* DIR and NAME, and the two folders they make. */
struct kernel_paths {
	char *dir;
	const char *name;
	char *staging; /* DIR/NAME.staging */
	char *final;   /* DIR/NAME */
};

/* A copy in BOOTDIR that grub's menu is made from. */
struct kernel_boot_file {
	const char *file;	   /* its source in DIR/NAME */
	char *path;		   /* BOOTDIR/vmlinuz-RELEASE, ... */
	char sha[SHA256_HEX_SIZE]; /* this build's; "" when it has none */
};

/* kernel.install's "boot"; dir is NULL when none was asked. */
struct kernel_boot {
	char *dir;
	char *grub; /* the grub.cfg generator's path */
	const char *grub_name;
	const char *grub_by; /* grub_name once it has run */
	struct kernel_boot_file image, initrd;
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
	struct kernel_boot boot;
};

/* agent-kernel.c: DIR and NAME of @args, checked; and its folders. */
int agent_kernel__paths(const char *verb, json_t *args, struct kernel_paths *kp,
			char **err);
void agent_kernel__paths_release(struct kernel_paths *kp);
/* A .deb's file name as kernel.stage takes it: a name, "*.deb". */
bool agent_kernel__deb_is_safe(const char *file);

/* agent-kernel-fs.c: 0 or -errno; those with @verb and @err fill *@err. */
int agent_kernel__dir_make(const char *verb, const char *dir, mode_t mode,
			   char **err);
int agent_kernel__replace_dir(const char *from, const char *to,
			      const char *aside);
int agent_kernel__run_argv(const char *verb, const char *const *argv, int ms,
			   const char *skip, char **out, char **err);
/*
 * The first of @tools (NULL-terminated) in $PATH: its path in *@found
 * (to free) and its name in *@name; else -ENOENT, saying that no @what
 * is there (naming @tools, then @hint).
 */
int agent_kernel__find_tool(const char *verb, const char *const *tools,
			    const char *what, const char *hint, char **found,
			    const char **name, char **err);

/* agent-kernel-modules.c */
int agent_kernel__marker_read(const char *dir, char *out, size_t size);
int agent_kernel__install_modules(struct kernel_install *in, char **err);

/*
 * agent-kernel-boot.c, in the order kernel.install calls them: before
 * anything is installed, after the initrd exists, before DIR/NAME is
 * swapped in (installed.json records the copies first), and last.
 */
int agent_kernel__boot_prepare(struct kernel_install *in, char **err);
int agent_kernel__boot_hash(struct kernel_install *in, char **err);
int agent_kernel__boot_place(struct kernel_install *in, char **err);
int agent_kernel__boot_grub(struct kernel_install *in, char **err);
/* "boot_image", "boot_initrd", "grub_by", and with @record the sha256s. */
void agent_kernel__boot_json(const struct kernel_install *in, json_t *o,
			     bool record);
void agent_kernel__boot_release(struct kernel_boot *b);
/* Why @installed's copies in @boot_dir are not ready; NULL if they are. */
char *agent_kernel__boot_why(const char *boot_dir, json_t *installed);

#endif /* IOMMU_BENCH_AGENT_KERNEL_PRIV_H */

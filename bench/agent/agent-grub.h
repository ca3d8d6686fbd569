/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * grub's one-shot entry for reboot = "grub" (agent-grub.c says how).
 * Functions return 0 or a negative errno with their words in *@err.
 */
#ifndef IOMMU_BENCH_AGENT_GRUB_H
#define IOMMU_BENCH_AGENT_GRUB_H

#include <stdbool.h>
#include <stddef.h>

#define AGENT_GRUB_ID "iommu-bench-oneshot"
#define AGENT_GRUB_FILE "iommu-bench-oneshot.cfg"

/* What a one-shot boot writes, before anything is written. */
struct agent_grub_plan {
	char *text;	   /* the one-shot entry, as the file holds it */
	char *cmdline;	   /* its linux line's arguments */
	char *entry_title; /* the entry it copies, "Submenu>Title" */
	char *file;	   /* where it goes */
	char *hook;	   /* /etc/grub.d's hook that sources it */
	bool hooked;	   /* grub.cfg sources it already */
	char *tool;	   /* grub-reboot's path */
};

/*
 * The one-shot entry booting @image (matched by file name) with @add on
 * its command line, from grub's menu under @root ("/" on a machine).
 * -EOPNOTSUPP without grub-reboot, -ENOENT without an entry for it.
 */
int agent_grub__plan(const char *root, const char *image,
		     const char *const *add, size_t nr_add,
		     struct agent_grub_plan *pl, char **err);
void agent_grub__plan_release(struct agent_grub_plan *pl);
/* The hook once (and grub.cfg made again), then the entry's file. */
int agent_grub__install(const struct agent_grub_plan *pl, char **err);
/* grub.cfg made again by the distribution's generator; *@by its name. */
int agent_grub__mkconfig(const char *verb, const char **by, char **err);

#endif /* IOMMU_BENCH_AGENT_GRUB_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The agent as it is sent to a machine that shares nothing with the
 * controller: the binary for the machine's arch and every shared
 * library it needs beyond the C library's own, taken from this
 * machine's library folders for that arch (multiarch puts arm64's in
 * /usr/lib/aarch64-linux-gnu). The machine runs it with those libraries
 * first in its search path, so that a lab machine needs none of them
 * installed and gets exactly the ones the agent was built against; the
 * C library is the machine's own, which must be at least as new as
 * this machine's.
 */
#ifndef IOMMU_BENCH_AGENT_BUNDLE_H
#define IOMMU_BENCH_AGENT_BUNDLE_H

#include <stddef.h>

#include "sha256.h"
#include "strvec.h"

struct arch;

struct agent_bundle {
	char *exe; /* the agent binary, here */
	char exe_sha[SHA256_HEX_SIZE];
	struct strvec libs;	  /* the libraries' paths, here */
	struct strvec lib_shas;	  /* their sha256, in the same order */
	unsigned long long bytes; /* all of it */
	/* A hash of every file's name and content: names the folder on
	 * the machine, so that a changed tool is a new folder there. */
	char id[17];
};

/*
 * The bundle for a machine of @arch. 0, or a negative errno and *@err
 * (no agent for that arch, a library not found here, a file unreadable).
 */
int agent_bundle__make(const struct arch *arch, struct agent_bundle *b,
		       char **err);
void agent_bundle__release(struct agent_bundle *b);

/*
 * For a machine with no C library of its own (an initramfs that is the
 * agent's whole root): every library @exe needs, the C library's
 * included, appended to @libs (paths here, found as that arch's loader
 * finds them), and in *@interp the loader's path as @exe names it (new).
 * 0, or a negative errno and *@err.
 */
int agent_bundle__closure(const struct arch *arch, const char *exe,
			  struct strvec *libs, char **interp, char **err);

/* A library the machine's C library provides: never sent. */
bool agent_bundle__is_libc(const char *soname);

/*
 * Set by the controller in the agent's environment beside
 * LD_LIBRARY_PATH, so that the agent drops both at its start: what it
 * runs there (kexec, grub-reboot, dpkg) must load the machine's own
 * libraries, not the ones sent for the agent.
 */
#define AGENT_LIBS_ENV "IOMMU_BENCH_AGENT_LIBS"

#endif /* IOMMU_BENCH_AGENT_BUNDLE_H */

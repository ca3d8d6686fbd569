// SPDX-License-Identifier: GPL-2.0-only
/*
 * Which binary is the agent of a host whose arch is not this machine's.
 * The tool is one binary whose `agent serve` is the agent, so a guest of
 * another arch runs the same tool cross-built, from this machine's root
 * shared over 9p: Debian's multiarch puts that arch's loader and
 * libraries there (/lib/ld-linux-aarch64.so.1, /usr/lib/aarch64-linux-gnu)
 * when its -dev packages are installed for the cross build.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arch.h"
#include "bench/agent-client/agent-elf.h"
#include "bench/agent-client/agent-exe.h"
#include "errmsg.h"
#include "util.h"

/* 0: @path is an executable of @arch whose loader is here; else why. */
static int agent__check(const char *path, const struct arch *arch, char **err)
{
	unsigned char head[64];
	const struct arch *found;
	char interp[256];
	int fd, ret = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (pread(fd, head, sizeof(head), 0) != sizeof(head)) {
		ret = -ENOEXEC;
		goto out;
	}
	found = arch__of_elf(head, sizeof(head));
	if (found != arch) {
		ret = errmsg__set(err, -ENOEXEC, "%s is %s%s, not %s", path,
				  found ? "built for " : "not an executable",
				  found ? found->name : "", arch->name);
		goto out;
	}
	if (!found->elf64 || elf__interp(fd, interp, sizeof(interp))) {
		ret = errmsg__set(err, -ENOEXEC,
				  "%s: cannot read its ELF program headers",
				  path);
		goto out;
	}
	if (interp[0] && access(interp, R_OK)) {
		ret = errmsg__set(err, -ENOENT,
				  "%s needs %s's loader %s, which this machine "
				  "lacks: the guest runs it from here, so %s's "
				  "libraries must be installed (multiarch; "
				  "scripts/install-deps.sh)",
				  path, arch->name, interp, arch->deb);
	}
out:
	close(fd);
	return ret;
}

int agent_exe__find(const struct arch *arch, char **path, char **err)
{
	char *self, *dir, *cand[2], *why = NULL;
	size_t i;
	int ret = -ENOENT;

	errmsg__reset(err);
	if (!arch || arch == arch__native()) {
		*path = xstrdup(self_exe());
		return 0;
	}
	self = xstrdup(self_exe());
	dir = dirname(self);
	cand[0] = xasprintf("%s/.output/%s/iommu-bench", dir, arch->name);
	cand[1] = xasprintf("%s/../lib/iommu-bench/%s/iommu-bench", dir,
			    arch->name);
	for (i = 0; i < ARRAY_SIZE(cand) && ret; i++) {
		if (access(cand[i], F_OK))
			continue;
		free(why);
		why = NULL;
		ret = agent__check(cand[i], arch, &why);
		if (!ret) {
			*path = realpath(cand[i], NULL);
			if (!*path)
				ret = -errno;
		}
	}
	if (ret && why)
		errmsg__move(err, 0, why);
	else if (ret)
		errmsg__set(err, 0,
			    "no %s agent: looked for %s and %s; build it "
			    "with `make agent-%s` (its cross compiler "
			    "and %s libraries come with "
			    "scripts/install-deps.sh)",
			    arch->name, cand[0], cand[1], arch->name,
			    arch->deb);
	else
		free(why);
	free_all(cand[0], cand[1], self);
	return ret;
}

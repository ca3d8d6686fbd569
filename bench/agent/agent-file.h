/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The agent's artifact folder: where collectors write (perf.data) on a
 * host whose disk the controller does not share, and the only place
 * file.read and file.remove reach. It is $TMPDIR (when absolute) or
 * /tmp, then ARTIFACT_DIR_NAME; a trial's folder is one safe name
 * below it. The agent runs as root and takes paths from its
 * controller: everything here resolves a path before trusting it.
 */
#ifndef IOMMU_BENCH_AGENT_FILE_H
#define IOMMU_BENCH_AGENT_FILE_H

#include <stdbool.h>

#include "bench/agent/agent-proto.h"

#define ARTIFACT_DIR_NAME "iommu-bench-artifacts"

/*
 * A trial's folder name: name_is_safe(), and no "..", no leading '.'
 * (nothing hidden, nothing that walks up).
 */
bool agent_file__name_is_safe(const char *name);

/*
 * The artifact root, resolved (realpath), made 0700 when missing and
 * @create. Refused unless it is a real directory of this user that no
 * one else can write: in a world-writable /tmp someone else may have
 * made it first. 0 and a new string, or a negative errno and *@err
 * (which starts with @verb, as every error here does).
 */
int agent_file__root(const char *verb, bool create, char **out, char **err);

/* The folder @name under the root, made (0700) if missing, resolved. */
int agent_file__outdir(const char *verb, const char *name, char **out,
		       char **err);

/*
 * @path (absolute) resolved, symlinks and all, to something strictly
 * below the root: 0 and the real path in *@out, else -EACCES (outside),
 * -EINVAL (not absolute) or realpath's errno, with *@err.
 */
int agent_file__resolve(const char *verb, const char *path, char **out,
			char **err);

/*
 * @dir is a real directory of this user's that nobody else may write
 * into: the agent is root, and a folder someone else made first in a
 * shared place would let them swap what it reads or installs for their
 * own. 0, or -errno and *@err naming it as @what ("artifact folder ",
 * or "").
 */
int agent_file__check_private(const char *verb, const char *what,
			      const char *dir, char **err);

/*
 * rm -rf @path, following nothing (a symlink inside is removed, never
 * what it points to); a missing one is fine. The entries removed, the
 * top one included, in *@entries when not NULL.
 */
int agent_file__remove_tree(const char *path, long *entries);

#endif /* IOMMU_BENCH_AGENT_FILE_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Making a struct agent_conn (bench/host/host.h): around descriptors a
 * transport already has, or by starting an agent command itself with
 * pipes on its stdin and stdout (local, netns, ssh all fit).
 */
#ifndef IOMMU_BENCH_AGENT_CONN_H
#define IOMMU_BENCH_AGENT_CONN_H

#include <sys/types.h>

#include "bench/host/host.h"

/* Around descriptors of ours (a socket): takes @to_fd and @from_fd. */
struct agent_conn *agent_conn__new(int to_fd, int from_fd, const char *host);
/*
 * Around an agent started with SPAWN_PIPE_IN | SPAWN_PIPE_OUT: takes
 * the process and its pipes (*@sp is left empty).
 */
struct agent_conn *agent_conn__adopt(struct spawn *sp, const char *host);
/*
 * Start @argv (argv[0] looked up in $PATH; "/proc/self/exe" works) in
 * /run/netns/@netns when non-NULL, its stdin and stdout our pipes, its
 * stderr ours. 0 or a negative errno (an exec failure is reported here).
 */
int agent_conn__spawn(const char *const *argv, const char *netns,
		      const char *host, struct agent_conn **out);

#endif /* IOMMU_BENCH_AGENT_CONN_H */

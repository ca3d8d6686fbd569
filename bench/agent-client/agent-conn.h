/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The controller's end of an agent: a struct agent_conn speaks
 * bench/agent/agent-proto.h to it. Made around descriptors a transport
 * already has, or by starting an agent command itself with pipes on its
 * stdin and stdout (local, netns, ssh all fit). The transports
 * (bench/host/) hand these out; nothing here knows a host's kind.
 */
#ifndef IOMMU_BENCH_AGENT_CONN_H
#define IOMMU_BENCH_AGENT_CONN_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "subprocess.h"

/* A running agent: the controller's end of its stdin and stdout. */
struct agent_conn {
	struct spawn proc; /* ssh, or the agent itself; pid 0: none */
	int to_fd;	   /* requests go here */
	int from_fd;	   /* responses come from here */
	char *buf;	   /* partial lines read ahead */
	size_t len, alloc;
	uint64_t next_id;
	char *host; /* for messages */
	/*
	 * The last call got no answer at all (it timed out, or the
	 * connection broke), as opposed to an error the agent sent.
	 */
	bool unanswered;
};

/*
 * Send @verb with @args (a reference is taken) and wait up to
 * @timeout_ms for the answer. 0 and *result (a new reference), or a
 * negative errno with the agent's error text in @err (may be NULL).
 */
int agent_conn__call(struct agent_conn *c, const char *verb, json_t *args,
		     int timeout_ms, json_t **result, char **err);
/* bye, then wait for the process (killed after a grace period). */
void agent_conn__close(struct agent_conn *c);

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

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * An agent that dials in over TCP: a device in a LAVA lab that shares no
 * socket with this machine connects out to the address and port its job
 * names, and is trusted only once it has proven the job's secret
 * (src/chan-auth.h). From there on it is an agent_conn like any other.
 */
#ifndef IOMMU_BENCH_AGENT_LISTEN_H
#define IOMMU_BENCH_AGENT_LISTEN_H

#include <stddef.h>
#include <stdint.h>

#include "bench/agent-client/agent-conn.h"

/*
 * The bound on one connection's handshake: a client that connects and
 * says nothing holds the listener no longer than this.
 */
#define AGENT_LISTEN_HANDSHAKE_MS 5000

struct agent_listen;

/*
 * Listen on @addr (an IPv4 or IPv6 literal) and @port (0: an ephemeral
 * one, which agent_listen__port() says); the agents accepted are named
 * @host. 0 and *@out, or a negative errno and *@err.
 */
int agent_listen__open(const char *addr, uint16_t port, const char *host,
		       struct agent_listen **out, char **err);
uint16_t agent_listen__port(const struct agent_listen *l);

/*
 * Wait up to @timeout_ms for one agent to connect and prove @secret (and
 * at most AGENT_LISTEN_HANDSHAKE_MS more for the handshake of one that
 * came in): 0 and *@out (an agent_conn on the socket, named as
 * agent_listen__open() said), -EAGAIN when nothing came in time,
 * -EACCES for a connection that did not make it through the handshake
 * (refused and closed; *@err says from which address and why, e.g.
 * "refused an agent at 10.0.0.2:41234: wrong secret"; the caller may
 * wait again), -ECONNRESET for one that hung up before it proved or
 * disproved anything (the caller may wait again, and need not say it),
 * or another negative errno and *@err.
 */
int agent_listen__accept(struct agent_listen *l, const uint8_t *secret,
			 size_t len, int timeout_ms, struct agent_conn **out,
			 char **err);

void agent_listen__close(struct agent_listen *l);

#endif /* IOMMU_BENCH_AGENT_LISTEN_H */

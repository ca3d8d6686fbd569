/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The agent's end of a channel over TCP (`agent connect`): a device in a
 * LAVA lab that shares nothing with the controller dials out to the
 * address its job names, proves the job's secret (src/chan-auth.h) and
 * then serves the controller on that socket as `agent serve` does on
 * its stdin and stdout.
 */
#ifndef IOMMU_BENCH_AGENT_DIAL_H
#define IOMMU_BENCH_AGENT_DIAL_H

/* How often the agent tries again while the controller does not answer. */
#define AGENT_DIAL_RETRY_MS 1000
/* How often it says so, after the first time. */
#define AGENT_DIAL_SAY_MS 30000
/* One try's bound: a firewall that drops SYNs must not cost minutes. */
#define AGENT_DIAL_CONNECT_MS 5000
/*
 * The agent's bound on the handshake. Long, unlike the controller's: a
 * connection waits in the listener's backlog until the controller,
 * perhaps between two waits for its agent, takes it.
 */
#define AGENT_DIAL_HANDSHAKE_MS 60000

/*
 * Connect to the controller at @target ("a.b.c.d:PORT" or "[v6]:PORT"),
 * again every AGENT_DIAL_RETRY_MS while it does not answer, for at most
 * @give_up_s seconds (0: for ever). @say(@arg, words) hears of the wait:
 * its first failure, then every AGENT_DIAL_SAY_MS or when the reason
 * changes, and the connection that came after failures. The connected
 * socket (chan_sock__tune()d), or a negative errno and *@err: -EINVAL a
 * bad @target, -ETIMEDOUT given up.
 */
int agent_dial__connect(const char *target, int give_up_s,
			void (*say)(void *arg, const char *words), void *arg,
			char **err);

#endif /* IOMMU_BENCH_AGENT_DIAL_H */

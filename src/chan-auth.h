/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * An agent's channel over TCP: its handshake, its secret, its socket and
 * its address. The handshake opens the channel where a device
 * in a LAVA lab shares nothing with the controller and dials out to it:
 * each end proves that it holds the job's secret without sending it,
 * by a MAC over both ends' fresh nonces (HMAC-SHA-256), the controller
 * first, so that a party that is not the job's controller gets nothing
 * from the agent. Four lines, each at most CHAN_AUTH_LINE_MAX bytes:
 *
 *   agent:      IOMMU-BENCH-AGENT 1 <Na>
 *   controller: IOMMU-BENCH-CONTROLLER 1 <Nc> <HMAC(secret, "controller" Na Nc)>
 *   agent:      AUTH <HMAC(secret, "agent" Nc Na)>
 *   controller: OK | REFUSED <why>
 *
 * Nonces are 32 random bytes, nonces and MACs lower-case hex. An agent
 * that does not accept the controller's MAC hangs up without a word. The
 * lines are read a byte at a time, so that whatever follows the
 * handshake (the agent's JSON lines) stays in the socket for its reader.
 *
 * The handshake authenticates the two ends, not what follows: the channel
 * is neither encrypted nor protected against a man in the middle after
 * it. The words of a failure never hold the secret, a nonce or a MAC.
 */
#ifndef IOMMU_BENCH_CHAN_AUTH_H
#define IOMMU_BENCH_CHAN_AUTH_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#define CHAN_SECRET_SIZE 32
#define CHAN_AUTH_LINE_MAX 512
#define CHAN_AUTH_VERSION 1

/*
 * The agent's side, on a connected stream @fd to the controller at @peer
 * (its address, for the words), the whole handshake within @timeout_ms.
 * 0, or a negative errno and *@err: -EACCES the controller refused this
 * agent or did not prove the secret, -EPROTO a line that is not the
 * handshake's, -ETIMEDOUT, -ECONNRESET the peer hung up. @fd is the
 * caller's to close either way.
 */
int chan_auth__agent(int fd, const char *peer, const uint8_t *secret,
		     size_t len, int timeout_ms, char **err);

/*
 * The controller's side, for the agent at @peer; the same returns. An
 * agent that hangs up after the controller's proof did not accept it:
 * it holds another secret, -EACCES.
 */
int chan_auth__controller(int fd, const char *peer, const uint8_t *secret,
			  size_t len, int timeout_ms, char **err);

/* A new secret from getrandom(): 0 or a negative errno. */
int chan_secret__new(uint8_t out[CHAN_SECRET_SIZE]);

/*
 * The secret in the file at @path: exactly 64 hex digits, a newline
 * after them at most, in a regular file that neither group nor others
 * may read or write. 0, or a negative errno and *@err: -EPERM the mode,
 * -EINVAL the content (never quoted).
 */
int chan_secret__read(const char *path, uint8_t out[CHAN_SECRET_SIZE],
		      char **err);

/* @secret into @path as the reader wants it: mode 0600, whole or not at all. */
int chan_secret__write(const char *path, const uint8_t secret[CHAN_SECRET_SIZE],
		       char **err);

/*
 * The socket options both ends of an agent's TCP channel set: no Nagle
 * delay on request lines, and a peer that vanished without a word (a
 * device powered off, a controller's machine gone) noticed within about
 * a minute, idle or in the middle of a write. 0 or a negative errno.
 */
int chan_sock__tune(int fd);

/* Room for "[v6]:PORT" and its NUL. */
#define CHAN_ADDR_NAME_MAX (INET6_ADDRSTRLEN + 8)

/* @addr, an IPv4 or IPv6 literal, and @port: 0 or -EINVAL. */
int chan_addr__make(const char *addr, uint16_t port,
		    struct sockaddr_storage *ss, socklen_t *len);
/*
 * "a.b.c.d:PORT" or "[v6]:PORT", PORT 1 to 65535 in decimal: 0, or
 * -EINVAL and *@err. Literals only: a job names its controller by
 * address, and a guest's resolver may not work that early.
 */
int chan_addr__parse(const char *s, struct sockaddr_storage *ss, socklen_t *len,
		     char **err);
/* @ss as "a.b.c.d:PORT" or "[v6]:PORT". */
void chan_addr__name(const struct sockaddr_storage *ss,
		     char out[CHAN_ADDR_NAME_MAX]);

#endif /* IOMMU_BENCH_CHAN_AUTH_H */

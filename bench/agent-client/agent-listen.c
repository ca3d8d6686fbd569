// SPDX-License-Identifier: GPL-2.0-only
/* The controller's listener for agents that dial in over TCP. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bench/agent-client/agent-conn.h"
#include "bench/agent-client/agent-listen.h"
#include "chan-auth.h"
#include "clock.h"
#include "errmsg.h"
#include "util.h"

struct agent_listen {
	int fd;
	uint16_t port;
	char name[CHAN_ADDR_NAME_MAX]; /* where it listens, for the words */
	char *host;
};

int agent_listen__open(const char *addr, uint16_t port, const char *host,
		       struct agent_listen **out, char **err)
{
	struct agent_listen *l;
	struct sockaddr_storage ss;
	socklen_t len;
	int fd, one = 1, ret;

	if (chan_addr__make(addr, port, &ss, &len))
		return errmsg__set(err, -EINVAL,
				   "cannot listen for agents on '%s': not an "
				   "IPv4 or IPv6 address",
				   addr);
	l = xcalloc(1, sizeof(*l));
	chan_addr__name(&ss, l->name);
	/* Non-blocking: a connection reset between poll() and accept()
	 * must not leave us asleep in accept(). */
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
		    0);
	if (fd < 0)
		goto fail;
	/* A controller started again at once gets its port back from
	 * the last one's connections in TIME_WAIT. */
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, (struct sockaddr *)&ss, len) || listen(fd, 16))
		goto fail;
	len = sizeof(ss);
	if (getsockname(fd, (struct sockaddr *)&ss, &len))
		goto fail;
	chan_addr__name(&ss, l->name);
	l->port = ntohs(ss.ss_family == AF_INET ?
				((struct sockaddr_in *)&ss)->sin_port :
				((struct sockaddr_in6 *)&ss)->sin6_port);
	l->fd = fd;
	l->host = xstrdup(host ? host : "agent");
	*out = l;
	return 0;
fail:
	ret = errmsg__set(err, -errno, "cannot listen for agents on %s: %s",
			  l->name, strerror(errno));
	if (fd >= 0)
		close(fd);
	free(l);
	return ret;
}

uint16_t agent_listen__port(const struct agent_listen *l)
{
	return l->port;
}

/* The next connection within @timeout_ms: its fd, -EAGAIN, or -errno. */
static int take_one(struct agent_listen *l, int timeout_ms,
		    struct sockaddr_storage *ss)
{
	int64_t end = mono_ms() + (timeout_ms > 0 ? timeout_ms : 0), left;
	struct pollfd p = { .fd = l->fd, .events = POLLIN };
	socklen_t len;
	int fd, n;

	for (;;) {
		left = end - mono_ms();
		n = poll(&p, 1,
			 left <= 0	? 0 :
			 left > INT_MAX ? INT_MAX :
					  (int)left);
		if (n < 0 && errno != EINTR)
			return -errno;
		if (n > 0) {
			len = sizeof(*ss);
			fd = accept4(l->fd, (struct sockaddr *)ss, &len,
				     SOCK_CLOEXEC);
			if (fd >= 0)
				return fd;
			/* Gone before we took it: wait for the next. */
			if (errno != EAGAIN && errno != ECONNABORTED &&
			    errno != EINTR)
				return -errno;
		}
		if (left <= 0)
			return -EAGAIN;
	}
}

int agent_listen__accept(struct agent_listen *l, const uint8_t *secret,
			 size_t len, int timeout_ms, struct agent_conn **out,
			 char **err)
{
	struct sockaddr_storage ss;
	char peer[CHAN_ADDR_NAME_MAX];
	int fd, ret;

	fd = take_one(l, timeout_ms, &ss);
	if (fd == -EAGAIN)
		return errmsg__set(err, fd,
				   "no agent connected to %s within %d ms",
				   l->name, timeout_ms);
	if (fd < 0)
		return errmsg__set(err, fd,
				   "cannot take an agent's connection on %s: "
				   "%s",
				   l->name, strerror(-fd));
	chan_addr__name(&ss, peer);
	ret = chan_sock__tune(fd);
	if (ret) {
		errmsg__set(err, ret,
			    "cannot set up the connection from %s: %s", peer,
			    strerror(-ret));
		goto refuse;
	}
	ret = chan_auth__controller(fd, peer, secret, len,
				    AGENT_LISTEN_HANDSHAKE_MS, err);
	if (ret)
		goto refuse;
	*out = agent_conn__new(fcntl(fd, F_DUPFD_CLOEXEC, 0), fd, l->host);
	return 0;
refuse:
	close(fd);
	/* A peer that hung up before it said anything of a secret is no
	 * agent refused (a NAT that gave up on a connection, or an agent
	 * that gave up waiting), just gone. */
	return ret == -ECONNRESET ? ret : -EACCES;
}

void agent_listen__close(struct agent_listen *l)
{
	if (!l)
		return;
	close(l->fd);
	free_all(l->host, l);
}

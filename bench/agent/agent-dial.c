// SPDX-License-Identifier: GPL-2.0-only
/* The agent dials its controller, patiently: the controller may come up later. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bench/agent/agent-dial.h"
#include "chan-auth.h"
#include "clock.h"
#include "errmsg.h"
#include "util.h"

/* One try, within AGENT_DIAL_CONNECT_MS: a blocking tuned socket, or -errno. */
static int try_connect(const struct sockaddr_storage *ss, socklen_t len)
{
	struct pollfd p = { .events = POLLOUT };
	socklen_t elen = sizeof(int);
	int fd, e = 0, n;

	fd = socket(ss->ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
		    0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (const struct sockaddr *)ss, len) &&
	    errno != EINPROGRESS)
		goto fail;
	p.fd = fd;
	do
		n = poll(&p, 1, AGENT_DIAL_CONNECT_MS);
	while (n < 0 && errno == EINTR);
	if (n <= 0) {
		e = n ? errno : ETIMEDOUT;
		goto fail;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &elen) || e)
		goto fail;
	/* The serve loop polls before it reads or writes; blocking is
	 * what it expects of its descriptors. */
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK))
		goto fail;
	e = -chan_sock__tune(fd);
	if (e)
		goto fail;
	return fd;
fail:
	e = e ? e : errno;
	close(fd);
	return -e;
}

static void sayf(void (*say)(void *arg, const char *words), void *arg,
		 const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void sayf(void (*say)(void *arg, const char *words), void *arg,
		 const char *fmt, ...)
{
	va_list ap;
	char *s;

	if (!say)
		return;
	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	say(arg, s);
	free(s);
}

int agent_dial__connect(const char *target, int give_up_s,
			void (*say)(void *arg, const char *words), void *arg,
			char **err)
{
	int64_t t0 = mono_ms(), said = 0, now, next;
	struct sockaddr_storage ss;
	int fd, ret, last = 0;
	socklen_t len;

	ret = chan_addr__parse(target, &ss, &len, err);
	if (ret)
		return ret;
	for (;;) {
		next = mono_ms() + AGENT_DIAL_RETRY_MS;
		fd = try_connect(&ss, len);
		now = mono_ms();
		if (fd >= 0) {
			if (last)
				sayf(say, arg,
				     "reached the controller at %s after %lld s",
				     target,
				     (long long)((now - t0 + 500) / 1000));
			return fd;
		}
		if (!last || fd != last || now - said >= AGENT_DIAL_SAY_MS) {
			sayf(say, arg,
			     "cannot reach the controller at %s: %s (trying "
			     "again every %d s)",
			     target, strerror(-fd), AGENT_DIAL_RETRY_MS / 1000);
			said = now;
		}
		last = fd;
		if (give_up_s > 0 && now - t0 >= (int64_t)give_up_s * 1000)
			return errmsg__set(err, -ETIMEDOUT,
					   "gave up on the controller at %s "
					   "after %d s: %s",
					   target, give_up_s, strerror(-fd));
		if (next > now)
			usleep((useconds_t)(next - now) * 1000);
	}
}

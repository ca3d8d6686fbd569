// SPDX-License-Identifier: GPL-2.0-only
/* The agent's channel: lines in and out, never asleep past a poll. */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/agent/agent-channel.h"
#include "clock.h"
#include "log.h"
#include "util.h"

void agent_channel__init(struct agent_channel *ch, int in_fd, int out_fd)
{
	memset(ch, 0, sizeof(*ch));
	ch->in_fd = in_fd;
	ch->out_fd = out_fd;
	ch->poll = poll;
}

static void lost_wakeup(struct agent_channel *ch, const char *what)
{
	/* The first says what happened; the rest would flood the console. */
	if (!ch->lost_wakeups++)
		pr_warn("agent: %s was only seen when polled again: the "
			"channel lost its wakeup (counted from now on)",
			what);
}

/*
 * Until @fd is ready for @events: 0, or a negative errno. A reader that
 * the other end hung up on reads what is left, then the end of input;
 * a writer gets -EPIPE (a virtio-serial port whose host went would
 * keep a write asleep until the host came back).
 */
static int wait_ready(struct agent_channel *ch, int fd, short events)
{
	struct pollfd p = { .fd = fd, .events = events };
	uint64_t t0;
	int n;

	for (;;) {
		t0 = mono_ms();
		n = ch->poll(&p, 1, AGENT_CHANNEL_POLL_MS);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			continue;
		if (!(p.revents & events) && events == POLLOUT)
			return -EPIPE;
		/* Ready, but only the timeout's own look found it. */
		if ((p.revents & events) &&
		    mono_ms() - t0 >= AGENT_CHANNEL_POLL_MS)
			lost_wakeup(ch, events & POLLIN ? "a request" :
							  "room for an answer");
		return 0;
	}
}

static void append(char **line, size_t *cap, size_t *len, const char *p,
		   size_t n)
{
	if (*len + n + 1 > *cap) {
		*cap = *len + n + 1 < 4096 ? 4096 : 2 * (*len + n + 1);
		*line = xrealloc(*line, *cap);
	}
	memcpy(*line + *len, p, n);
	*len += n;
}

int agent_channel__line(struct agent_channel *ch, char **line, size_t *cap,
			size_t *len, size_t max)
{
	bool too_long = false, got = false;
	const char *nl;
	size_t n;
	ssize_t r;
	int ret;

	*len = 0;
	for (;;) {
		if (ch->off < ch->len) {
			got = true;
			nl = memchr(ch->buf + ch->off, '\n', ch->len - ch->off);
			n = nl ? (size_t)(nl - (ch->buf + ch->off)) :
				 ch->len - ch->off;
			/* A broken or hostile controller must not make us
			 * allocate what it sends: past @max, only skip. */
			if (!too_long && *len + n > max)
				too_long = true;
			if (!too_long)
				append(line, cap, len, ch->buf + ch->off, n);
			ch->off += n + (nl ? 1 : 0);
			if (nl)
				break;
			continue;
		}
		if (ch->eof)
			break;
		ret = wait_ready(ch, ch->in_fd, POLLIN);
		if (ret)
			return ret;
		r = read(ch->in_fd, ch->buf, sizeof(ch->buf));
		if (r < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (r < 0)
			return -errno;
		ch->off = 0;
		ch->len = (size_t)r;
		ch->eof = !r;
	}
	if (!got)
		return -ENODATA;
	if (*cap)
		(*line)[too_long ? 0 : *len] = '\0';
	if (too_long)
		*len = 0;
	return too_long;
}

static int wait_writable(void *arg)
{
	struct agent_channel *ch = arg;

	return wait_ready(ch, ch->out_fd, POLLOUT);
}

int agent_channel__write(struct agent_channel *ch, const void *buf, size_t len)
{
	return write_all_wait(ch->out_fd, buf, len, wait_writable, ch);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * The agent's channel over pipes: lines in (split across reads, too
 * long, the last without its newline), answers out, a reader gone; and
 * a wakeup lost on purpose, as a virtio-serial port under a busy host
 * loses one: the request is read all the same, a period late, counted.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/agent/agent-channel.h"
#include "clock.h"
#include "log.h"
#include "tap.h"
#include "util.h"

static int lost;

/* The first wait sleeps its whole timeout, as if no wakeup came; then
 * only the timeout's own look, as the kernel's poll makes it. */
static int poll_losing_one(struct pollfd *fds, nfds_t n, int timeout_ms)
{
	if (!lost++) {
		usleep((useconds_t)timeout_ms * 1000);
		return poll(fds, n, 0);
	}
	return poll(fds, n, timeout_ms);
}

static void put(int fd, const char *s)
{
	if (write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		abort();
}

static void test_lines(void)
{
	struct agent_channel ch;
	char *line = NULL;
	size_t cap = 0, n;
	int p[2];

	if (pipe(p))
		abort();
	agent_channel__init(&ch, p[0], -1);
	put(p[1], "{\"id\":1}\n{\"id\"");
	is_int(agent_channel__line(&ch, &line, &cap, &n, 64), 0, "a line");
	is_str(line, "{\"id\":1}", "without its newline");
	put(p[1], ":2}\r\n");
	is_int(agent_channel__line(&ch, &line, &cap, &n, 64), 0,
	       "a line split across two reads");
	is_str(line, "{\"id\":2}\r", "whole (the caller strips the CR)");
	put(p[1], "0123456789012345678901234567890123456789\nnext\nlast");
	is_int(agent_channel__line(&ch, &line, &cap, &n, 16), 1,
	       "longer than the limit: 1");
	is_int(n, 0, "and nothing kept of it");
	is_int(agent_channel__line(&ch, &line, &cap, &n, 16), 0,
	       "the line after it is whole");
	is_str(line, "next", "and is the next one");
	close(p[1]);
	is_int(agent_channel__line(&ch, &line, &cap, &n, 16), 0,
	       "the last line, without a newline, at the end");
	is_str(line, "last", "whole");
	is_int(agent_channel__line(&ch, &line, &cap, &n, 16), -ENODATA,
	       "then the end of input");
	is_int((int)ch.lost_wakeups, 0, "pipes lose no wakeup");
	close(p[0]);
	free(line);
}

static void test_lost_wakeup(void)
{
	struct agent_channel ch;
	char *line = NULL;
	size_t cap = 0, n;
	uint64_t t0;
	int p[2];

	if (pipe(p))
		abort();
	agent_channel__init(&ch, p[0], -1);
	ch.poll = poll_losing_one;
	put(p[1], "{\"id\":3}\n");
	t0 = mono_ms();
	is_int(agent_channel__line(&ch, &line, &cap, &n, 64), 0,
	       "a request whose wakeup was lost is read all the same");
	is_str(line, "{\"id\":3}", "whole");
	ok(mono_ms() - t0 >= AGENT_CHANNEL_POLL_MS,
	   "one poll period late (%llu ms)",
	   (unsigned long long)(mono_ms() - t0));
	is_int((int)ch.lost_wakeups, 1, "and counted as a lost wakeup");
	close(p[0]);
	close(p[1]);
	free(line);
}

static void test_write(void)
{
	struct agent_channel ch;
	char buf[8] = "";
	int p[2];

	if (pipe(p))
		abort();
	agent_channel__init(&ch, -1, p[1]);
	is_int(agent_channel__write(&ch, "ok\n", 3), 0, "an answer out");
	ok(read(p[0], buf, sizeof(buf)) == 3 && !memcmp(buf, "ok\n", 3),
	   "as written");
	close(p[0]);
	is_int(agent_channel__write(&ch, "ok\n", 3), -EPIPE,
	       "to a reader gone: -EPIPE");
	close(p[1]);
}

int main(void)
{
	/* The lost wakeup's warning is the point, not output to check. */
	log_verbosity = -1;
	signal(SIGPIPE, SIG_IGN);
	test_lines();
	test_lost_wakeup();
	test_write();
	return tap_done();
}

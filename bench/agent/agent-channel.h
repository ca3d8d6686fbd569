/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The agent's end of its channel to the controller: request lines in,
 * answer lines out, over whatever the transport gave it (a virtio-serial
 * port in the testbed, pipes under ssh and in a namespace).
 *
 * It never sleeps in read() or write(). A virtio-serial port on a busy
 * host can lose the interrupt that says a request arrived, or that the
 * host took an answer: seen in the testbed, the controller's request in
 * the guest's receive queue and the agent asleep in read() until the
 * controller gave up on it. poll() looks at the port's queues itself
 * each time it is called, so the agent waits in poll() with a timeout
 * and looks again; a wait that only the timeout ended, with data
 * there, is counted as a wakeup the channel lost.
 */
#ifndef IOMMU_BENCH_AGENT_CHANNEL_H
#define IOMMU_BENCH_AGENT_CHANNEL_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>

/* How long the agent waits before it looks at its channel again. */
#define AGENT_CHANNEL_POLL_MS 1000

struct agent_channel {
	int in_fd, out_fd;
	char buf[64 * 1024]; /* read ahead of the line being taken */
	size_t off, len;
	bool eof;
	unsigned long lost_wakeups;
	/* poll(2); a test's stand-in loses a wakeup on purpose. */
	int (*poll)(struct pollfd *fds, nfds_t n, int timeout_ms);
};

void agent_channel__init(struct agent_channel *ch, int in_fd, int out_fd);

/*
 * The next line, without its newline, NUL-terminated in *@line (grown
 * as needed, at most @max bytes kept): 0; 1 when it was longer than
 * @max (read to its end and dropped); -ENODATA at the end of input
 * with nothing read; or another negative errno.
 */
int agent_channel__line(struct agent_channel *ch, char **line, size_t *cap,
			size_t *len, size_t max);

/* All of @buf out: 0, or a negative errno (-EPIPE: the other end went). */
int agent_channel__write(struct agent_channel *ch, const void *buf, size_t len);

#endif /* IOMMU_BENCH_AGENT_CHANNEL_H */

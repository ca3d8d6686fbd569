// SPDX-License-Identifier: GPL-2.0-only
/*
 * QEMU's machine protocol, as much of it as its two users need (a lab
 * VM's power switch, a silent testbed guest's keyboard): the greeting,
 * capabilities negotiated, one command and its answer. Events (RESET,
 * SHUTDOWN...) may come between; they are skipped.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "clock.h"
#include "errmsg.h"
#include "qmp.h"
#include "util.h"

#define LINE_MAX_BYTES (64 * 1024)

struct qmp {
	int fd;
	char buf[LINE_MAX_BYTES];
	size_t len;
	long long deadline;
};

/* The next JSON object QEMU sends, one per line. */
static int qmp_read(struct qmp *q, json_t **out)
{
	for (;;) {
		char *nl = memchr(q->buf, '\n', q->len);
		struct pollfd p = { .fd = q->fd, .events = POLLIN };
		long long left;
		ssize_t n;

		if (nl) {
			*nl = '\0';
			*out = json_loads(q->buf, 0, NULL);
			q->len -= (size_t)(nl + 1 - q->buf);
			memmove(q->buf, nl + 1, q->len);
			if (*out)
				return 0;
			continue;
		}
		if (q->len == sizeof(q->buf))
			return -EMSGSIZE;
		left = q->deadline - mono_ms();
		if (left <= 0)
			return -ETIMEDOUT;
		n = poll(&p, 1, (int)left);
		if (n < 0 && errno != EINTR)
			return -errno;
		if (n <= 0)
			continue;
		n = read(q->fd, q->buf + q->len, sizeof(q->buf) - q->len);
		if (n < 0 && errno != EINTR && errno != EAGAIN)
			return -errno;
		if (!n)
			return -ECONNRESET;
		if (n > 0)
			q->len += (size_t)n;
	}
}

/*
 * Send @cmd with @args (stolen; NULL: none); its "return", skipping
 * events, or its "error" as words.
 */
static int qmp_execute(struct qmp *q, const char *cmd, json_t *args,
		       json_t **ret, char **err)
{
	json_t *msg = json_pack("{s:s}", "execute", cmd), *o = NULL, *e;
	char *line;
	int r;

	if (args)
		json_object_set_new(msg, "arguments", args);
	line = json_dumps(msg, 0);
	json_decref(msg);
	r = write_all(q->fd, line, strlen(line));
	if (!r)
		r = write_all(q->fd, "\n", 1);
	free(line);
	while (!r) {
		r = qmp_read(q, &o);
		if (r)
			break;
		if ((e = json_object_get(o, "error"))) {
			r = errmsg__set(
				err, -EIO, "QEMU refused %s: %s", cmd,
				json_string_value(json_object_get(e, "desc")) ?:
					"no reason given");
			break;
		}
		if (json_object_get(o, "return")) {
			if (ret)
				*ret = json_incref(
					json_object_get(o, "return"));
			break;
		}
		json_decref(o);
		o = NULL;
	}
	json_decref(o);
	return r;
}

int qmp__run(const char *sock, const char *cmd, json_t *args, int timeout_ms,
	     json_t **ret, char **err)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct qmp *q;
	json_t *greeting = NULL;
	int r;

	if (ret)
		*ret = NULL;
	if (strlen(sock) >= sizeof(sa.sun_path)) {
		json_decref(args);
		return errmsg__set(err, -ENAMETOOLONG,
				   "QEMU's monitor socket path %s is too long",
				   sock);
	}
	/* Names only: a command is a word of QMP's, never user text. */
	if (strspn(cmd, "abcdefghijklmnopqrstuvwxyz_-") != strlen(cmd)) {
		json_decref(args);
		return errmsg__set(err, -EINVAL, "'%s' is not a QMP command",
				   cmd);
	}
	strcpy(sa.sun_path, sock);
	q = xcalloc(1, sizeof(*q));
	q->deadline = mono_ms() + timeout_ms;
	q->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (q->fd < 0 || connect(q->fd, (struct sockaddr *)&sa, sizeof(sa))) {
		r = errmsg__set(err, -errno,
				"cannot reach QEMU's monitor at %s: %s", sock,
				strerror(errno));
		json_decref(args);
		goto out;
	}
	r = qmp_read(q, &greeting);
	if (!r && !json_object_get(greeting, "QMP"))
		r = -EPROTO;
	if (!r)
		r = qmp_execute(q, "qmp_capabilities", NULL, NULL, err);
	if (!r)
		r = qmp_execute(q, cmd, args, ret, err);
	else
		json_decref(args);
	if (r && err && !*err)
		errmsg__set(err, r, "QEMU's monitor at %s: %s (%s)", sock,
			    strerror(-r), cmd);
out:
	json_decref(greeting);
	if (q->fd >= 0)
		close(q->fd);
	free(q);
	return r;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * The wait for a VM's agent on its socket, shared by the transports
 * whose machines are QEMU's: the testbed's and a LAVA worker's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "bench/agent-client/agent-conn.h"
#include "bench/agent-client/agent-sock.h"
#include "clock.h"
#include "errmsg.h"
#include "util.h"

#define HELLO_TRY_MS 2000

static int connect_sock(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int e = -errno;

		close(fd);
		return e;
	}
	return fd;
}

static bool is_old_boot(json_t *hello, const char *old_boot)
{
	const char *id = json_string_value(json_object_get(hello, "boot_id"));

	return old_boot && !strcmp(id ? id : "", old_boot);
}

struct sock_dial {
	const char *path, *host;
};

static int dial_sock(void *arg, struct agent_conn **out)
{
	struct sock_dial *d = arg;
	int fd = connect_sock(d->path);

	if (fd < 0)
		return fd;
	*out = agent_conn__new(fcntl(fd, F_DUPFD_CLOEXEC, 0), fd, d->host);
	return 0;
}

int agent_sock__wait(const char *path, const char *host, int timeout_ms,
		     const char *old_boot, const struct agent_sock_watch *w,
		     struct agent_conn **out, char **err)
{
	struct sock_dial sd = { path, host };
	const struct agent_dial d = { dial_sock, &sd };

	return agent__wait(&d, timeout_ms, old_boot, w, out, err);
}

int agent__wait(const struct agent_dial *d, int timeout_ms,
		const char *old_boot, const struct agent_sock_watch *w,
		struct agent_conn **out, char **err)
{
	long long end = mono_ms() + timeout_ms;
	struct agent_conn *c = NULL;
	char *why = NULL;
	int ret = -ETIMEDOUT;

	while (mono_ms() < end) {
		json_t *hello = NULL;
		char *gone = NULL;

		ret = w->gone(w->arg, &gone);
		if (ret) {
			free(why);
			why = gone;
			goto fail;
		}
		if (!c && d->dial(d->arg, &c)) {
			c = NULL;
			usleep(100 * 1000);
			continue;
		}
		free(why);
		why = NULL;
		ret = agent_conn__call(c, "hello", json_object(), HELLO_TRY_MS,
				       &hello, &why);
		if (!ret && is_old_boot(hello, old_boot)) {
			json_decref(hello);
			why = xasprintf("still the old boot %s", old_boot);
			agent_conn__close(c);
			c = NULL;
			usleep(500 * 1000);
			continue;
		}
		json_decref(hello);
		if (!ret) {
			free(why);
			*out = c;
			return 0;
		}
		if (ret != -ETIMEDOUT) {
			/* The guest's end went away: a new connection. */
			agent_conn__close(c);
			c = NULL;
			usleep(200 * 1000);
		}
	}
	ret = -ETIMEDOUT;
	{
		char *tail = w->console(w->arg);

		free(why);
		why = xasprintf("the guest's agent did not answer within "
				"%d ms; the console ends with:\n%s",
				timeout_ms, tail);
		free(tail);
	}
fail:
	if (c)
		agent_conn__close(c);
	return errmsg__move(err, ret, why);
}

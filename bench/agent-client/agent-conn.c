// SPDX-License-Identifier: GPL-2.0-only
/*
 * The controller's end of an agent: one request line out, response
 * lines in until the one with our id, every wait bounded by poll(). A
 * response to an earlier call that timed out arrives late and is
 * skipped by its id, so one slow verb cannot shift every later answer.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/agent-client/agent-conn.h"
#include "clock.h"
#include "errmsg.h"
#include "log.h"
#include "util.h"

#define CLOSE_GRACE_MS 3000
#define KILL_GRACE_MS 1000

struct agent_conn *agent_conn__new(int to_fd, int from_fd, const char *host)
{
	struct agent_conn *c = xcalloc(1, sizeof(*c));

	/* A dead agent must be an error from write(), not our death. */
	signal(SIGPIPE, SIG_IGN);
	c->to_fd = to_fd;
	c->from_fd = from_fd;
	c->next_id = 1;
	c->host = xstrdup(host ? host : "agent");
	return c;
}

struct agent_conn *agent_conn__adopt(struct spawn *sp, const char *host)
{
	struct agent_conn *c =
		agent_conn__new(sp->stdin_fd, sp->stdout_fd, host);

	sp->stdin_fd = sp->stdout_fd = -1;
	c->proc = *sp;
	memset(sp, 0, sizeof(*sp));
	return c;
}

int agent_conn__spawn(const char *const *argv, const char *netns,
		      const char *host, struct agent_conn **out)
{
	/*
	 * Its own process group: a Ctrl-C at the terminal is the
	 * controller's to handle, and it lets the current trial finish,
	 * which needs the agents alive. A controller killed by SIGKILL
	 * takes its agents (and their iperf3) along, rather than leaving
	 * them in a namespace a resumed run deletes. In a namespace, /sys
	 * is the namespace's own, as under `ip netns exec`.
	 */
	struct spawn_opts o = {
		.flags = SPAWN_PIPE_IN | SPAWN_PIPE_OUT | SPAWN_NEW_PGRP |
			 SPAWN_NETNS_SYSFS,
		.netns = netns,
		.pdeathsig = SIGTERM,
	};
	struct spawn sp;
	int err;

	if (netns && !name_is_safe(netns))
		return -EINVAL;
	err = spawn__argv(&sp, argv, &o);
	if (err) {
		spawn__release(&sp);
		return err;
	}
	*out = agent_conn__adopt(&sp, host);
	return 0;
}

static int send_request(struct agent_conn *c, uint64_t id, const char *verb,
			json_t *args, char **err)
{
	json_t *req = json_pack("{s:I, s:s, s:O}", "id", (json_int_t)id, "verb",
				verb, "args", args ? args : json_object());
	char *s, *line;
	int ret;

	if (!args)
		json_decref(json_object_get(req, "args"));
	s = json_dumps(req, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(req);
	if (!s)
		return -ENOMEM;
	line = xasprintf("%s\n", s);
	free(s);
	ret = write_all(c->to_fd, line, strlen(line));
	free(line);
	if (ret < 0 && err)
		errmsg__set(err, 0, "cannot send %s to the agent on %s: %s",
			    verb, c->host, strerror(-ret));
	return ret;
}

/* The next complete line, as a new string; NULL until there is one. */
static char *take_line(struct agent_conn *c)
{
	char *nl = c->len ? memchr(c->buf, '\n', c->len) : NULL;
	char *line;
	size_t n;

	if (!nl)
		return NULL;
	n = (size_t)(nl - c->buf);
	line = xstrndup(c->buf, n);
	memmove(c->buf, nl + 1, c->len - n - 1);
	c->len -= n + 1;
	return line;
}

static int read_more(struct agent_conn *c, long long deadline)
{
	struct pollfd p = { .fd = c->from_fd, .events = POLLIN };
	long long left = deadline - mono_ms();
	ssize_t n;
	int r;

	if (left <= 0)
		return -ETIMEDOUT;
	r = poll(&p, 1, left > 0x7fffffff ? 0x7fffffff : (int)left);
	if (r < 0)
		return errno == EINTR ? 0 : -errno;
	if (!r)
		return -ETIMEDOUT;
	ALLOC_GROW(c->buf, c->len + 4096, c->alloc);
	n = read(c->from_fd, c->buf + c->len, 4096);
	if (n < 0)
		return errno == EINTR || errno == EAGAIN ? 0 : -errno;
	if (!n)
		return -EPIPE;
	c->len += (size_t)n;
	return 0;
}

/* 1: the answer to @id (consumed into result/err), 0: another line. */
static int match(struct agent_conn *c, const char *line, uint64_t id,
		 json_t **result, char **err, int *ret)
{
	json_error_t jerr;
	json_t *o = json_loads(line, 0, &jerr), *idj;

	if (!json_is_object(o)) {
		json_decref(o);
		*ret = -EPROTO;
		errmsg__set(err, 0,
			    "the agent on %s sent a line that is "
			    "not a JSON object: '%.80s'",
			    c->host, line);
		return 1;
	}
	idj = json_object_get(o, "id");
	/* Late answers to calls that timed out, and errors on no id. */
	if (!json_is_integer(idj) || (uint64_t)json_integer_value(idj) != id) {
		if (!json_is_integer(idj))
			pr_warn("agent on %s: %s", c->host,
				json_string_value(json_object_get(o, "error")) ?:
					"answer without id");
		json_decref(o);
		return 0;
	}
	if (json_is_true(json_object_get(o, "ok"))) {
		*ret = 0;
		if (result) {
			/* An absent result is {}: a new object, not a
			 * second reference to one. */
			*result = json_object_get(o, "result");
			*result = *result ? json_incref(*result) :
					    json_object();
		}
	} else {
		json_int_t e = json_integer_value(json_object_get(o, "errno"));
		const char *msg =
			json_string_value(json_object_get(o, "error"));

		/* Only what an errno can be: a huge one would wrap to 0, a
		 * success, or overflow when negated. 4095 is MAX_ERRNO. */
		*ret = e > 0 && e <= 4095 ? -(int)e : -EIO;
		errmsg__set(err, 0, "%s",
			    msg && *msg ? msg : "failed, without a reason");
	}
	json_decref(o);
	return 1;
}

int agent_conn__call(struct agent_conn *c, const char *verb, json_t *args,
		     int timeout_ms, json_t **result, char **err)
{
	long long deadline = mono_ms() + (timeout_ms < 0 ? 0 : timeout_ms);
	uint64_t id = c->next_id++;
	char *line;
	int ret;

	if (result)
		*result = NULL;
	errmsg__reset(err);
	c->unanswered = true;
	ret = send_request(c, id, verb, args, err);
	if (ret < 0)
		return ret;
	for (;;) {
		while ((line = take_line(c))) {
			int done = match(c, line, id, result, err, &ret);

			free(line);
			if (done) {
				c->unanswered = false;
				return ret;
			}
		}
		ret = read_more(c, deadline);
		if (ret == -ETIMEDOUT)
			return errmsg__set(err, ret,
					   "the agent on %s did not "
					   "answer %s within %d ms",
					   c->host, verb, timeout_ms);
		if (ret < 0)
			return errmsg__set(
				err, ret,
				"the agent on %s went away during %s "
				"(%s)",
				c->host, verb,
				ret == -EPIPE ? "end of its output" :
						strerror(-ret));
	}
}

void agent_conn__close(struct agent_conn *c)
{
	if (!c)
		return;
	if (c->to_fd >= 0) {
		agent_conn__call(c, "bye", NULL, 2000, NULL, NULL);
		close(c->to_fd);
	}
	/* Closing its stdin is EOF: a healthy agent exits by itself. */
	if (c->proc.pid && spawn__wait(&c->proc, CLOSE_GRACE_MS)) {
		pr_warn("agent on %s did not exit; killing PID %d", c->host,
			(int)c->proc.pid);
		spawn__stop(&c->proc, SIGTERM, KILL_GRACE_MS);
	}
	spawn__release(&c->proc);
	if (c->from_fd >= 0)
		close(c->from_fd);
	free_all(c->buf, c->host, c);
}

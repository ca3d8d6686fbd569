// SPDX-License-Identifier: GPL-2.0-only
/*
 * `agent serve`: one JSON request per line in, one response per line
 * out, in order. A bad line is answered with an error and the loop goes
 * on: one malformed request must not cost a run its host.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/agent/agent-channel.h"
#include "bench/agent/agent-proto.h"
#include "bench/agent/agent.h"
#include "errmsg.h"
#include "json-util.h"
#include "log.h"
#include "suggest.h"
#include "util.h"

const struct agent_verb agent_verbs[] = {
	{ "hello", agent_verb__hello },
	{ "facts", agent_verb__facts },
	{ "policy", agent_verb__policy },
	{ "mode.sysfs", agent_verb__mode_sysfs },
	{ "reboot.prepare", agent_verb__reboot_prepare },
	{ "reboot.now", agent_verb__reboot_now },
	{ "collect.start", agent_verb__collect_start },
	{ "collect.stop", agent_verb__collect_stop },
	{ "file.read", agent_verb__file_read },
	{ "file.remove", agent_verb__file_remove },
	{ "kernel.stage", agent_verb__kernel_stage },
	{ "kernel.install", agent_verb__kernel_install },
	{ "kernel.find", agent_verb__kernel_find },
	{ "kernel.pkg_check", agent_verb__kernel_pkg_check },
	{ "kernel.pkg_install", agent_verb__kernel_pkg_install },
	{ "kernel.pkg_remove", agent_verb__kernel_pkg_remove },
	{ "iperf3.server", agent_verb__iperf3_server },
	{ "iperf3.wait", agent_verb__iperf3_wait },
	{ "iperf3.client", agent_verb__iperf3_client },
	{ "fio.run", agent_verb__fio_run },
	{ "dma_map.check", agent_verb__dma_map_check },
	{ "dma_map.run", agent_verb__dma_map_run },
	{ "bye", agent_verb__bye },
	{ NULL, NULL },
};

const struct agent_verb *agent_verb__find(const char *name)
{
	return TABLE_FIND(agent_verbs, ARRAY_SIZE(agent_verbs), name, name);
}

static json_t *error_reply(json_int_t id, int ret, const char *msg)
{
	/*
	 * @msg may quote the request, cut anywhere, and a request need not
	 * be UTF-8: json_pack() refuses such a string and would leave no
	 * answer at all.
	 */
	return json_pack("{s:o, s:b, s:o, s:i}", "id",
			 id < 0 ? json_null() : json_integer(id), "ok", 0,
			 "error", json_string_or_null(msg), "errno", -ret);
}

static int unknown_verb(const char *verb, char **err)
{
	const char *near =
		SUGGEST_BEST(verb, agent_verbs, ARRAY_SIZE(agent_verbs), name);

	if (near)
		return errmsg__set(err, -ENOSYS,
				   "unknown verb '%s'; did you mean '%s'?",
				   verb, near);
	return errmsg__set(err, -ENOSYS, "unknown verb '%s' (protocol %d)",
			   verb, AGENT_PROTOCOL);
}

json_t *agent__dispatch(struct agent *a, json_int_t id, const char *verb,
			json_t *args)
{
	const struct agent_verb *v = agent_verb__find(verb);
	json_t *result = NULL, *o;
	char *err = NULL;
	int ret;

	if (!v)
		ret = unknown_verb(verb, &err);
	else
		ret = v->fn(a, args, &result, &err);
	if (ret < 0) {
		o = error_reply(id, ret, err ? err : strerror(-ret));
		pr_debug("agent: %s: %s", verb, err ? err : strerror(-ret));
		free(err);
		json_decref(result);
		return o;
	}
	free(err);
	o = json_pack("{s:I, s:b, s:o}", "id", id, "ok", 1, "result",
		      result ? result : json_object());
	return o;
}

int agent_args__bool(json_t *args, const char *verb, const char *key, bool *out,
		     char **err)
{
	json_t *v = json_object_get(args, key);

	if (!v) {
		*out = false;
		return 0;
	}
	if (!json_is_boolean(v))
		return errmsg__set(err, -EINVAL,
				   "%s: \"%s\" must be true or false", verb,
				   key);
	*out = json_is_true(v);
	return 0;
}

json_t *agent__parse_request(const char *line, json_t **req, json_int_t *id,
			     const char **verb, json_t **args)
{
	json_error_t jerr;
	json_t *idj, *o;
	char *msg;

	*id = -1;
	*req = json_loads(line, JSON_REJECT_DUPLICATES, &jerr);
	if (!*req || !json_is_object(*req)) {
		msg = xasprintf("request is not a JSON object: %s",
				*req ? "another JSON value" : jerr.text);
		json_decref(*req);
		*req = NULL;
		o = error_reply(-1, -EINVAL, msg);
		free(msg);
		return o;
	}
	idj = json_object_get(*req, "id");
	if (json_is_integer(idj))
		*id = json_integer_value(idj);
	*verb = json_string_value(json_object_get(*req, "verb"));
	*args = json_object_get(*req, "args");
	if (!json_is_integer(idj) || *id < 0 || !*verb ||
	    (*args && !json_is_object(*args) && !json_is_null(*args))) {
		o = error_reply(*id, -EINVAL,
				"request needs \"id\" (an integer >= 0), "
				"\"verb\" (a string) and \"args\" (an object)");
		json_decref(*req);
		*req = NULL;
		return o;
	}
	if (!json_is_object(*args))
		*args = NULL;
	json_incref(*args);
	if (!*args)
		*args = json_object();
	return NULL;
}

json_t *agent__handle_line(struct agent *a, const char *line)
{
	json_t *req, *args, *o;
	const char *verb;
	json_int_t id;

	o = agent__parse_request(line, &req, &id, &verb, &args);
	if (o)
		return o;
	o = agent__dispatch(a, id, verb, args);
	json_decref(args);
	json_decref(req);
	return o;
}

static int reply(struct agent_channel *ch, json_t *o)
{
	char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	char *line;
	int ret;

	if (!s)
		return -ENOMEM;
	line = xasprintf("%s\n", s);
	ret = agent_channel__write(ch, line, strlen(line));
	free(line);
	free(s);
	return ret;
}

/* Before the first request: nobody asked, so the log is told. */
static void restore_lent(void)
{
	char *done = NULL, *err = NULL;

	if (agent_dma_map__restore(&done, &err))
		pr_err("agent: %s", err);
	else if (done)
		pr_warn("agent: %s", done);
	free(done);
	free(err);
}

int agent__serve(struct agent *a, int in_fd, int out_fd)
{
	struct agent_channel *ch = xmalloc(sizeof(*ch));
	char *line = NULL;
	size_t cap = 0, n;
	int ret = 0, r;

	agent_channel__init(ch, in_fd, out_fd);
	restore_lent();
	r = agent_keys__hold(a);
	if (r < 0)
		pr_warn("agent: cannot hold perf's static keys (%s): a "
			"collector's first event will patch the scheduler",
			strerror(-r));
	while (!a->quit) {
		json_t *o;

		r = agent_channel__line(ch, &line, &cap, &n, AGENT_MAX_LINE);
		if (r == -ENODATA)
			break;
		if (r < 0) {
			pr_err("agent: cannot read a request: %s",
			       strerror(-r));
			ret = r;
			break;
		}
		if (r) {
			o = error_reply(-1, -E2BIG,
					"request line longer than 16 MiB "
					"(AGENT_MAX_LINE): refused");
			goto answer;
		}
		while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = '\0';
		if (!n)
			continue;
		o = agent__handle_line(a, line);
answer:
		ret = reply(ch, o);
		json_decref(o);
		if (ret < 0) {
			pr_err("agent: cannot answer: %s", strerror(-ret));
			break;
		}
		if (a->after_reply)
			agent__run_after_reply(a);
	}
	if (ch->lost_wakeups)
		pr_warn("agent: the channel lost %lu wakeups; each was found "
			"within %d ms all the same",
			ch->lost_wakeups, AGENT_CHANNEL_POLL_MS);
	free(line);
	free(ch);
	return ret;
}

void agent__release(struct agent *a)
{
	char **p;

	agent_collect__release(a);
	agent_iperf3__release(a);
	agent_keys__release(a);
	for (p = a->after_reply; p && *p; p++)
		free(*p);
	free(a->after_reply);
	a->after_reply = NULL;
}

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A stand-in agent for hosts whose reboot cannot happen here (a lab
 * machine's): a forked child speaking the real JSON-lines protocol, its
 * answers from the test's own function, so that the controller's plan,
 * store and trial loop run for real behind host_ops. An answer of NULL
 * is a failed request ("fake: no traffic": the trial got that far).
 */
#ifndef IOMMU_BENCH_TESTS_FAKE_AGENT_H
#define IOMMU_BENCH_TESTS_FAKE_AGENT_H

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/agent/agent-proto.h"
#include "bench/agent-client/agent-conn.h"
#include "bench/host/host.h"

typedef json_t *fake_agent_answer_fn(const char *host, const char *verb,
				     json_t *args);

static inline void fake_agent__serve(const char *host,
				     fake_agent_answer_fn *answer)
{
	char *line = NULL;
	size_t cap = 0;

	while (getline(&line, &cap, stdin) > 0) {
		json_t *req = json_loads(line, 0, NULL), *res, *out;
		const char *verb;
		char *s;

		if (!req)
			break;
		verb = json_string_value(json_object_get(req, "verb"));
		res = answer(host, verb ? verb : "",
			     json_object_get(req, "args"));
		if (res)
			out = json_pack("{s:O, s:b, s:o}", "id",
					json_object_get(req, "id"), "ok", 1,
					"result", res);
		else
			out = json_pack("{s:O, s:b, s:s, s:i}", "id",
					json_object_get(req, "id"), "ok", 0,
					"error", "fake: no traffic", "errno",
					EIO);
		s = json_dumps(out, JSON_COMPACT);
		printf("%s\n", s);
		fflush(stdout);
		free(s);
		json_decref(out);
		if (verb && !strcmp(verb, "bye")) {
			json_decref(req);
			break;
		}
		json_decref(req);
	}
	free(line);
}

struct fake_agent {
	const char *host;
	fake_agent_answer_fn *answer;
};

static inline int fake_agent__main(void *arg)
{
	const struct fake_agent *f = arg;

	fake_agent__serve(f->host, f->answer);
	return 0;
}

/* host_ops.agent for a fake host: its agent, answering with @answer. */
static inline int fake_agent__spawn(struct host *h,
				    fake_agent_answer_fn *answer,
				    struct agent_conn **out)
{
	const struct spawn_opts o = { .flags = SPAWN_PIPE_IN | SPAWN_PIPE_OUT };
	struct fake_agent f = { h->m->name, answer };
	struct spawn sp;
	int err;

	err = spawn__fn(&sp, fake_agent__main, &f, "fake agent", &o);
	if (err) {
		spawn__release(&sp);
		return err;
	}
	*out = agent_conn__adopt(&sp, h->m->name);
	return 0;
}

/*
 * What any fake host answers: its facts, a lazy policy, and an iperf3
 * client that fails ("fake: no traffic", proof that the trial was
 * tried); {} to anything else. hello is the test's own.
 */
static inline json_t *fake_agent__answer(const char *host, const char *verb)
{
	if (!strcmp(verb, "facts"))
		return json_pack("{s:{s:s}, s:{s:s}}", "identity", "key", host,
				 "kernel", "cmdline", "ro");
	if (!strcmp(verb, "policy"))
		return json_pack("{s:s}", "mode", "lazy");
	if (!strcmp(verb, "iperf3.client"))
		return NULL;
	return json_object();
}

/*
 * host_ops for fake hosts: open and close have nothing to do, the agent
 * answers with the test's fake_answer(); wait_boot is the test's.
 */
static json_t *fake_answer(const char *host, const char *verb, json_t *args);

static inline int fake_host__open(struct host *h, char **err)
{
	(void)h;
	(void)err;
	return 0;
}

static inline int fake_host__agent(struct host *h, struct agent_conn **out,
				   char **err)
{
	(void)err;
	return fake_agent__spawn(h, fake_answer, out);
}

static inline void fake_host__close(struct host *h)
{
	(void)h;
}

/* host_ops.wait_boot of a host whose new boot is there at once. */
static inline int fake_host__booted(struct host *h, const char *old,
				    uint64_t tmo, char **err)
{
	(void)h;
	(void)old;
	(void)tmo;
	(void)err;
	return 0;
}

#define FAKE_HOST_OPS(wait_boot_fn)                                     \
	{                                                               \
		.name = "fake", .open = fake_host__open,                \
		.agent = fake_host__agent, .wait_boot = (wait_boot_fn), \
		.close = fake_host__close,                              \
	}

#endif /* IOMMU_BENCH_TESTS_FAKE_AGENT_H */

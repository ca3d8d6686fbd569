// SPDX-License-Identifier: GPL-2.0-only
/*
 * A real `iommu-bench agent serve` in a child, spoken to through
 * agent_conn: identity verbs, procstat collected between two calls, an
 * iperf3 pair on loopback, bad requests answered while the agent keeps
 * serving, and EOF ending it with status 0.
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent-test.h"
#include "bench/agent/agent-proto.h"
#include "bench/agent-client/agent-conn.h"
#include "errmsg.h"
#include "log.h"
#include "sha256.h"
#include "tap.h"
#include "util.h"

static char bin[PATH_MAX];

/*
 * Per process, far from 5201: a fixed port collides with a concurrent
 * run of this test (or of test-iperf3) and fails it for no fault here.
 */
#define PORT (30000 + getpid() % 10000)

static struct agent_conn *start(void)
{
	const char *argv[] = { bin, "agent", "serve", NULL };
	struct agent_conn *c = NULL;

	if (agent_conn__spawn(argv, NULL, "test", &c) < 0)
		return NULL;
	return c;
}

/* @verb without arguments, which must answer: its result. */
static json_t *answer(struct agent_conn *c, const char *verb, int timeout_ms)
{
	json_t *r = NULL;
	char *err = NULL;

	is_int(agent_conn__call(c, verb, NULL, timeout_ms, &r, &err), 0,
	       "%s answers", verb);
	free(err);
	return r;
}

static void test_hello(struct agent_conn *c)
{
	char sha[SHA256_HEX_SIZE];
	json_t *r;

	r = answer(c, "hello", 5000);
	is_int(json_integer_value(json_object_get(r, "protocol")),
	       AGENT_PROTOCOL, "hello: protocol");
	sha256__file(bin, sha, NULL);
	is_str(json_string_value(json_object_get(r, "exe_sha256")), sha,
	       "hello: exe_sha256 is the binary's sha256");
	ok(json_string_length(json_object_get(r, "boot_id")) == 36,
	   "hello: boot_id is a UUID");
	json_decref(r);

	r = answer(c, "facts", 20000);
	ok(json_is_object(json_object_get(r, "dma_policy")),
	   "facts: has dma_policy");
	json_decref(r);

	r = answer(c, "policy", 5000);
	ok(json_string_value(json_object_get(r, "mode")) &&
		   json_is_array(json_object_get(r, "evidence")),
	   "policy: mode and evidence");
	json_decref(r);
}

static void test_collect(struct agent_conn *c)
{
	json_t *args = json_pack("{s:{s:n}}", "collectors", "procstat");
	json_t *r = NULL, *ps;
	char *err = NULL;

	is_int(agent_conn__call(c, "collect.start", args, 10000, &r, &err), 0,
	       "collect.start procstat");
	json_decref(r);
	errmsg__clear(&err);
	is_int(agent_conn__call(c, "collect.start", args, 10000, &r, &err),
	       -EBUSY, "a second collect.start is refused");
	has_str(err, "already running", "... saying why");
	errmsg__clear(&err);
	usleep(300 * 1000);
	is_int(agent_conn__call(c, "collect.stop", NULL, 10000, &r, &err), 0,
	       "collect.stop");
	ps = json_object_get(r, "procstat");
	ok(json_is_object(ps) &&
		   json_real_value(json_object_get(ps, "window_seconds")) > 0.1,
	   "collect.stop: procstat results over the window");
	json_decref(r);
	errmsg__clear(&err);
	json_decref(args);
}

static void test_iperf3(struct agent_conn *srv, struct agent_conn *cli)
{
	json_t *sargs = json_pack("{s:i}", "port", PORT);
	json_t *cargs = json_pack("{s:s, s:i, s:i, s:s}", "host", "127.0.0.1",
				  "port", PORT, "duration_seconds", 1,
				  "protocol", "tcp");
	json_t *r = NULL;
	char *err = NULL;
	double bps;

	is_int(agent_conn__call(srv, "iperf3.server", sargs, 10000, &r, &err),
	       0, "iperf3.server listens");
	ok(json_integer_value(json_array_get(json_object_get(r, "ports"), 0)) ==
		   PORT,
	   "iperf3.server: its port");
	json_decref(r);
	errmsg__clear(&err);
	is_int(agent_conn__call(cli, "iperf3.client", cargs, 30000, &r, &err),
	       0, "iperf3.client runs (%s)", err ? err : "ok");
	bps = json_real_value(json_object_get(r, "throughput_bps"));
	ok(bps > 0, "iperf3.client: throughput %.3g bit/s > 0", bps);
	json_decref(r);
	errmsg__clear(&err);
	is_int(agent_conn__call(srv, "iperf3.wait", NULL, 30000, &r, &err), 0,
	       "iperf3.wait returns the server's report");
	ok(json_array_size(json_object_get(r, "reports")) == 1,
	   "iperf3.wait: one report");
	json_decref(r);
	errmsg__clear(&err);
	json_decref(sargs);
	json_decref(cargs);
}

static void test_errors(struct agent_conn *c)
{
	json_t *r = NULL;
	char *err = NULL;
	const char *bad = "{not json\n";
	json_t *args;

	is_int(agent_conn__call(c, "helo", NULL, 5000, &r, &err), -ENOSYS,
	       "an unknown verb fails");
	has_str(err, "did you mean 'hello'", "... with a suggestion");
	errmsg__clear(&err);
	args = json_pack("{s:s, s:s}", "nic", "-rf", "type", "DMA");
	is_int(agent_conn__call(c, "mode.sysfs", args, 5000, &r, &err), -EINVAL,
	       "a bad nic name is refused");
	json_decref(args);
	has_str(err, "'-rf'", "... naming it");
	errmsg__clear(&err);
	ok(write(c->to_fd, bad, strlen(bad)) == (ssize_t)strlen(bad),
	   "a malformed line is sent");
	is_int(agent_conn__call(c, "hello", NULL, 5000, &r, &err), 0,
	       "the agent still serves after it");
	json_decref(r);
	errmsg__clear(&err);
}

/* One reply line straight from the agent (nothing is buffered ahead). */
static char *raw_reply(struct agent_conn *c, int timeout_ms)
{
	struct pollfd p = { .fd = c->from_fd, .events = POLLIN };
	char *line = NULL;
	size_t len = 0;
	char ch;

	while (poll(&p, 1, timeout_ms) > 0 && read(c->from_fd, &ch, 1) == 1 &&
	       ch != '\n') {
		line = xrealloc(line, len + 2);
		line[len++] = ch;
		line[len] = '\0';
	}
	return line ? line : xstrdup("");
}

static bool send_all(int fd, const char *s, size_t n)
{
	while (n) {
		ssize_t w = write(fd, s, n);

		if (w <= 0)
			return false;
		s += w;
		n -= (size_t)w;
	}
	return true;
}

/*
 * Untrusted in size too: a line longer than AGENT_MAX_LINE, a value
 * nested deeper than any parser should follow, arguments of the wrong
 * type: each answered with an error, and the agent serves on.
 */
static void test_limits(struct agent_conn *c)
{
	size_t big = AGENT_MAX_LINE + (1u << 20), depth = 100000, i;
	char *s = xmalloc(big + 2), *r;
	json_t *res = NULL;
	char *err = NULL;
	pid_t pid;

	ok(c->len == 0, "nothing read ahead");
	memset(s, 'x', big);
	s[big] = '\n';
	/* The agent answers only once the line is read: write from aside. */
	pid = fork();
	if (!pid)
		_exit(send_all(c->to_fd, s, big + 1) ? 0 : 1);
	r = raw_reply(c, 60000);
	waitpid(pid, NULL, 0);
	has_str(r, "longer than 16 MiB", "a 17 MiB line is refused, unread");
	has_str(r, "\"ok\":false", "... as an error reply");
	free(r);

	for (i = 0; i < depth; i++)
		s[i] = '[';
	s[depth] = '\n';
	ok(send_all(c->to_fd, s, depth + 1), "a value 100000 deep is sent");
	r = raw_reply(c, 10000);
	has_str(r, "not a JSON object", "it is refused, not recursed into");
	free(r);

	ok(send_all(c->to_fd, "{\"id\":7,\"verb\":\"hello\",\"args\":[1]}\n",
		    strlen("{\"id\":7,\"verb\":\"hello\",\"args\":[1]}\n")),
	   "arguments of the wrong type are sent");
	r = raw_reply(c, 10000);
	has_str(r, "(an object)\",\"errno\":22",
		"they are refused, saying "
		"what args must be");
	free(r);

	is_int(agent_conn__call(c, "hello", NULL, 10000, &res, &err), 0,
	       "the agent still serves after all three");
	json_decref(res);
	free(err);
	free(s);
}

static void test_eof(struct agent_conn *c)
{
	close(c->to_fd);
	c->to_fd = -1;
	ok(!spawn__wait(&c->proc, 5000) && spawn__succeeded(&c->proc),
	   "EOF on stdin: the agent exits 0");
	agent_conn__close(c);
}

int main(void)
{
	struct agent_conn *a, *b;

	if (agent_test__find_bin(bin, sizeof(bin)) < 0)
		tap_skip_all("no iommu-bench binary (set IOMMU_BENCH)");
	a = start();
	b = start();
	if (!a || !b)
		tap_skip_all("cannot start the agent");
	test_hello(a);
	test_collect(a);
	test_iperf3(a, b);
	test_errors(a);
	test_limits(a);
	test_eof(a);
	agent_conn__close(b);
	return tap_done();
}

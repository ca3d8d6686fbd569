// SPDX-License-Identifier: GPL-2.0-only
/*
 * The controller's listener (bench/agent-client/agent-listen.h) with the
 * real agent on the other end: `iommu-bench agent connect` from the
 * binary under test dials 127.0.0.1, proves the secret or is refused,
 * waits for a controller that is not there yet, and gives up.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent-test.h"
#include "bench/agent-client/agent-listen.h"
#include "chan-auth.h"
#include "clock.h"
#include "errmsg.h"
#include "scratch-files.h"
#include "tap.h"
#include "util.h"

static char bin[4096], dir[] = "/tmp/iommu-bench-listen.XXXXXX";
static char *good_file, *bad_file, *err_file;
static uint8_t secret[CHAN_SECRET_SIZE];

/* `agent connect 127.0.0.1:@port` with @file, stderr into err_file. */
static pid_t agent(uint16_t port, const char *file, const char *give_up)
{
	char target[32];
	pid_t pid;
	int fd;

	snprintf(target, sizeof(target), "127.0.0.1:%u", port);
	pid = fork();
	if (!pid) {
		fd = open(err_file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		dup2(fd, STDERR_FILENO);
		if (give_up)
			execl(bin, bin, "agent", "connect", target,
			      "--secret-file", file, "--give-up", give_up,
			      (char *)NULL);
		else
			execl(bin, bin, "agent", "connect", target,
			      "--secret-file", file, (char *)NULL);
		_exit(127);
	}
	return pid;
}

/* @pid's exit status within @ms, or -1 (then it is killed). */
static int exit_within(pid_t pid, int ms)
{
	int64_t end = mono_ms() + ms;
	int st;

	while (mono_ms() < end) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) :
					       128 + WTERMSIG(st);
		usleep(20 * 1000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	return -1;
}

static char *agent_words(void)
{
	return scratch__text(err_file);
}

/* The agent's stderr holds @fmt, its %u the port: @what is checked. */
static void agent_said(const char *words, const char *fmt, uint16_t port,
		       const char *what)
{
	char *want = xasprintf(fmt, port);

	has_str(words, want, "%s", what);
	free(want);
}

static int count(const char *s, const char *what)
{
	int n = 0;

	for (; (s = strstr(s, what)); s++)
		n++;
	return n;
}

static void test_nothing(struct agent_listen *l)
{
	struct agent_conn *c = NULL;
	char *err = NULL;

	ok(agent_listen__port(l) > 0, "port 0: an ephemeral port (%u)",
	   agent_listen__port(l));
	is_int(agent_listen__accept(l, secret, sizeof(secret), 200, &c, &err),
	       -EAGAIN, "nobody within 200 ms: -EAGAIN");
	free(err);
}

static void test_hello(struct agent_listen *l)
{
	struct agent_conn *c = NULL;
	json_t *res = NULL;
	char *err = NULL;
	pid_t pid;
	int ret;

	pid = agent(agent_listen__port(l), good_file, NULL);
	ret = agent_listen__accept(l, secret, sizeof(secret), 10000, &c, &err);
	is_int(ret, 0, "the agent dials in and proves the secret");
	if (ret) {
		tap_diag("%s", err);
		exit_within(pid, 0);
		errmsg__clear(&err);
		return;
	}
	is_int(agent_conn__call(c, "hello", NULL, 10000, &res, &err), 0,
	       "hello is answered over the socket");
	ok(json_integer_value(json_object_get(res, "protocol")) >= 1,
	   "with the agent's protocol");
	is_str(c->host, "dut", "the connection bears the listener's host name");
	json_decref(res);
	agent_conn__close(c);
	is_int(exit_within(pid, 5000), 0,
	       "the controller hangs up: the agent exits 0");
	errmsg__clear(&err);
}

static void test_wrong_secret(struct agent_listen *l)
{
	struct agent_conn *c = NULL;
	char *err = NULL, *words;
	pid_t pid;

	pid = agent(agent_listen__port(l), bad_file, NULL);
	is_int(agent_listen__accept(l, secret, sizeof(secret), 10000, &c, &err),
	       -EACCES, "an agent with another secret: -EACCES");
	has_str(err,
		"refused an agent at 127.0.0.1:", "naming where it came from");
	has_str(err, ": wrong secret", "and why");
	is_int(exit_within(pid, 5000), 3, "the agent exits 3, no retry");
	words = agent_words();
	has_str(words, "did not prove the job's secret",
		"and says the controller did not prove the secret");
	free_all(err, words);
}

/* A client that says nothing is dropped after the bound; the next is served. */
static void test_silent(struct agent_listen *l)
{
	struct sockaddr_storage ss;
	struct agent_conn *c = NULL;
	char *err = NULL;
	socklen_t len;
	int64_t t0;
	pid_t pid;
	int fd;

	chan_addr__make("127.0.0.1", agent_listen__port(l), &ss, &len);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ok(!connect(fd, (struct sockaddr *)&ss, len),
	   "a silent client connects");
	pid = agent(agent_listen__port(l), good_file, NULL);
	t0 = mono_ms();
	is_int(agent_listen__accept(l, secret, sizeof(secret), 10000, &c, &err),
	       -EACCES, "it is refused");
	ok(mono_ms() - t0 < AGENT_LISTEN_HANDSHAKE_MS + 1500,
	   "after the handshake's bound (%lld ms)",
	   (long long)(mono_ms() - t0));
	has_str(err, "did not finish the handshake within 5000 ms",
		"saying so");
	close(fd);
	free(err);
	err = NULL;
	is_int(agent_listen__accept(l, secret, sizeof(secret), 10000, &c, &err),
	       0, "the agent behind it is served");
	if (c)
		agent_conn__close(c);
	is_int(exit_within(pid, 5000), 0, "and exits 0");
	free(err);
}

static uint16_t closed_port(void)
{
	struct agent_listen *l;
	char *err = NULL;
	uint16_t port;

	if (agent_listen__open("127.0.0.1", 0, "x", &l, &err))
		return 1;
	port = agent_listen__port(l);
	agent_listen__close(l);
	return port;
}

static void test_unreachable(void)
{
	uint16_t port = closed_port();
	char *words;
	pid_t pid;

	pid = agent(port, good_file, "2");
	ok(exit_within(pid, 10000) > 0,
	   "nobody listening, --give-up 2: it fails");
	words = agent_words();
	agent_said(words,
		   "iommu-bench agent: cannot reach the controller at "
		   "127.0.0.1:%u: Connection refused (trying again every 1 s)",
		   port, "saying it cannot reach the controller");
	is_int(count(words, "cannot reach"), 1, "once, not every second");
	has_str(words, "gave up on the controller", "then that it gave up");
	free(words);
}

static void test_late_controller(void)
{
	uint16_t port = closed_port();
	struct agent_conn *c = NULL;
	struct agent_listen *l;
	char *err = NULL, *words;
	pid_t pid;

	pid = agent(port, good_file, "20");
	usleep(1500 * 1000);
	if (agent_listen__open("127.0.0.1", port, "dut", &l, &err)) {
		tap_skip("the port was taken meanwhile");
		exit_within(pid, 0);
		errmsg__clear(&err);
		return;
	}
	is_int(agent_listen__accept(l, secret, sizeof(secret), 10000, &c, &err),
	       0, "a controller that comes up late gets its agent");
	if (c)
		agent_conn__close(c);
	is_int(exit_within(pid, 5000), 0, "which exits 0 when it hangs up");
	words = agent_words();
	agent_said(words,
		   "iommu-bench agent: reached the controller at 127.0.0.1:%u "
		   "after ",
		   port, "saying it reached the controller after a while");
	agent_listen__close(l);
	free_all(err, words);
}

static int write_secret(const char *path, const uint8_t *s)
{
	char *err = NULL;
	int ret = chan_secret__write(path, s, &err);

	free(err);
	return ret;
}

int main(void)
{
	uint8_t other[CHAN_SECRET_SIZE];
	struct agent_listen *l = NULL;
	char *err = NULL;

	if (agent_test__find_bin(bin, sizeof(bin)) < 0)
		tap_skip_all("no iommu-bench binary (set IOMMU_BENCH)");
	signal(SIGPIPE, SIG_IGN);
	if (!mkdtemp(dir))
		tap_skip_all("no scratch folder");
	good_file = xasprintf("%s/good", dir);
	bad_file = xasprintf("%s/bad", dir);
	err_file = xasprintf("%s/agent.err", dir);
	if (chan_secret__new(secret) || chan_secret__new(other) ||
	    write_secret(good_file, secret) || write_secret(bad_file, other))
		tap_skip_all("cannot make the secrets");
	is_int(agent_listen__open("127.0.0.1", 0, "dut", &l, &err), 0,
	       "listen on 127.0.0.1, port 0");
	if (!l)
		tap_skip_all(err);
	is_int(agent_listen__open("localhost", 0, "dut", &l, &err), -EINVAL,
	       "a name is not an address to listen on");
	test_nothing(l);
	test_hello(l);
	test_wrong_secret(l);
	test_silent(l);
	agent_listen__close(l);
	test_unreachable();
	test_late_controller();
	unlink(good_file);
	unlink(bad_file);
	unlink(err_file);
	rmdir(dir);
	free_all(good_file, bad_file, err_file, err);
	return tap_done();
}

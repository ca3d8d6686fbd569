// SPDX-License-Identifier: GPL-2.0-only
/*
 * The agent's TCP handshake (src/chan-auth.h) over socketpair(), the
 * other end in a child: the real other side, or a hand-made one that
 * breaks the protocol on purpose. Then the secret file and the address.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "chan-auth.h"
#include "clock.h"
#include "errmsg.h"
#include "sha256.h"
#include "tap.h"
#include "util.h"

#define T_MS 2000
#define AFTER "{\"id\":1,\"verb\":\"hello\"}\n"
#define BACK "{\"id\":1,\"ok\":true}\n"

/* What a child's end of the handshake came to. */
struct result {
	int ret;
	char err[512];
	char line[256]; /* what it read after the handshake */
};

static const uint8_t secret_a[CHAN_SECRET_SIZE] =
	"0123456789abcdef0123456789abcde";
static const uint8_t secret_b[CHAN_SECRET_SIZE] =
	"fedcba9876543210fedcba987654321";

/* Up to a newline, by read(): what is left in the socket after a handshake. */
static int read_rest(int fd, char *buf, size_t size)
{
	size_t n = 0;

	while (n + 1 < size && read(fd, buf + n, 1) == 1)
		if (buf[n++] == '\n')
			break;
	buf[n] = '\0';
	return (int)n;
}

static void put(int fd, const char *s)
{
	if (write(fd, s, strlen(s)) < 0)
		perror("write");
}

/* The child's part: one function, its end of the pair, its words. */
struct part {
	int (*fn)(int fd, const uint8_t *secret, struct result *r);
	const uint8_t *secret;
};

static int real_agent(int fd, const uint8_t *secret, struct result *r)
{
	char *err = NULL;
	int ret = chan_auth__agent(fd, "ctl:1", secret, CHAN_SECRET_SIZE, T_MS,
				   &err);

	if (err)
		snprintf(r->err, sizeof(r->err), "%s", err);
	free(err);
	if (!ret) {
		read_rest(fd, r->line, sizeof(r->line));
		put(fd, BACK);
	}
	return ret;
}

static int real_controller(int fd, const uint8_t *secret, struct result *r)
{
	char *err = NULL;
	int ret = chan_auth__controller(fd, "agt:2", secret, CHAN_SECRET_SIZE,
					T_MS, &err);

	if (err)
		snprintf(r->err, sizeof(r->err), "%s", err);
	free(err);
	return ret;
}

/* A line by hand: the fakes below read what the real ends send. */
static void fake_line(int fd, char *buf, size_t size)
{
	read_rest(fd, buf, size);
	buf[strcspn(buf, "\n")] = '\0';
}

static void mac_hex(const uint8_t *secret, const char *label, const uint8_t *n1,
		    const uint8_t *n2, char out[SHA256_HEX_SIZE])
{
	uint8_t m[SHA256_DIGEST_SIZE], buf[128];
	size_t l = strlen(label);

	memcpy(buf, label, l);
	memcpy(buf + l, n1, 32);
	memcpy(buf + l + 32, n2, 32);
	hmac_sha256(secret, CHAN_SECRET_SIZE, buf, l + 64, m);
	hex_encode(m, sizeof(m), out);
}

/*
 * A controller that proves the secret, then says what the test wants in
 * one write (so that what follows OK comes in the same segment).
 */
static const char *fake_final;
static int fake_controller(int fd, const uint8_t *secret, struct result *r)
{
	uint8_t na[32], nc[32] = { 7 };
	char line[600], mac[SHA256_HEX_SIZE], ncx[65], *s;

	fake_line(fd, line, sizeof(line));
	if (strncmp(line, "IOMMU-BENCH-AGENT 1 ", 20) ||
	    hex_decode(line + 20, 32, na))
		return -EPROTO;
	mac_hex(secret, "controller", na, nc, mac);
	hex_encode(nc, 32, ncx);
	s = xasprintf("IOMMU-BENCH-CONTROLLER 1 %s %s\n", ncx, mac);
	put(fd, s);
	free(s);
	fake_line(fd, r->line, sizeof(r->line));
	mac_hex(secret, "agent", nc, na, mac);
	r->ret = !strncmp(r->line, "AUTH ", 5) && !strcmp(r->line + 5, mac);
	put(fd, fake_final);
	return r->ret ? 0 : -EACCES;
}

/* An agent that greets, then sends @fake_final as its proof. */
static int fake_agent(int fd, const uint8_t *secret, struct result *r)
{
	char line[600];

	(void)secret;
	put(fd,
	    "IOMMU-BENCH-AGENT 1 "
	    "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff\n");
	fake_line(fd, line, sizeof(line));
	put(fd, fake_final);
	fake_line(fd, r->line, sizeof(r->line));
	return 0;
}

/* Sends @fake_final, then waits for the other end to hang up. */
static int say_then_wait(int fd, const uint8_t *secret, struct result *r)
{
	char c;

	(void)secret;
	(void)r;
	if (fake_final)
		put(fd, fake_final);
	while (read(fd, &c, 1) > 0)
		;
	return 0;
}

/* Start @p on one end of a socketpair: the other end, *@pid, *@res. */
static int start(const struct part *p, pid_t *pid, int *res)
{
	int sv[2], pr[2];

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) || pipe(pr))
		return -1;
	*pid = fork();
	if (!*pid) {
		struct result r = { 0 };

		close(sv[0]);
		close(pr[0]);
		r.ret = p->fn(sv[1], p->secret, &r);
		if (write(pr[1], &r, sizeof(r)) != sizeof(r))
			_exit(1);
		_exit(0);
	}
	close(sv[1]);
	close(pr[1]);
	*res = pr[0];
	return sv[0];
}

static void finish(int fd, pid_t pid, int res, struct result *r)
{
	int st;

	close(fd);
	memset(r, 0, sizeof(*r));
	if (read(res, r, sizeof(*r)) != sizeof(*r))
		r->ret = -9999;
	close(res);
	waitpid(pid, &st, 0);
}

/*
 * This end (the agent's side, or the controller's) with secret_a against
 * @p in a child: its return and *@err (new), the child's *@r.
 */
static int pair(bool agent, const struct part *p, int timeout_ms, char **err,
		struct result *r)
{
	int fd, res, ret;
	pid_t pid;

	fd = start(p, &pid, &res);
	*err = NULL;
	ret = agent ? chan_auth__agent(fd, "ctl:1", secret_a, CHAN_SECRET_SIZE,
				       timeout_ms, err) :
		      chan_auth__controller(fd, "agt:2", secret_a,
					    CHAN_SECRET_SIZE, timeout_ms, err);
	/* A child still reading learns that this end is done. */
	shutdown(fd, SHUT_RDWR);
	finish(fd, pid, res, r);
	return ret;
}

static bool holds_secret(const char *s)
{
	char hex[2 * CHAN_SECRET_SIZE + 1];

	hex_encode(secret_a, CHAN_SECRET_SIZE, hex);
	return s && (strstr(s, hex) || strstr(s, (const char *)secret_a));
}

static void test_right_secret(void)
{
	struct part p = { real_agent, secret_a };
	struct result r;
	char *err = NULL, back[256];
	int fd, res, ret;
	pid_t pid;

	fd = start(&p, &pid, &res);
	ret = chan_auth__controller(fd, "agt:2", secret_a, CHAN_SECRET_SIZE,
				    T_MS, &err);
	is_int(ret, 0, "the right secret: the controller accepts the agent");
	ok(!err, "and says nothing");
	put(fd, AFTER);
	read_rest(fd, back, sizeof(back));
	is_str(back, BACK, "a line the agent sends after it arrives intact");
	finish(fd, pid, res, &r);
	is_int(r.ret, 0, "the agent accepts the controller");
	is_str(r.line, AFTER, "and the line after the handshake is left whole");
	free(err);
}

static void test_wrong_secret(void)
{
	struct part p = { real_agent, secret_b };
	struct result r;
	char *err;

	is_int(pair(false, &p, T_MS, &err, &r), -EACCES,
	       "another secret: the controller refuses the agent");
	has_str(err, "refused an agent at agt:2: wrong secret", "saying so");
	ok(!holds_secret(err), "without the secret in its words");
	is_int(r.ret, -EACCES, "the agent refuses the controller first");
	is_str(r.err, "the controller at ctl:1 did not prove the job's secret",
	       "saying it did not prove the secret");
	free(err);

	p.fn = real_controller;
	is_int(pair(true, &p, T_MS, &err, &r), -EACCES,
	       "a controller with another secret is refused");
	is_str(err, "the controller at ctl:1 did not prove the job's secret",
	       "the agent says it did not prove the secret");
	ok(!holds_secret(err), "without the secret in its words");
	is_int(r.ret, -EACCES, "that controller hears nothing but a hang-up");
	free(err);
}

static void test_refused_by_controller(void)
{
	struct part p = { fake_controller, secret_a };
	struct result r;
	char *err;
	int fd, res;
	pid_t pid;

	/* A controller that proves itself, then refuses: the agent is told. */
	fake_final = "REFUSED wrong secret\n";
	is_int(pair(true, &p, T_MS, &err, &r), -EACCES,
	       "REFUSED from the controller: -EACCES");
	is_str(err, "the controller at ctl:1 refused this agent: wrong secret",
	       "with the controller's reason");
	is_int(r.ret, 0, "the agent's proof was right all the same");
	free(err);

	/* OK and the first request in one segment: the request stays. */
	fake_final = "OK\n" AFTER;
	fd = start(&p, &pid, &res);
	err = NULL;
	is_int(chan_auth__agent(fd, "ctl:1", secret_a, CHAN_SECRET_SIZE, T_MS,
				&err),
	       0, "OK with a request behind it in the same write");
	{
		char rest[256];

		read_rest(fd, rest, sizeof(rest));
		is_str(rest, AFTER, "the request is left in the socket");
	}
	finish(fd, pid, res, &r);
	free(err);
}

static void test_bad_proof(void)
{
	struct part p = { fake_agent, NULL };
	struct result r;
	char *err;

	fake_final = "AUTH 0000000000000000000000000000000000000000000000000000"
		     "000000000000\n";
	is_int(pair(false, &p, T_MS, &err, &r), -EACCES,
	       "an agent with a wrong proof: -EACCES");
	is_str(err, "refused an agent at agt:2: wrong secret", "wrong secret");
	is_str(r.line, "REFUSED wrong secret", "the agent is told REFUSED");
	free(err);

	fake_final = "AUTH xyz\n";
	is_int(pair(false, &p, T_MS, &err, &r), -EPROTO,
	       "a malformed proof: -EPROTO");
	is_str(r.line, "REFUSED malformed proof", "the agent is told why");
	free(err);
}

/* @first from the peer, then nothing: this end's return and words. */
static int against(bool agent, const char *first, int timeout_ms, char **err)
{
	struct part p = { say_then_wait, NULL };
	struct result r;

	fake_final = first;
	return pair(agent, &p, timeout_ms, err, &r);
}

static void test_garbage(void)
{
	char *err, big[700];
	int64_t t0;

	is_int(against(false, "GET / HTTP/1.1\r\n", T_MS, &err), -EPROTO,
	       "a first line that is not a greeting: -EPROTO");
	is_str(err,
	       "refused an agent at agt:2: not an iommu-bench agent: it said "
	       "'GET / HTTP/1.1?'",
	       "quoting it, unprintable bytes as '?'");
	errmsg__clear(&err);
	is_int(against(true, "SSH-2.0-OpenSSH_9.2\n", T_MS, &err), -EPROTO,
	       "the agent: a challenge that is not one is -EPROTO");
	has_str(err, "is not an iommu-bench controller", "saying so");
	errmsg__clear(&err);
	is_int(against(false,
		       "IOMMU-BENCH-AGENT 2 "
		       "00112233445566778899aabbccddeeff00112233445566778899aab"
		       "bccddeeff\n",
		       T_MS, &err),
	       -EPROTO, "another version of the handshake: -EPROTO");
	has_str(err, "speaks handshake version 2, this controller 1",
		"naming both versions");
	errmsg__clear(&err);
	is_int(against(false, "IOMMU-BENCH-AGENT 1 0011\n", T_MS, &err),
	       -EPROTO, "a short nonce: -EPROTO");
	has_str(err, "malformed greeting", "a malformed greeting");
	errmsg__clear(&err);
	memset(big, 'A', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	is_int(against(false, big, T_MS, &err), -EPROTO,
	       "a line over 512 bytes: -EPROTO");
	has_str(err, "longer than 512 bytes", "saying how long a line may be");
	errmsg__clear(&err);

	t0 = mono_ms();
	is_int(against(false, NULL, 300, &err), -ETIMEDOUT,
	       "a silent agent: -ETIMEDOUT");
	ok(mono_ms() - t0 < 1500, "within the bound (%lld ms for 300)",
	   (long long)(mono_ms() - t0));
	has_str(err, "did not finish the handshake within 300 ms",
		"saying the bound");
	errmsg__clear(&err);
	t0 = mono_ms();
	is_int(against(true, NULL, 300, &err), -ETIMEDOUT,
	       "a silent controller: -ETIMEDOUT");
	ok(mono_ms() - t0 < 1500, "within the bound");
	errmsg__clear(&err);
	/* A line trickled byte by byte still ends at the deadline. */
	is_int(against(false, "IOMMU-BENCH", 300, &err), -ETIMEDOUT,
	       "half a greeting, then silence: -ETIMEDOUT");
	errmsg__clear(&err);
}

static void test_hangup(void)
{
	struct part p = { say_then_wait, NULL };
	struct result r;
	char *err = NULL;
	int fd, res;
	pid_t pid;

	fake_final = NULL;
	fd = start(&p, &pid, &res);
	/* The child hangs up as soon as this end shuts its side. */
	shutdown(fd, SHUT_WR);
	is_int(chan_auth__controller(fd, "agt:2", secret_a, CHAN_SECRET_SIZE,
				     T_MS, &err),
	       -ECONNRESET,
	       "an agent that hangs up before greeting: -ECONNRESET");
	has_str(err, "hung up during the handshake", "saying so");
	finish(fd, pid, res, &r);
	free(err);
}

static void test_secret_file(void)
{
	char dir[] = "/tmp/iommu-bench-chan.XXXXXX", *path, *err = NULL;
	uint8_t s[CHAN_SECRET_SIZE], back[CHAN_SECRET_SIZE];
	static const struct {
		const char *text, *what;
	} bad[] = {
		{ "0123", "four digits" },
		{ "00112233445566778899aabbccddeeff00112233445566778899aabbccddee"
		  "f\n",
		  "63 digits and a newline" },
		{ "00112233445566778899aabbccddeeff00112233445566778899aabbccddee"
		  "ff\n\n",
		  "two newlines" },
		{ "00112233445566778899aabbccddeeff00112233445566778899aabbccddee"
		  "fff",
		  "65 digits" },
		{ "00112233445566778899aabbccddeeff00112233445566778899aabbccddee"
		  "zz",
		  "non-hex" },
		{ "", "an empty file" },
	};
	struct stat st;
	size_t i;
	FILE *fp;

	ok(mkdtemp(dir) != NULL, "a scratch folder");
	path = xasprintf("%s/secret", dir);
	is_int(chan_secret__new(s), 0, "a new secret");
	is_int(chan_secret__write(path, s, &err), 0, "written");
	ok(!stat(path, &st) && (st.st_mode & 0777) == 0600, "mode 0600");
	is_int(chan_secret__read(path, back, &err), 0, "read back");
	ok(!memcmp(s, back, sizeof(s)), "the same secret");
	chmod(path, 0644);
	is_int(chan_secret__read(path, back, &err), -EPERM,
	       "mode 0644 is refused");
	has_str(err, "has mode 0644", "naming the mode");
	has_str(err, "chmod 600", "and the fix");
	chmod(path, 0640);
	is_int(chan_secret__read(path, back, &err), -EPERM,
	       "mode 0640 is refused");
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		unlink(path);
		fp = fopen(path, "w");
		fputs(bad[i].text, fp);
		fclose(fp);
		chmod(path, 0600);
		is_int(chan_secret__read(path, back, &err), -EINVAL,
		       "refused: %s", bad[i].what);
		ok(!*bad[i].text || !strstr(err, bad[i].text),
		   "its words do not quote the file");
	}
	unlink(path);
	fp = fopen(path, "w");
	fputs("00112233445566778899AABBCCDDEEFF00112233445566778899aabbccddeeff",
	      fp);
	fclose(fp);
	chmod(path, 0400);
	is_int(chan_secret__read(path, back, &err), 0,
	       "64 digits without a newline, read-only to its owner");
	ok(back[0] == 0x00 && back[15] == 0xff && back[31] == 0xff, "decoded");
	unlink(path);
	is_int(chan_secret__read(path, back, &err), -ENOENT,
	       "a missing file: -ENOENT");
	has_str(err, path, "naming it");
	is_int(chan_secret__write("-", s, &err), -EINVAL,
	       "a secret is never written to standard output");
	rmdir(dir);
	free_all(path, err);
}

static void test_addr(void)
{
	static const char *const good[] = {
		"10.0.0.2:41234",      "[::1]:80",
		"[2001:db8::5]:65535", "127.0.0.1:1",
		"[::ffff:10.0.0.1]:9",
	};
	static const char *const bad[] = {
		"host:80",
		"10.0.0.2",
		"10.0.0.2:0",
		"10.0.0.2:65536",
		"::1:80",
		"[10.0.0.2]:80",
		"10.0.0.2:+80",
		"10.0.0.2:80 ",
		"[::1]80",
		"",
		":80",
		"10.0.0.02:80",
		"10.0.0:80",
		"[fe80::1%lo]:80",
		"10.0.0.2:123456",
	};
	char name[CHAN_ADDR_NAME_MAX], *err = NULL;
	struct sockaddr_storage ss;
	socklen_t len;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(good); i++) {
		is_int(chan_addr__parse(good[i], &ss, &len, &err), 0,
		       "'%s' is an address", good[i]);
		chan_addr__name(&ss, name);
		is_str(name, good[i], "and named as it was written");
	}
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		is_int(chan_addr__parse(bad[i], &ss, &len, &err), -EINVAL,
		       "'%s' is refused", bad[i]);
		ok(err && strstr(err, bad[i]), "naming it");
	}
	chan_addr__parse("::1:80", &ss, &len, &err);
	has_str(err, "brackets",
		"an IPv6 address without brackets is told how");
	free(err);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	test_right_secret();
	test_wrong_secret();
	test_refused_by_controller();
	test_bad_proof();
	test_garbage();
	test_hangup();
	test_secret_file();
	test_addr();
	return tap_done();
}

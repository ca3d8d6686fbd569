// SPDX-License-Identifier: GPL-2.0-only
/* The agent's TCP handshake (chan-auth.h): four bounded lines, both ways proven. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic-file.h"
#include "chan-auth.h"
#include "clock.h"
#include "errmsg.h"
#include "sha256.h"
#include "util.h"

#define NONCE_SIZE 32
#define FIELD_HEX (2 * NONCE_SIZE) /* a nonce's or a MAC's digits */
#define AGENT_WORD "IOMMU-BENCH-AGENT"
#define CONTROLLER_WORD "IOMMU-BENCH-CONTROLLER"
#define REFUSED_WORD "REFUSED"
#define AUTH_WORD "AUTH"
/* What a stranger's line may show of itself in our words. */
#define QUOTE_MAX 40

/* One handshake: its socket, its deadline, the line last read. */
struct hs {
	int fd;
	bool agent; /* this end is the agent; the peer is the controller */
	const char *peer;
	int timeout_ms;
	int64_t deadline;
	char **err;
	char line[CHAN_AUTH_LINE_MAX];
};

/* The words of a failure, said from this end: the peer named first. */
static int __attribute__((format(printf, 3, 4)))
fail(struct hs *h, int ret, const char *fmt, ...)
{
	va_list ap;
	char *why;

	va_start(ap, fmt);
	why = xvasprintf(fmt, ap);
	va_end(ap);
	if (h->agent)
		ret = errmsg__set(h->err, ret, "the controller at %s %s",
				  h->peer, why);
	else
		ret = errmsg__set(h->err, ret, "refused an agent at %s: %s",
				  h->peer, why);
	free(why);
	return ret;
}

/* "it " where the words follow "refused an agent at X: ". */
static const char *it(const struct hs *h)
{
	return h->agent ? "" : "it ";
}

static int fail_io(struct hs *h, int ret)
{
	if (ret == -ETIMEDOUT)
		return fail(h, ret,
			    "%sdid not finish the handshake within %d ms",
			    it(h), h->timeout_ms);
	if (ret == -ENODATA || ret == -ECONNRESET || ret == -EPIPE)
		return fail(h, -ECONNRESET, "%shung up during the handshake",
			    it(h));
	if (ret == -E2BIG)
		return fail(h, -EPROTO,
			    "%ssent a handshake line longer than %d bytes",
			    it(h), CHAN_AUTH_LINE_MAX);
	return fail(h, ret, "%sbroke off the handshake: %s", it(h),
		    strerror(-ret));
}

/* Until @fd is ready for @events: 0, -ETIMEDOUT past the deadline, -errno. */
static int wait_for(struct hs *h, short events)
{
	struct pollfd p = { .fd = h->fd, .events = events };
	int64_t left;
	int n;

	for (;;) {
		left = h->deadline - mono_ms();
		if (left <= 0)
			return -ETIMEDOUT;
		n = poll(&p, 1, left > INT_MAX ? INT_MAX : (int)left);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n)
			return 0;
	}
}

/*
 * The next line into h->line, without its newline. A byte at a time:
 * what follows the handshake is the agent's protocol, not ours to take.
 * 0, -ENODATA at the end of input, -E2BIG past CHAN_AUTH_LINE_MAX
 * (newline included), or another negative errno.
 */
static int read_line(struct hs *h)
{
	size_t n = 0;
	ssize_t r;
	char c;
	int ret;

	for (;;) {
		ret = wait_for(h, POLLIN);
		if (ret)
			return ret;
		r = read(h->fd, &c, 1);
		if (r < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (r < 0)
			return -errno;
		if (!r)
			return -ENODATA;
		if (c == '\n')
			break;
		if (n == sizeof(h->line) - 1)
			return -E2BIG;
		/* A NUL would cut the line short of what was checked. */
		h->line[n++] = c ? c : '?';
	}
	h->line[n] = '\0';
	return 0;
}

/* @s, all of it, never a SIGPIPE: a peer gone is -EPIPE. */
static int send_line(struct hs *h, const char *s)
{
	size_t len = strlen(s), off = 0;
	ssize_t n;
	int ret;

	while (off < len) {
		ret = wait_for(h, POLLOUT);
		if (ret)
			return ret;
		n = send(h->fd, s + off, len - off, MSG_NOSIGNAL);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0)
			return -errno;
		off += (size_t)n;
	}
	return 0;
}

static void hs__init(struct hs *h, int fd, bool agent, const char *peer,
		     int timeout_ms, char **err)
{
	h->fd = fd;
	h->agent = agent;
	h->peer = peer ? peer : "?";
	h->timeout_ms = timeout_ms;
	h->deadline = mono_ms() + (timeout_ms > 0 ? timeout_ms : 0);
	h->err = err;
	h->line[0] = '\0';
}

static int nonce(uint8_t out[NONCE_SIZE])
{
	size_t got = 0;
	ssize_t n;

	while (got < NONCE_SIZE) {
		n = getrandom(out + got, NONCE_SIZE - got, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		got += (size_t)n;
	}
	return 0;
}

/* HMAC(@secret, @label || @n1 || @n2): the label keeps each end's MAC its own. */
static void mac(const uint8_t *secret, size_t len, const char *label,
		const uint8_t n1[NONCE_SIZE], const uint8_t n2[NONCE_SIZE],
		uint8_t out[SHA256_DIGEST_SIZE])
{
	struct hmac_sha256 m;

	hmac_sha256__init(&m, secret, len);
	hmac_sha256__update(&m, label, strlen(label));
	hmac_sha256__update(&m, n1, NONCE_SIZE);
	hmac_sha256__update(&m, n2, NONCE_SIZE);
	hmac_sha256__final(&m, out);
}

/* At most QUOTE_MAX bytes of a stranger's @s, each unprintable one as '?'. */
static void quote(const char *s, char out[QUOTE_MAX + 1])
{
	size_t i;

	for (i = 0; i < QUOTE_MAX && s[i]; i++)
		out[i] = s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?';
	out[i] = '\0';
}

/* @line starts with the word @w, then a space or its end. */
static const char *after_word(const char *line, const char *w)
{
	size_t n = strlen(w);

	if (strncmp(line, w, n) || (line[n] != ' ' && line[n]))
		return NULL;
	return line + n + (line[n] ? 1 : 0);
}

/* A REFUSED line from the controller: -EACCES and its reason; else 0. */
static int refused(struct hs *h)
{
	const char *why = after_word(h->line, REFUSED_WORD);
	char q[QUOTE_MAX + 1];

	if (!why)
		return 0;
	quote(*why ? why : "no reason given", q);
	return fail(h, -EACCES, "refused this agent: %s", q);
}

/*
 * One field of FIELD_HEX lower-case hex digits at *@p into @out, then a
 * space (another field follows) or the line's end (@last): 0 or -EPROTO.
 */
static int take_field(const char **p, uint8_t out[NONCE_SIZE], bool last)
{
	const char *s = *p;

	if (strspn(s, "0123456789abcdef") != FIELD_HEX ||
	    s[FIELD_HEX] != (last ? '\0' : ' '))
		return -EPROTO;
	if (hex_decode(s, NONCE_SIZE, out))
		return -EPROTO;
	*p = s + FIELD_HEX + (last ? 0 : 1);
	return 0;
}

/*
 * "@word VERSION F1[ F2]", the greeting or the challenge: its fields
 * into @f1 and, when non-NULL, @f2. 0, or -EPROTO with the words.
 */
static int take_hello(struct hs *h, const char *word, uint8_t f1[NONCE_SIZE],
		      uint8_t f2[NONCE_SIZE])
{
	const char *p = after_word(h->line, word);
	char q[QUOTE_MAX + 1], *end = NULL;
	long v;

	if (!p) {
		quote(h->line, q);
		return fail(h, -EPROTO, "%s an iommu-bench %s: it said '%s'",
			    h->agent ? "is not" : "not",
			    h->agent ? "controller" : "agent", q);
	}
	v = *p >= '0' && *p <= '9' ? strtol(p, &end, 10) : -1;
	if (v >= 0 && v != CHAN_AUTH_VERSION)
		return fail(h, -EPROTO,
			    "%sspeaks handshake version %ld, this %s %d", it(h),
			    v, h->agent ? "agent" : "controller",
			    CHAN_AUTH_VERSION);
	if (v < 0 || *end != ' ')
		goto bad;
	p = end + 1;
	if (take_field(&p, f1, !f2) || (f2 && take_field(&p, f2, true)))
		goto bad;
	return 0;
bad:
	return fail(h, -EPROTO, "%ssent a malformed %s", it(h),
		    h->agent ? "challenge" : "greeting");
}

/*
 * The agent's turn: @s out, the controller's answer into h->line. 0, or
 * a negative errno and the words (REFUSED is -EACCES).
 */
static int ask(struct hs *h, const char *s)
{
	int ret = send_line(h, s);

	if (!ret)
		ret = read_line(h);
	return ret ? fail_io(h, ret) : refused(h);
}

int chan_auth__agent(int fd, const char *peer, const uint8_t *secret,
		     size_t len, int timeout_ms, char **err)
{
	uint8_t na[NONCE_SIZE], nc[NONCE_SIZE], got[SHA256_DIGEST_SIZE],
		want[SHA256_DIGEST_SIZE];
	char out[CHAN_AUTH_LINE_MAX], hex[FIELD_HEX + 1];
	struct hs h;
	int ret;

	hs__init(&h, fd, true, peer, timeout_ms, err);
	ret = nonce(na);
	if (ret)
		return errmsg__set(err, ret, "cannot draw a nonce: %s",
				   strerror(-ret));
	hex_encode(na, NONCE_SIZE, hex);
	snprintf(out, sizeof(out), AGENT_WORD " %d %s\n", CHAN_AUTH_VERSION,
		 hex);
	ret = ask(&h, out);
	if (!ret)
		ret = take_hello(&h, CONTROLLER_WORD, nc, got);
	if (ret)
		goto out;
	mac(secret, len, "controller", na, nc, want);
	if (!memeq_ct(want, got, sizeof(want))) {
		/* Not a word more to whoever this is: it gets nothing. */
		ret = fail(&h, -EACCES, "did not prove the job's secret");
		goto out;
	}
	mac(secret, len, "agent", nc, na, want);
	hex_encode(want, sizeof(want), hex);
	snprintf(out, sizeof(out), AUTH_WORD " %s\n", hex);
	ret = ask(&h, out);
	if (!ret && strcmp(h.line, "OK"))
		ret = fail(&h, -EPROTO,
			   "answered this agent's proof with neither OK nor "
			   "REFUSED");
out:
	explicit_bzero(want, sizeof(want));
	explicit_bzero(out, sizeof(out));
	explicit_bzero(hex, sizeof(hex));
	return ret;
}

/* A word for the agent before the controller hangs up; it may be gone. */
static void refuse(struct hs *h, const char *why)
{
	char *s = xasprintf(REFUSED_WORD " %s\n", why);

	send_line(h, s);
	free(s);
}

/*
 * Whether the agent hung up before our proof went out: one that gave up
 * waiting in the listener's backlog, whose hang-up must not read as a
 * wrong secret after it.
 */
static bool peer_gone(struct hs *h)
{
	struct pollfd p = { .fd = h->fd, .events = POLLIN | POLLRDHUP };

	return poll(&p, 1, 0) > 0 &&
	       (p.revents & (POLLRDHUP | POLLHUP | POLLERR));
}

int chan_auth__controller(int fd, const char *peer, const uint8_t *secret,
			  size_t len, int timeout_ms, char **err)
{
	uint8_t na[NONCE_SIZE], nc[NONCE_SIZE], got[SHA256_DIGEST_SIZE],
		want[SHA256_DIGEST_SIZE];
	char out[CHAN_AUTH_LINE_MAX], hn[FIELD_HEX + 1], hm[FIELD_HEX + 1];
	const char *p;
	struct hs h;
	int ret;

	hs__init(&h, fd, false, peer, timeout_ms, err);
	ret = read_line(&h);
	if (ret) {
		ret = fail_io(&h, ret);
		goto out;
	}
	ret = take_hello(&h, AGENT_WORD, na, NULL);
	if (ret) {
		refuse(&h, "not the handshake of iommu-bench's version 1");
		goto out;
	}
	if (peer_gone(&h)) {
		ret = fail_io(&h, -ECONNRESET);
		goto out;
	}
	ret = nonce(nc);
	if (ret) {
		ret = errmsg__set(err, ret, "cannot draw a nonce: %s",
				  strerror(-ret));
		goto out;
	}
	mac(secret, len, "controller", na, nc, want);
	hex_encode(nc, NONCE_SIZE, hn);
	hex_encode(want, sizeof(want), hm);
	snprintf(out, sizeof(out), CONTROLLER_WORD " %d %s %s\n",
		 CHAN_AUTH_VERSION, hn, hm);
	ret = send_line(&h, out);
	if (!ret)
		ret = read_line(&h);
	if (ret == -ENODATA) {
		/* What an agent does that did not accept our proof. */
		ret = fail(&h, -EACCES,
			   "wrong secret (it hung up on this controller's "
			   "proof)");
		goto out;
	}
	if (ret) {
		ret = fail_io(&h, ret);
		goto out;
	}
	p = after_word(h.line, AUTH_WORD);
	if (!p || take_field(&p, got, true)) {
		refuse(&h, "malformed proof");
		ret = fail(&h, -EPROTO, "it sent a malformed proof");
		goto out;
	}
	mac(secret, len, "agent", nc, na, want);
	if (!memeq_ct(want, got, sizeof(want))) {
		refuse(&h, "wrong secret");
		ret = fail(&h, -EACCES, "wrong secret");
		goto out;
	}
	ret = send_line(&h, "OK\n");
	if (ret)
		ret = fail_io(&h, ret);
out:
	explicit_bzero(want, sizeof(want));
	explicit_bzero(out, sizeof(out));
	explicit_bzero(hm, sizeof(hm));
	return ret;
}

int chan_secret__new(uint8_t out[CHAN_SECRET_SIZE])
{
	return nonce(out);
}

int chan_secret__read(const char *path, uint8_t out[CHAN_SECRET_SIZE],
		      char **err)
{
	char buf[2 * CHAN_SECRET_SIZE + 2];
	struct stat st;
	ssize_t n;
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return errmsg__set(err, -errno,
				   "cannot open the secret file %s: %s", path,
				   strerror(errno));
	if (fstat(fd, &st)) {
		ret = errmsg__set(err, -errno, "cannot stat %s: %s", path,
				  strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		ret = errmsg__set(err, -EINVAL,
				  "the secret file %s is not a regular file",
				  path);
		goto out;
	}
	if (st.st_mode & 077) {
		ret = errmsg__set(
			err, -EPERM,
			"the secret file %s has mode %04o: a job's "
			"secret is for its owner alone (chmod 600 %s)",
			path, (unsigned int)(st.st_mode & 07777), path);
		goto out;
	}
	n = read_retry(fd, buf, sizeof(buf));
	if (n < 0) {
		ret = errmsg__set(err, (int)n, "cannot read %s: %s", path,
				  strerror(-(int)n));
		goto out;
	}
	if (!(n == 2 * CHAN_SECRET_SIZE ||
	      (n == 2 * CHAN_SECRET_SIZE + 1 && buf[n - 1] == '\n'))) {
		ret = errmsg__set(err, -EINVAL,
				  "the secret file %s holds %lld bytes; a "
				  "job's secret is %d hex digits, a newline "
				  "after them at most",
				  path, (long long)st.st_size,
				  2 * CHAN_SECRET_SIZE);
		goto out;
	}
	ret = hex_decode(buf, CHAN_SECRET_SIZE, out);
	if (ret)
		errmsg__set(err, ret,
			    "the secret file %s holds something other than "
			    "hex digits",
			    path);
out:
	explicit_bzero(buf, sizeof(buf));
	close(fd);
	return ret;
}

int chan_secret__write(const char *path, const uint8_t secret[CHAN_SECRET_SIZE],
		       char **err)
{
	char hex[2 * CHAN_SECRET_SIZE + 2];
	struct atomic_file af;
	int ret;

	if (!path || !strcmp(path, "-"))
		return errmsg__set(err, -EINVAL,
				   "a secret is written to a file of its own");
	ret = atomic_file__open(&af, path, 0600);
	if (ret)
		return errmsg__set(err, ret, "cannot write %s: %s", path,
				   strerror(-ret));
	/* Unbuffered: no copy of the secret left in a freed stdio buffer. */
	setvbuf(af.fp, NULL, _IONBF, 0);
	hex_encode(secret, CHAN_SECRET_SIZE, hex);
	hex[2 * CHAN_SECRET_SIZE] = '\n';
	if (fwrite(hex, 1, 2 * CHAN_SECRET_SIZE + 1, af.fp) !=
	    2 * CHAN_SECRET_SIZE + 1) {
		ret = -errno ?: -EIO;
		atomic_file__abort(&af);
	} else {
		ret = atomic_file__commit(&af);
	}
	explicit_bzero(hex, sizeof(hex));
	if (ret)
		return errmsg__set(err, ret, "cannot write %s: %s", path,
				   strerror(-ret));
	return 0;
}

int chan_sock__tune(int fd)
{
	/* Idle 30 s, then a probe every 10 s, 3 unanswered: about a
	 * minute; the user timeout bounds a write nobody acknowledges,
	 * which keepalive does not look at. */
	static const struct {
		int level, name, value;
	} opts[] = {
		{ IPPROTO_TCP, TCP_NODELAY, 1 },
		{ SOL_SOCKET, SO_KEEPALIVE, 1 },
		{ IPPROTO_TCP, TCP_KEEPIDLE, 30 },
		{ IPPROTO_TCP, TCP_KEEPINTVL, 10 },
		{ IPPROTO_TCP, TCP_KEEPCNT, 3 },
		{ IPPROTO_TCP, TCP_USER_TIMEOUT, 60 * 1000 },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(opts); i++)
		if (setsockopt(fd, opts[i].level, opts[i].name, &opts[i].value,
			       sizeof(opts[i].value)))
			return -errno;
	return 0;
}

int chan_addr__make(const char *addr, uint16_t port,
		    struct sockaddr_storage *ss, socklen_t *len)
{
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *in = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, addr, &in->sin_addr) == 1) {
		in->sin_family = AF_INET;
		in->sin_port = htons(port);
		*len = sizeof(*in);
		return 0;
	}
	if (inet_pton(AF_INET6, addr, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(port);
		*len = sizeof(*in6);
		return 0;
	}
	return -EINVAL;
}

int chan_addr__parse(const char *s, struct sockaddr_storage *ss, socklen_t *len,
		     char **err)
{
	const char *colon, *host = s, *port;
	char addr[INET6_ADDRSTRLEN];
	size_t n;
	long p;

	if (*s == '[') {
		const char *rb = strchr(s, ']');

		host = s + 1;
		colon = rb && rb[1] == ':' ? rb + 1 : NULL;
		n = rb ? (size_t)(rb - host) : 0;
	} else {
		colon = strrchr(s, ':');
		n = colon ? (size_t)(colon - s) : 0;
		if (colon && memchr(s, ':', n))
			return errmsg__set(err, -EINVAL,
					   "'%s': an IPv6 address goes in "
					   "brackets, [ADDR]:PORT",
					   s);
	}
	port = colon ? colon + 1 : "";
	if (!colon || !n || n >= sizeof(addr))
		goto bad;
	memcpy(addr, host, n);
	addr[n] = '\0';
	/* Decimal digits only: strtol would take a sign and spaces. */
	if (!*port || strspn(port, "0123456789") != strlen(port) ||
	    strlen(port) > 5)
		goto bad;
	p = strtol(port, NULL, 10);
	if (p < 1 || p > 65535)
		return errmsg__set(err, -EINVAL,
				   "'%s': the port is 1 to 65535, not %ld", s,
				   p);
	if (chan_addr__make(addr, (uint16_t)p, ss, len) ||
	    (ss->ss_family == AF_INET6) != (*s == '['))
		goto bad;
	return 0;
bad:
	return errmsg__set(err, -EINVAL,
			   "'%s' is not ADDR:PORT, an IPv4 address "
			   "(a.b.c.d:PORT) or an IPv6 one in brackets "
			   "([ADDR]:PORT); names are not looked up",
			   s);
}

void chan_addr__name(const struct sockaddr_storage *ss,
		     char out[CHAN_ADDR_NAME_MAX])
{
	const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)ss;
	const struct sockaddr_in *in = (const struct sockaddr_in *)ss;
	char a[INET6_ADDRSTRLEN] = "?";

	if (ss->ss_family == AF_INET) {
		inet_ntop(AF_INET, &in->sin_addr, a, sizeof(a));
		snprintf(out, CHAN_ADDR_NAME_MAX, "%s:%u", a,
			 ntohs(in->sin_port));
	} else if (ss->ss_family == AF_INET6) {
		inet_ntop(AF_INET6, &in6->sin6_addr, a, sizeof(a));
		snprintf(out, CHAN_ADDR_NAME_MAX, "[%s]:%u", a,
			 ntohs(in6->sin6_port));
	} else {
		snprintf(out, CHAN_ADDR_NAME_MAX, "(address family %d)",
			 ss->ss_family);
	}
}

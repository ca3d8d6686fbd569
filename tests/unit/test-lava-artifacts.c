// SPDX-License-Identifier: GPL-2.0-only
/*
 * The artifact server over real sockets on the loopback: the bytes it
 * serves and their sha256, everything it refuses, a file changed under
 * it, twenty clients at once, a stop with clients still connected.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <curl/curl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/time.h>

#include "bench/host/lava/lava-artifacts.h"
#include "clock.h"
#include "scratch-files.h"

#define NR_CLIENTS 20
#define MAX_CONNS 16 /* the server's */

static char dir[] = "/tmp/iommu-bench-artifacts.XXXXXX";

struct reply {
	int status;
	char *head; /* the status line and the headers */
	char *body;
	size_t len;
};

static void reply__release(struct reply *r)
{
	free_all(r->head, r->body);
	memset(r, 0, sizeof(*r));
}

/* A connection to the loopback of @family, port @port: the fd or -errno. */
static int dial(int family, uint16_t port)
{
	struct sockaddr_in6 in6 = { .sin6_family = AF_INET6,
				    .sin6_port = htons(port),
				    .sin6_addr = IN6ADDR_LOOPBACK_INIT };
	struct sockaddr_in in = { .sin_family = AF_INET,
				  .sin_port = htons(port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct timeval tv = { .tv_sec = 20 };
	int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	/* A server that hangs fails the test, not the suite. */
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (family == AF_INET6 ?
		    connect(fd, (struct sockaddr *)&in6, sizeof(in6)) :
		    connect(fd, (struct sockaddr *)&in, sizeof(in))) {
		close(fd);
		return -errno;
	}
	return fd;
}

/* Everything @fd sends until it closes, split into @r. */
static int read_reply(int fd, struct reply *r)
{
	size_t len = 0, alloc = 0;
	char *buf = NULL, *end;
	ssize_t n;

	memset(r, 0, sizeof(*r));
	for (;;) {
		ALLOC_GROW(buf, len + 65536 + 1, alloc);
		n = read_retry(fd, buf + len, 65536);
		if (n <= 0)
			break;
		len += n;
	}
	buf[len] = '\0';
	end = strstr(buf, "\r\n\r\n");
	if (!end || strncmp(buf, "HTTP/1.1 ", 9)) {
		free(buf);
		return -EPROTO;
	}
	r->status = atoi(buf + 9);
	r->head = xstrndup(buf, end + 2 - buf);
	r->len = len - (end + 4 - buf);
	r->body = xmalloc(r->len + 1);
	memcpy(r->body, end + 4, r->len + 1);
	free(buf);
	return 0;
}

/* @req as it is, to the server on the loopback of @family: 0 or -errno. */
static int http_raw(int family, uint16_t port, const char *req, size_t len,
		    struct reply *r)
{
	int fd = dial(family, port), ret;

	memset(r, 0, sizeof(*r));
	if (fd < 0)
		return fd;
	ret = write_all(fd, req, len);
	if (!ret)
		ret = read_reply(fd, r);
	close(fd);
	return ret;
}

static int http(uint16_t port, const char *method, const char *target,
		struct reply *r)
{
	char *req = xasprintf("%s %s HTTP/1.1\r\nHost: lab\r\n\r\n", method,
			      target);
	int ret = http_raw(AF_INET, port, req, strlen(req), r);

	free(req);
	return ret;
}

/* The status of @method @target, or -errno. */
static int status_of(uint16_t port, const char *method, const char *target)
{
	struct reply r;
	int ret = http(port, method, target, &r);

	if (!ret)
		ret = r.status;
	reply__release(&r);
	return ret;
}

/* The number in header @name of @head, or -1. */
static long long header_num(const char *head, const char *name)
{
	const char *p = strcasestr(head, name);

	return p ? strtoll(p + strlen(name), NULL, 10) : -1;
}

static bool body_is(const struct reply *r, const void *want, size_t len)
{
	return r->status == 200 && r->len == len && !memcmp(r->body, want, len);
}

static size_t on_data(char *p, size_t size, size_t n, void *arg)
{
	struct reply *r = arg;

	r->body = xrealloc(r->body, r->len + size * n + 1);
	memcpy(r->body + r->len, p, size * n);
	r->len += size * n;
	return size * n;
}

/* @url through libcurl, the kind of client a LAVA worker is. */
static int curl_get(const char *url, struct reply *r)
{
	CURL *c = curl_easy_init();
	long status = 0;
	CURLcode rc;

	memset(r, 0, sizeof(*r));
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, r);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 20L);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	rc = curl_easy_perform(c);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	curl_easy_cleanup(c);
	r->status = (int)status;
	return rc == CURLE_OK ? 0 : -EIO;
}

static struct artifact_server *start(const char *addr)
{
	struct artifact_server *s = NULL;
	char *err = NULL;

	is_int(artifact_server__start(addr, 0, "host lab", &s, &err), 0,
	       "start on %s, any port", addr);
	tap_diag_free(err);
	return s;
}

static void test_start_errors(void)
{
	struct artifact_server *s = NULL;
	char *err = NULL;

	/* TEST-NET-1: on no interface here. */
	is_int(artifact_server__start("192.0.2.1", 7780, "host lab", &s, &err),
	       -EADDRNOTAVAIL, "an address of no interface here is refused");
	has_str(err,
		"host lab: the artifact server cannot listen on "
		"192.0.2.1:7780: Cannot assign requested address",
		"in words, with the address and the port");
	ok(!s, "and no server");
	free(err);
	err = NULL;
	is_int(artifact_server__start("lab.example", 0, "host lab", &s, &err),
	       -EINVAL, "a name rather than an address is refused");
	has_str(err, "'lab.example' is not an IPv4 or IPv6 address",
		"in words");
	free(err);
	artifact_server__stop(NULL);
	ok(1, "stopping no server is nothing");
}

/* The file part's bytes and the token's, and both as one. */
static char file_bytes[100003], token[] = "token: not for the logs\n";
static char whole[sizeof(file_bytes) + sizeof(token) - 1];

static void test_serve(struct artifact_server *s, const char *path,
		       char sha[SHA256_HEX_SIZE])
{
	const struct artifact_part parts[] = {
		{ .path = path },
		{ .buf = token, .len = strlen(token) },
	};
	uint16_t port = artifact_server__port(s);
	char want[SHA256_HEX_SIZE], got[SHA256_HEX_SIZE], *url, *peer, *text;
	uint64_t size = 0;
	struct reply r;
	char *err = NULL;

	sha256__hex(whole, sizeof(whole), want);
	is_int(artifact_server__add(s, parts, 2, sha, &size, &err), 0,
	       "add a file and bytes as one artifact");
	tap_diag_free(err);
	is_str(sha, want,
	       "named by the sha256 of the two, one after the other");
	is_int(size, sizeof(whole), "and their size");
	ok(port != 0, "the kernel's port is known (%u)", port);

	url = artifact_server__url(s, sha);
	text = xasprintf("http://127.0.0.1:%u/sha256/%s", port, want);
	is_str(url, text, "its URL");
	free(text);

	is_int(curl_get(url, &r), 0, "libcurl fetches it");
	ok(body_is(&r, whole, sizeof(whole)),
	   "the bytes of the file and then the token");
	sha256__hex(r.body, r.len, got);
	is_str(got, sha, "whose sha256 is the name");
	reply__release(&r);
	free(url);

	text = xasprintf("GET /sha256/%s HTTP/1.0\r\n\r\n", sha);
	is_int(http_raw(AF_INET, port, text, strlen(text), &r), 0,
	       "an HTTP/1.0 GET");
	free(text);
	ok(body_is(&r, whole, sizeof(whole)), "is answered the same bytes");
	has_str(r.head, "\r\nContent-Type: application/octet-stream\r\n",
		"as application/octet-stream");
	has_str(r.head, "\r\nConnection: close\r\n", "with Connection: close");
	is_int(header_num(r.head, "\r\nContent-Length: "), sizeof(whole),
	       "and the Content-Length");
	reply__release(&r);

	text = xasprintf("/sha256/%s", sha);
	is_int(http(port, "HEAD", text, &r), 0, "a HEAD");
	free(text);
	is_int(r.status, 200, "is 200");
	is_int(header_num(r.head, "\r\nContent-Length: "), sizeof(whole),
	       "with the Content-Length");
	is_int(r.len, 0, "and no body");
	reply__release(&r);

	is_int(artifact_server__fetched(s, sha, &peer), 2,
	       "two GETs were counted, the HEAD was not");
	is_str(peer, "127.0.0.1", "the last from the loopback");
	free(peer);
	is_int(artifact_server__asked(s, sha), 3,
	       "but the lab asked three times (LAVA checks a URL by HEAD)");
	is_int(artifact_server__asked(s, "0123"), 0, "an unknown name: 0");
}

static void test_refused(struct artifact_server *s, const char *sha)
{
	uint16_t port = artifact_server__port(s);
	char unknown[SHA256_HEX_SIZE], *upper, *t;
	static const char *const not_found[] = {
		"/sha256/../etc/passwd", "/", "/sha256/", "/sha256",
		"/etc/passwd",		 "*",
	};
	static const char *const bad[] = {
		"garbage\r\n\r\n",
		"GET /\r\n\r\n",
		"GET  / HTTP/1.1\r\n\r\n",
		"GET / HTTP/2.0\r\n\r\n",
		"GET / HTTP/1.1\r\nno colon here\r\n\r\n",
		"G\x01T / HTTP/1.1\r\n\r\n",
	};
	char *huge, *peer = NULL;
	struct reply r;
	size_t i;

	sha256__hex("nothing", 7, unknown);
	t = xasprintf("/sha256/%s", unknown);
	is_int(status_of(port, "GET", t), 404, "an unknown sha256 is 404");
	free(t);
	for (i = 0; i < ARRAY_SIZE(not_found); i++)
		is_int(status_of(port, "GET", not_found[i]), 404,
		       "GET %s is 404", not_found[i]);
	upper = xasprintf("/sha256/%s", sha);
	for (t = upper + 8; *t; t++)
		*t = toupper(*t);
	is_int(status_of(port, "GET", upper), 404, "upper-case hex is 404");
	free(upper);
	t = xasprintf("/sha256/%s?x=1", sha);
	is_int(status_of(port, "GET", t), 404, "a query string is 404");
	free(t);
	t = xasprintf("/sha256/%s/", sha);
	is_int(status_of(port, "GET", t), 404, "a trailing '/' is 404");
	free(t);
	t = xasprintf("http://127.0.0.1/sha256/%s", sha);
	is_int(status_of(port, "GET", t), 404, "an absolute URL is 404");
	free(t);
	is_int(status_of(port, "HEAD", "/"), 404, "HEAD / is 404 too");

	t = xasprintf("/sha256/%s", sha);
	is_int(http(port, "POST", t, &r), 0, "a POST");
	is_int(r.status, 405, "is 405");
	has_str(r.head, "\r\nAllow: GET, HEAD\r\n", "naming what is allowed");
	reply__release(&r);
	is_int(status_of(port, "PUT", t), 405, "so is a PUT");
	is_int(status_of(port, "get", t), 405, "and a lower-case get");
	free(t);

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		is_int(http_raw(AF_INET, port, bad[i], strlen(bad[i]), &r), 0,
		       "a malformed request %zu is answered", i);
		is_int(r.status, 400, "with 400");
		reply__release(&r);
	}

	huge = xmalloc(9000 + 64);
	strcpy(huge, "GET / HTTP/1.1\r\nX-Pad: ");
	i = strlen(huge);
	memset(huge + i, 'a', 9000);
	strcpy(huge + i + 9000, "\r\n\r\n");
	is_int(http_raw(AF_INET, port, huge, strlen(huge), &r), 0,
	       "headers over 8 KiB are answered");
	ok(r.status == 431 || r.status == 400, "with 431 (%d)", r.status);
	ok(!strstr(r.body, "/") && !strstr(r.head, dir),
	   "an answer names no file");
	reply__release(&r);
	free(huge);

	is_int(artifact_server__fetched(s, sha, &peer), 2,
	       "none of these was counted as a fetch");
	free(peer);
}

static void test_same_twice(struct artifact_server *s, const char *path,
			    const char *sha)
{
	const struct artifact_part parts[] = {
		{ .path = path },
		{ .buf = token, .len = strlen(token) },
	};
	const struct artifact_part one[] = { { .buf = whole,
					       .len = sizeof(whole) } };
	char again[SHA256_HEX_SIZE];
	uint64_t size;
	char *err = NULL;

	is_int(artifact_server__add(s, parts, 2, again, &size, &err), 0,
	       "the same parts again");
	tap_diag_free(err);
	is_str(again, sha, "the same name");
	is_int(artifact_server__add(s, one, 1, again, &size, NULL), 0,
	       "the same bytes in one buffer");
	is_str(again, sha, "the same name");
	is_int(artifact_server__nr(s), 1, "and still one artifact");
}

static void test_bad_parts(struct artifact_server *s)
{
	const struct artifact_part missing[] = { { .path = "/nonexistent/x" } };
	const struct artifact_part folder[] = { { .path = dir } };
	char sha[SHA256_HEX_SIZE], *err = NULL;
	uint64_t size;

	is_int(artifact_server__add(s, missing, 1, sha, &size, &err), -ENOENT,
	       "a missing file is -ENOENT");
	has_str(err, "host lab: cannot serve /nonexistent/x: No such file",
		"in words");
	is_int(artifact_server__add(s, folder, 1, sha, &size, &err), -EINVAL,
	       "a folder is -EINVAL");
	has_str(err, "not a regular file", "in words");
	free(err);
	is_int(artifact_server__nr(s), 1, "neither was added");
}

/* @path rewritten to @text and its mtime moved by @ds seconds. */
static void rewrite(const char *path, const char *text, int ds)
{
	struct timespec t[2] = { { .tv_nsec = UTIME_OMIT } };
	struct stat st;

	scratch__write_text(path, text);
	stat(path, &st);
	t[1] = st.st_mtim;
	t[1].tv_sec += ds;
	utimensat(AT_FDCWD, path, t, 0);
}

static void test_changed(struct artifact_server *s)
{
	char *path = xasprintf("%s/initrd", dir), sha[SHA256_HEX_SIZE], *t;
	const struct artifact_part parts[] = { { .path = path } };
	uint16_t port = artifact_server__port(s);
	uint64_t size;
	struct reply r;

	scratch__write_text(path, "first\n");
	is_int(artifact_server__add(s, parts, 1, sha, &size, NULL), 0,
	       "add a file");
	t = xasprintf("/sha256/%s", sha);
	is_int(status_of(port, "GET", t), 200, "served");
	rewrite(path, "other\n", 10);
	is_int(http(port, "GET", t, &r), 0, "the same size, another mtime");
	is_int(r.status, 500, "is 500");
	ok(!strstr(r.body, "other") && !strstr(r.body, "initrd"),
	   "with neither the bytes nor the file's name");
	reply__release(&r);
	rewrite(path, "longer now\n", 0);
	is_int(status_of(port, "HEAD", t), 500, "another size is 500 too");
	rewrite(path, "first\n", 20);
	is_int(status_of(port, "GET", t), 500,
	       "the first bytes back, another mtime: still 500");
	is_int(artifact_server__add(s, parts, 1, sha, &size, NULL), 0,
	       "until they are added again");
	is_int(status_of(port, "GET", t), 200, "then served");
	is_int(artifact_server__fetched(s, sha, NULL), 2,
	       "two fetches of the one artifact");
	free(t);
	free(path);
}

struct client {
	uint16_t port;
	const char *target;
	struct reply r;
	int ret;
};

static void *client_main(void *arg)
{
	struct client *c = arg;

	c->ret = http(c->port, "GET", c->target, &c->r);
	return NULL;
}

/* Whether the server holds @n connections within 5 s. */
static bool wait_conns(struct artifact_server *s, unsigned n)
{
	int i;

	for (i = 0; i < 500; i++) {
		if (artifact_server__conns(s) == n)
			return true;
		usleep(10 * 1000);
	}
	return false;
}

static void test_many(struct artifact_server *s)
{
	size_t big_len = 2 << 20;
	char *big = xmalloc(big_len), sha[SHA256_HEX_SIZE], *t;
	const struct artifact_part parts[] = { { .buf = big, .len = big_len } };
	struct client c[NR_CLIENTS];
	pthread_t th[NR_CLIENTS];
	int whole_200 = 0, busy = 0, other = 0, fd[MAX_CONNS];
	uint64_t size;
	size_t i;

	for (i = 0; i < big_len; i++)
		big[i] = (char)(i * 7 + (i >> 12));
	is_int(artifact_server__add(s, parts, 1, sha, &size, NULL), 0,
	       "add 2 MiB");
	t = xasprintf("/sha256/%s", sha);
	/* The tests before left connections the server may not have seen
	 * close yet: each would take a slot from the clients below. */
	ok(wait_conns(s, 0), "the connections before all closed");
	for (i = 0; i < NR_CLIENTS; i++) {
		c[i] = (struct client){ .port = artifact_server__port(s),
					.target = t };
		pthread_create(&th[i], NULL, client_main, &c[i]);
	}
	for (i = 0; i < NR_CLIENTS; i++) {
		pthread_join(th[i], NULL);
		if (!c[i].ret && body_is(&c[i].r, big, big_len))
			whole_200++;
		else if (!c[i].ret && c[i].r.status == 503)
			busy++;
		else
			other++;
		reply__release(&c[i].r);
	}
	is_int(other, 0, "%d clients at once: each gets its bytes whole or 503",
	       NR_CLIENTS);
	ok(whole_200 >= MAX_CONNS, "at least %d of them the bytes (%d; %d 503)",
	   MAX_CONNS, whole_200, busy);
	is_int(artifact_server__fetched(s, sha, NULL), whole_200,
	       "each whole GET counted");

	/*
	 * Sixteen connections that say nothing hold every slot. The
	 * clients above are gone, but their connections hold slots until
	 * the server sees them close (a second at most): dialled before
	 * that, some of the sixteen were turned away, and the 17th found
	 * a slot freed meanwhile.
	 */
	ok(wait_conns(s, 0), "the clients' connections all closed");
	for (i = 0; i < MAX_CONNS; i++)
		fd[i] = dial(AF_INET, artifact_server__port(s));
	ok(wait_conns(s, MAX_CONNS), "the %d silent ones hold a slot each",
	   MAX_CONNS);
	is_int(status_of(artifact_server__port(s), "GET", t), 503,
	       "a 17th connection is 503");
	for (i = 0; i < MAX_CONNS; i++)
		if (fd[i] >= 0)
			close(fd[i]);
	for (i = 0; i < 50; i++) {
		if (status_of(artifact_server__port(s), "HEAD", t) == 200)
			break;
		usleep(100 * 1000);
	}
	ok(i < 50, "and served again once they are gone");
	free(t);
	free(big);
}

static void test_stop(void)
{
	size_t big_len = 16 << 20;
	struct artifact_server *s = start("127.0.0.1");
	char *big = xcalloc(1, big_len), sha[SHA256_HEX_SIZE], *req;
	const struct artifact_part parts[] = { { .buf = big, .len = big_len } };
	int idle, reader;
	uint64_t size;
	int64_t t0;

	if (!s)
		return;
	artifact_server__add(s, parts, 1, sha, &size, NULL);
	/* One mid-request, one that asked for 16 MiB and takes none. */
	idle = dial(AF_INET, artifact_server__port(s));
	ok(idle >= 0 && write(idle, "GET /sha256/", 12) == 12,
	   "a client half-way through its request");
	reader = dial(AF_INET, artifact_server__port(s));
	req = xasprintf("GET /sha256/%s HTTP/1.1\r\n\r\n", sha);
	ok(reader >= 0 && !write_all(reader, req, strlen(req)),
	   "a client that asked for 16 MiB and reads nothing");
	free(req);
	usleep(300 * 1000);
	t0 = mono_ms();
	artifact_server__stop(s);
	ok(mono_ms() - t0 < 2000,
	   "stop is prompt with both connected (%lld ms)",
	   (long long)(mono_ms() - t0));
	close(idle);
	close(reader);
	free(big);
}

static void test_ipv6(void)
{
	struct artifact_server *s = NULL;
	char sha[SHA256_HEX_SIZE], *url, *want, *peer = NULL, *req;
	const struct artifact_part parts[] = { { .buf = "six\n", .len = 4 } };
	uint64_t size;
	struct reply r;

	if (artifact_server__start("::1", 0, "host lab", &s, NULL)) {
		tap_skip("::1 cannot be bound here");
		return;
	}
	artifact_server__add(s, parts, 1, sha, &size, NULL);
	url = artifact_server__url(s, sha);
	want = xasprintf("http://[::1]:%u/sha256/%s", artifact_server__port(s),
			 sha);
	is_str(url, want, "an IPv6 URL has the address in brackets");
	req = xasprintf("GET /sha256/%s HTTP/1.1\r\n\r\n", sha);
	is_int(http_raw(AF_INET6, artifact_server__port(s), req, strlen(req),
			&r),
	       0, "a GET on ::1");
	ok(body_is(&r, "six\n", 4), "is served");
	artifact_server__fetched(s, sha, &peer);
	is_str(peer, "::1", "from ::1");
	reply__release(&r);
	free_all(url, want, peer, req);
	artifact_server__stop(s);
}

int main(void)
{
	struct artifact_server *s;
	char sha[SHA256_HEX_SIZE], *path;
	size_t i;

	scratch__begin(dir);
	signal(SIGPIPE, SIG_IGN);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	for (i = 0; i < sizeof(file_bytes); i++)
		file_bytes[i] = (char)(i % 251);
	memcpy(whole, file_bytes, sizeof(file_bytes));
	memcpy(whole + sizeof(file_bytes), token, strlen(token));
	path = xasprintf("%s/vmlinuz", dir);
	scratch__write(path, file_bytes, sizeof(file_bytes), 0644);

	test_start_errors();
	s = start("127.0.0.1");
	if (s) {
		test_serve(s, path, sha);
		test_refused(s, sha);
		test_same_twice(s, path, sha);
		test_bad_parts(s);
		test_changed(s);
		test_many(s);
		artifact_server__stop(s);
	}
	test_stop();
	test_ipv6();
	free(path);
	curl_global_cleanup();
	return scratch__end(dir);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * The artifact server (lava-artifacts.h): HTTP/1.x GET and HEAD of
 * /sha256/HEX and nothing else, one detached thread per connection.
 * Every wait polls the stop's eventfd too, so that a stop is prompt
 * whatever a client does; the threads block every signal, so that
 * sendfile() to a client gone away is EPIPE, not a dead controller.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/host/lava/lava-artifacts.h"
#include "clock.h"
#include "chan-auth.h"
#include "errmsg.h"
#include "log.h"
#include "util.h"

#define MAX_CONNS 16
#define HEAD_MAX 8192	 /* the request line and its headers */
#define REQUEST_MS 10000 /* from the connection to the request's end */
#define STALL_MS 30000	 /* a client that takes nothing for this long */
#define LINGER_MS 1000	 /* for what a client still sends after the answer */
#define LINGER_MAX 65536 /* bytes of it */
#define REJECT_MS 200	 /* for the request of one turned away */
#define SENDFILE_CHUNK (1 << 20)
#define PATH_PREFIX "/sha256/"

struct part {
	char *path; /* a file, or NULL: @buf */
	unsigned char *buf;
	uint64_t len;
	/* The file as it was hashed: served only while it still is. */
	dev_t dev;
	ino_t ino;
	struct timespec mtime;
};

/*
 * One registration's parts. A later registration of the same bytes
 * replaces a set whose files changed, but the old set lives until the
 * stop: a connection may be serving from it.
 */
struct part_set {
	struct part *parts;
	size_t nr;
	struct part_set *older;
};

struct artifact {
	char sha[SHA256_HEX_SIZE];
	uint64_t size;
	struct part_set *set;
	unsigned fetched;
	unsigned asked; /* requests for it, HEAD too, served or not */
	char *last_peer;
};

struct artifact_server {
	char *label;
	char *where; /* "10.1.2.3:7780", "[::1]:7780" */
	uint16_t port;
	int lfd, wake;
	bool running;
	pthread_t thread;
	/* The table, the fetch counts and the count of connections. */
	pthread_mutex_t lock;
	pthread_cond_t idle;
	/* Pointers: a connection holds one across a growth of the table. */
	struct artifact **arts;
	size_t nr, alloc;
	unsigned conns;
};

struct conn {
	struct artifact_server *s;
	int fd;
	char peer[INET6_ADDRSTRLEN];
};

/* ---- the table ---- */

static bool part__same(const struct part *p, const struct stat *st)
{
	return S_ISREG(st->st_mode) && (uint64_t)st->st_size == p->len &&
	       st->st_dev == p->dev && st->st_ino == p->ino &&
	       st->st_mtim.tv_sec == p->mtime.tv_sec &&
	       st->st_mtim.tv_nsec == p->mtime.tv_nsec;
}

static void part_set__free(struct part_set *set)
{
	while (set) {
		struct part_set *older = set->older;

		for (size_t i = 0; i < set->nr; i++) {
			struct part *p = &set->parts[i];

			if (p->buf)
				explicit_bzero(p->buf, p->len);
			free_all(p->buf, p->path);
		}
		free(set->parts);
		free(set);
		set = older;
	}
}

/* Whether every file of @set is still as it was hashed. */
static bool part_set__fresh(const struct part_set *set)
{
	struct stat st;

	for (size_t i = 0; i < set->nr; i++) {
		const struct part *p = &set->parts[i];

		if (p->path && (stat(p->path, &st) || !part__same(p, &st)))
			return false;
	}
	return true;
}

/* @path opened, and what it is in @st: the fd or -errno. */
static int open_stat(const char *path, struct stat *st)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0 || !fstat(fd, st))
		return fd < 0 ? -errno : fd;
	ret = -errno;
	close(fd);
	return ret;
}

/* Hash the file @path into @h and note in @p what it was. */
static int part__hash_file(struct part *p, const char *path, struct sha256 *h)
{
	uint8_t buf[65536];
	struct stat st, after;
	uint64_t done = 0;
	ssize_t n;
	int fd, ret = 0;

	fd = open_stat(path, &st);
	if (fd < 0)
		return fd;
	if (!S_ISREG(st.st_mode)) {
		ret = -EINVAL;
		goto out;
	}
	while ((n = read_retry(fd, buf, sizeof(buf))) > 0) {
		sha256__update(h, buf, n);
		done += n;
	}
	if (n < 0) {
		ret = (int)n;
		goto out;
	}
	p->path = xstrdup(path);
	p->len = done;
	p->dev = st.st_dev;
	p->ino = st.st_ino;
	p->mtime = st.st_mtim;
	/* Written to while it was read: the digest may be of neither. */
	if (fstat(fd, &after) || !part__same(p, &after))
		ret = -EAGAIN;
out:
	close(fd);
	return ret;
}

static const char *hash_error(int ret)
{
	switch (ret) {
	case -EINVAL:
		return "not a regular file";
	case -EAGAIN:
		return "it changed while it was read";
	default:
		return strerror(-ret);
	}
}

static struct artifact *artifact_find(struct artifact_server *s,
				      const char *sha)
{
	for (size_t i = 0; i < s->nr; i++)
		if (!strcmp(s->arts[i]->sha, sha))
			return s->arts[i];
	return NULL;
}

int artifact_server__add(struct artifact_server *s,
			 const struct artifact_part *parts, size_t nr,
			 char sha[SHA256_HEX_SIZE], uint64_t *size, char **err)
{
	struct part_set *set = xcalloc(1, sizeof(*set));
	struct artifact *a;
	uint64_t total = 0;
	struct sha256 h;
	int ret = 0;

	set->parts = xcalloc(nr ?: 1, sizeof(*set->parts));
	set->nr = nr;
	sha256__init(&h);
	for (size_t i = 0; i < nr; i++) {
		struct part *p = &set->parts[i];

		if (parts[i].path) {
			ret = part__hash_file(p, parts[i].path, &h);
			if (ret) {
				errmsg__set(err, ret, "%s: cannot serve %s: %s",
					    s->label, parts[i].path,
					    hash_error(ret));
				goto fail;
			}
		} else if (!parts[i].buf && parts[i].len) {
			ret = errmsg__set(err, -EINVAL,
					  "%s: an artifact's part %zu has "
					  "neither a file nor bytes",
					  s->label, i);
			goto fail;
		} else {
			p->len = parts[i].len;
			p->buf = xmalloc(p->len ?: 1);
			memcpy(p->buf, parts[i].buf, p->len);
			sha256__update(&h, p->buf, p->len);
		}
		total += p->len;
	}
	sha256__final_hex(&h, sha);
	*size = total;

	pthread_mutex_lock(&s->lock);
	a = artifact_find(s, sha);
	if (a && part_set__fresh(a->set)) {
		part_set__free(set);
	} else if (a) {
		set->older = a->set;
		a->set = set;
	} else {
		a = xcalloc(1, sizeof(*a));
		memcpy(a->sha, sha, SHA256_HEX_SIZE);
		a->size = total;
		a->set = set;
		ALLOC_GROW(s->arts, s->nr + 1, s->alloc);
		s->arts[s->nr++] = a;
	}
	pthread_mutex_unlock(&s->lock);
	return 0;
fail:
	part_set__free(set);
	return ret;
}

size_t artifact_server__nr(struct artifact_server *s)
{
	size_t nr;

	pthread_mutex_lock(&s->lock);
	nr = s->nr;
	pthread_mutex_unlock(&s->lock);
	return nr;
}

/* How often @sha was asked for and fetched whole, and by whom last. */
static void artifact_counts(struct artifact_server *s, const char *sha,
			    unsigned *asked, unsigned *fetched,
			    char **last_peer)
{
	struct artifact *a;

	*asked = *fetched = 0;
	pthread_mutex_lock(&s->lock);
	a = artifact_find(s, sha);
	if (a) {
		*asked = a->asked;
		*fetched = a->fetched;
		if (last_peer && a->last_peer)
			*last_peer = xstrdup(a->last_peer);
	}
	pthread_mutex_unlock(&s->lock);
}

unsigned artifact_server__fetched(struct artifact_server *s, const char *sha,
				  char **last_peer)
{
	unsigned asked, n;

	if (last_peer)
		*last_peer = NULL;
	artifact_counts(s, sha, &asked, &n, last_peer);
	return n;
}

unsigned artifact_server__asked(struct artifact_server *s, const char *sha)
{
	unsigned n, fetched;

	artifact_counts(s, sha, &n, &fetched, NULL);
	return n;
}

unsigned artifact_server__conns(struct artifact_server *s)
{
	unsigned n;

	pthread_mutex_lock(&s->lock);
	n = s->conns;
	pthread_mutex_unlock(&s->lock);
	return n;
}

/* ---- one connection ---- */

/*
 * Wait until @fd is ready for @events or @deadline (mono_ms) passes:
 * 0, -ETIMEDOUT, -ECANCELED when the server stops, or -errno.
 */
static int conn__wait(struct conn *c, short events, int64_t deadline)
{
	for (;;) {
		struct pollfd p[2] = {
			{ .fd = c->fd, .events = events },
			{ .fd = c->s->wake, .events = POLLIN },
		};
		int64_t left = deadline - mono_ms();
		int n;

		if (left <= 0)
			return -ETIMEDOUT;
		n = poll(p, 2, left > INT32_MAX ? INT32_MAX : (int)left);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (p[1].revents)
			return -ECANCELED;
		/* An error or a hang-up shows in the read or write itself. */
		if (p[0].revents)
			return 0;
	}
}

static int conn__send(struct conn *c, const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t n;
	int ret;

	while (len) {
		n = send(c->fd, p, len, MSG_NOSIGNAL);
		if (n > 0) {
			p += n;
			len -= n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno != EAGAIN)
			return -errno;
		ret = conn__wait(c, POLLOUT, mono_ms() + STALL_MS);
		if (ret)
			return ret;
	}
	return 0;
}

static int conn__sendfile(struct conn *c, int fd, uint64_t len)
{
	static const struct timespec now;
	off_t off = 0;
	ssize_t n;
	int ret;

	while ((uint64_t)off < len) {
		uint64_t left = len - off;

		n = sendfile(c->fd, fd, &off,
			     left < SENDFILE_CHUNK ? left : SENDFILE_CHUNK);
		if (n > 0)
			continue;
		/* Shorter than it was when it was checked. */
		if (n == 0)
			return -ESTALE;
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN) {
			ret = -errno;
			if (ret == -EPIPE) {
				sigset_t pipe;

				/* Blocked in this thread: taken, not left. */
				sigemptyset(&pipe);
				sigaddset(&pipe, SIGPIPE);
				sigtimedwait(&pipe, NULL, &now);
			}
			return ret;
		}
		ret = conn__wait(c, POLLOUT, mono_ms() + STALL_MS);
		if (ret)
			return ret;
	}
	return 0;
}

static const char *reason(int status)
{
	switch (status) {
	case 200:
		return "OK";
	case 400:
		return "Bad Request";
	case 404:
		return "Not Found";
	case 405:
		return "Method Not Allowed";
	case 408:
		return "Request Timeout";
	case 431:
		return "Request Header Fields Too Large";
	case 500:
		return "Internal Server Error";
	case 503:
		return "Service Unavailable";
	default:
		return "Error";
	}
}

/* An answer that is not the artifact: its status in words, and no more. */
static int conn__refuse(struct conn *c, int status, bool head)
{
	char body[64], msg[512];
	int n;

	snprintf(body, sizeof(body), "%d %s\n", status, reason(status));
	n = snprintf(msg, sizeof(msg),
		     "HTTP/1.1 %d %s\r\n"
		     "Content-Type: text/plain\r\n"
		     "Content-Length: %zu\r\n"
		     "%s"
		     "Connection: close\r\n\r\n%s",
		     status, reason(status), strlen(body),
		     status == 405 ? "Allow: GET, HEAD\r\n" : "",
		     head ? "" : body);
	pr_debug("%s: artifact server: %d %s to %s", c->s->label, status,
		 reason(status), c->peer);
	return conn__send(c, msg, n);
}

/*
 * Read the request's line and headers into @buf (HEAD_MAX + 1 bytes),
 * NUL-terminated after the empty line that ends them. 0, or the HTTP
 * status to refuse it with, or a negative errno: no answer.
 */
static int conn__read_head(struct conn *c, char *buf)
{
	int64_t deadline = mono_ms() + REQUEST_MS;
	size_t len = 0;
	char *end;
	ssize_t n;
	int ret;

	for (;;) {
		buf[len] = '\0';
		end = strstr(buf, "\r\n\r\n");
		if (end) {
			end[4] = '\0';
			break;
		}
		end = strstr(buf, "\n\n");
		if (end) {
			end[2] = '\0';
			break;
		}
		if (len == HEAD_MAX)
			return 431;
		n = read(c->fd, buf + len, HEAD_MAX - len);
		if (n > 0) {
			/* A NUL would hide the rest from the parser. */
			if (memchr(buf + len, '\0', n))
				return 400;
			len += n;
			continue;
		}
		if (n == 0)
			return -ECONNRESET;
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN)
			return -errno;
		ret = conn__wait(c, POLLIN, deadline);
		if (ret == -ETIMEDOUT)
			return len ? 408 : ret;
		if (ret)
			return ret;
	}
	return 0;
}

static bool is_tchar(int ch)
{
	return isalnum(ch) || (ch && strchr("!#$%&'*+-.^_`|~", ch));
}

/*
 * The request in @head: 0 with its method and target, or the status to
 * refuse it with. Its headers are checked for their form only: nothing
 * in them changes the answer.
 */
static int parse_request(char *head, const char **method, const char **target)
{
	char *line = head, *next, *version, *p;

	next = strchr(line, '\n');
	if (next > line && next[-1] == '\r')
		next[-1] = '\0';
	*next++ = '\0';
	*method = line;
	p = strchr(line, ' ');
	if (!p || p == line)
		return 400;
	*p++ = '\0';
	*target = p;
	p = strchr(p, ' ');
	if (!p || p == *target)
		return 400;
	*p++ = '\0';
	version = p;
	for (p = line; *p; p++)
		if (!is_tchar((unsigned char)*p))
			return 400;
	for (p = (char *)*target; *p; p++)
		if ((unsigned char)*p <= ' ' || (unsigned char)*p >= 0x7f)
			return 400;
	if (strncmp(version, "HTTP/1.", 7) || !isdigit(version[7]) ||
	    version[8])
		return 400;

	for (line = next; *line && *line != '\r' && *line != '\n';
	     line = next) {
		char *colon = strchr(line, ':');

		next = strchr(line, '\n') + 1;
		if (!colon || colon >= next || colon == line)
			return 400;
		for (p = line; p < colon; p++)
			if (!is_tchar((unsigned char)*p))
				return 400;
	}
	if (strcmp(*method, "GET") && strcmp(*method, "HEAD"))
		return 405;
	return 0;
}

/* The sha256 that @target names, into @sha, or false. */
static bool target_sha(const char *target, char sha[SHA256_HEX_SIZE])
{
	size_t n = strlen(PATH_PREFIX);

	if (strncmp(target, PATH_PREFIX, n) ||
	    strlen(target + n) != 2 * SHA256_DIGEST_SIZE)
		return false;
	for (const char *p = target + n; *p; p++)
		if (!isdigit((unsigned char)*p) && (*p < 'a' || *p > 'f'))
			return false;
	memcpy(sha, target + n, SHA256_HEX_SIZE);
	return true;
}

/* Open the files of @set as they were hashed, into @fds: 0 or -ESTALE. */
static int part_set__open(const struct part_set *set, int *fds,
			  const struct part **bad)
{
	struct stat st;

	for (size_t i = 0; i < set->nr; i++) {
		const struct part *p = &set->parts[i];

		if (!p->path)
			continue;
		fds[i] = open_stat(p->path, &st);
		if (fds[i] < 0 || !part__same(p, &st)) {
			*bad = p;
			return -ESTALE;
		}
	}
	return 0;
}

/* Whether the open files of @set are still as they were hashed. */
static bool part_set__still(const struct part_set *set, const int *fds)
{
	struct stat st;

	for (size_t i = 0; i < set->nr; i++)
		if (set->parts[i].path &&
		    (fstat(fds[i], &st) || !part__same(&set->parts[i], &st)))
			return false;
	return true;
}

static int conn__serve(struct conn *c, const char *sha, bool head)
{
	struct artifact_server *s = c->s;
	const struct part *bad = NULL;
	struct part_set *set = NULL;
	struct artifact *a;
	uint64_t size = 0;
	char msg[256];
	int *fds, ret;
	size_t i;

	pthread_mutex_lock(&s->lock);
	a = artifact_find(s, sha);
	if (a) {
		set = a->set;
		size = a->size;
		a->asked++;
	}
	pthread_mutex_unlock(&s->lock);
	if (!set)
		return conn__refuse(c, 404, head);

	fds = xmalloc((set->nr ?: 1) * sizeof(*fds));
	for (i = 0; i < set->nr; i++)
		fds[i] = -1;
	ret = part_set__open(set, fds, &bad);
	if (ret) {
		pr_warn("%s: artifact %s not served: %s changed or went "
			"away since it was added",
			s->label, sha, bad->path);
		ret = conn__refuse(c, 500, head);
		goto out;
	}
	snprintf(msg, sizeof(msg),
		 "HTTP/1.1 200 OK\r\n"
		 "Content-Type: application/octet-stream\r\n"
		 "Content-Length: %" PRIu64 "\r\n"
		 "Connection: close\r\n\r\n",
		 size);
	ret = conn__send(c, msg, strlen(msg));
	if (ret || head)
		goto out;
	for (i = 0; i < set->nr && !ret; i++) {
		const struct part *p = &set->parts[i];

		ret = p->path ? conn__sendfile(c, fds[i], p->len) :
				conn__send(c, p->buf, p->len);
	}
	if (!ret && !part_set__still(set, fds))
		ret = -ESTALE;
	if (ret == -ESTALE)
		pr_warn("%s: artifact %s: a file of it changed while it was "
			"served to %s",
			s->label, sha, c->peer);
	if (ret)
		goto out;
	pthread_mutex_lock(&s->lock);
	a->fetched++;
	free(a->last_peer);
	a->last_peer = xstrdup(c->peer);
	pthread_mutex_unlock(&s->lock);
	pr_debug("%s: artifact %s served to %s: %" PRIu64 " bytes", s->label,
		 sha, c->peer, size);
out:
	for (i = 0; i < set->nr; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	free(fds);
	return ret;
}

/*
 * Close after the answer without losing it: a close with unread bytes
 * (a body, headers past HEAD_MAX) would reset the connection, and the
 * client's kernel may then drop the answer before the client reads it.
 */
static void conn__close(struct conn *c, int64_t linger_ms)
{
	int64_t deadline = mono_ms() + linger_ms;
	size_t taken = 0;
	char buf[4096];
	ssize_t n;

	shutdown(c->fd, SHUT_WR);
	while (taken < LINGER_MAX) {
		n = read(c->fd, buf, sizeof(buf));
		if (n > 0) {
			taken += n;
			continue;
		}
		if (n == 0 || (errno != EAGAIN && errno != EINTR))
			break;
		if (errno == EAGAIN && conn__wait(c, POLLIN, deadline))
			break;
	}
	close(c->fd);
}

static void conn__handle(struct conn *c)
{
	const char *method, *target;
	char head[HEAD_MAX + 1], sha[SHA256_HEX_SIZE];
	bool is_head;
	int ret;

	ret = conn__read_head(c, head);
	if (ret < 0)
		return;
	if (!ret)
		ret = parse_request(head, &method, &target);
	if (ret) {
		conn__refuse(c, ret, false);
		return;
	}
	is_head = !strcmp(method, "HEAD");
	if (!target_sha(target, sha)) {
		conn__refuse(c, 404, is_head);
		return;
	}
	ret = conn__serve(c, sha, is_head);
	if (ret == -ESTALE) {
		/* A reset, not an end: the client must not take these bytes. */
		struct linger l = { .l_onoff = 1, .l_linger = 0 };

		setsockopt(c->fd, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
	}
}

static void *conn_main(void *arg)
{
	struct conn *c = arg;
	struct artifact_server *s = c->s;

	conn__handle(c);
	conn__close(c, LINGER_MS);
	free(c);
	pthread_mutex_lock(&s->lock);
	if (!--s->conns)
		pthread_cond_broadcast(&s->idle);
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

/* ---- the listening thread ---- */

/*
 * A connection beyond MAX_CONNS: 503, after its request if that comes
 * at once (unread, it would turn the close into a reset).
 */
static void conn__reject(struct conn *c)
{
	char buf[4096];
	int64_t deadline = mono_ms() + REJECT_MS;

	if (!conn__wait(c, POLLIN, deadline))
		while (read(c->fd, buf, sizeof(buf)) > 0)
			;
	conn__refuse(c, 503, false);
	conn__close(c, 0);
}

static void peer_text(const struct sockaddr_storage *ss, char *out, size_t size)
{
	const struct sockaddr_in6 *in6 = (const void *)ss;
	const struct sockaddr_in *in = (const void *)ss;

	if (ss->ss_family == AF_INET)
		inet_ntop(AF_INET, &in->sin_addr, out, size);
	else if (IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr))
		/* A worker on IPv4 to a server on "::". */
		inet_ntop(AF_INET, &in6->sin6_addr.s6_addr[12], out, size);
	else
		inet_ntop(AF_INET6, &in6->sin6_addr, out, size);
}

static void server__accept(struct artifact_server *s)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	pthread_attr_t attr;
	pthread_t thread;
	struct conn *c;
	bool full;
	int fd;

	fd = accept4(s->lfd, (struct sockaddr *)&ss, &len,
		     SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (fd < 0) {
		if (errno == EAGAIN || errno == EINTR || errno == ECONNABORTED)
			return;
		pr_warn("%s: the artifact server cannot accept a connection: "
			"%s",
			s->label, strerror(errno));
		/* Out of descriptors or memory: not a busy loop meanwhile. */
		poll(&(struct pollfd){ .fd = s->wake, .events = POLLIN }, 1,
		     100);
		return;
	}
	c = xcalloc(1, sizeof(*c));
	c->s = s;
	c->fd = fd;
	peer_text(&ss, c->peer, sizeof(c->peer));
	pthread_mutex_lock(&s->lock);
	full = s->conns >= MAX_CONNS;
	if (!full)
		s->conns++;
	pthread_mutex_unlock(&s->lock);
	if (!full) {
		pthread_attr_init(&attr);
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		full = pthread_create(&thread, &attr, conn_main, c) != 0;
		pthread_attr_destroy(&attr);
		if (!full)
			return;
		pthread_mutex_lock(&s->lock);
		s->conns--;
		pthread_mutex_unlock(&s->lock);
	}
	conn__reject(c);
	free(c);
}

static void *server_main(void *arg)
{
	struct artifact_server *s = arg;

	for (;;) {
		struct pollfd p[2] = {
			{ .fd = s->lfd, .events = POLLIN },
			{ .fd = s->wake, .events = POLLIN },
		};

		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			pr_warn("%s: the artifact server stops: poll: %s",
				s->label, strerror(errno));
			break;
		}
		if (p[1].revents)
			break;
		if (p[0].revents)
			server__accept(s);
	}
	return NULL;
}

/* ---- the server ---- */

/* "ADDR:PORT", IPv6 in brackets, as a URL and a message write it. */
static char *where_text(const struct sockaddr_storage *ss, uint16_t port)
{
	const struct sockaddr_in6 *in6 = (const void *)ss;
	const struct sockaddr_in *in = (const void *)ss;
	char host[INET6_ADDRSTRLEN];

	if (ss->ss_family == AF_INET)
		inet_ntop(AF_INET, &in->sin_addr, host, sizeof(host));
	else
		inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof(host));
	return ss->ss_family == AF_INET6 ?
		       xasprintf("[%s]:%u", host, (unsigned)port) :
		       xasprintf("%s:%u", host, (unsigned)port);
}

static int server__listen(struct artifact_server *s,
			  const struct sockaddr_storage *ss, socklen_t len)
{
	struct sockaddr_storage bound;
	socklen_t blen = sizeof(bound);
	int one = 1;

	s->lfd = socket(ss->ss_family,
			SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (s->lfd < 0)
		return -errno;
	if (setsockopt(s->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(s->lfd, (const struct sockaddr *)ss, len) ||
	    listen(s->lfd, 64) ||
	    getsockname(s->lfd, (struct sockaddr *)&bound, &blen))
		return -errno;
	s->port = ntohs(bound.ss_family == AF_INET ?
				((struct sockaddr_in *)&bound)->sin_port :
				((struct sockaddr_in6 *)&bound)->sin6_port);
	return 0;
}

int artifact_server__start(const char *addr, uint16_t port, const char *label,
			   struct artifact_server **out, char **err)
{
	struct artifact_server *s;
	struct sockaddr_storage ss;
	sigset_t all, old;
	socklen_t len;
	int ret;

	*out = NULL;
	if (chan_addr__make(addr, port, &ss, &len))
		return errmsg__set(err, -EINVAL,
				   "%s: the artifact server's address '%s' is "
				   "not an IPv4 or IPv6 address",
				   label, addr);
	s = xcalloc(1, sizeof(*s));
	s->label = xstrdup(label);
	s->lfd = s->wake = -1;
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->idle, NULL);
	ret = server__listen(s, &ss, len);
	s->where = where_text(&ss, ret ? port : s->port);
	if (ret) {
		errmsg__set(err, ret,
			    "%s: the artifact server cannot listen on %s: %s",
			    label, s->where, strerror(-ret));
		goto fail;
	}
	s->wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (s->wake < 0) {
		ret = -errno;
		goto fail_start;
	}
	/* The process's signals are the main thread's, not these threads'. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = -pthread_create(&s->thread, NULL, server_main, s);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret)
		goto fail_start;
	s->running = true;
	*out = s;
	return 0;
fail_start:
	errmsg__set(err, ret, "%s: the artifact server on %s cannot start: %s",
		    label, s->where, strerror(-ret));
fail:
	artifact_server__stop(s);
	return ret;
}

uint16_t artifact_server__port(const struct artifact_server *s)
{
	return s->port;
}

char *artifact_server__url(const struct artifact_server *s, const char *sha)
{
	return xasprintf("http://%s/sha256/%s", s->where, sha);
}

void artifact_server__stop(struct artifact_server *s)
{
	uint64_t one = 1;

	if (!s)
		return;
	if (s->running) {
		if (write(s->wake, &one, sizeof(one)) != sizeof(one))
			pr_warn("%s: cannot stop the artifact server: %s",
				s->label, strerror(errno));
		pthread_join(s->thread, NULL);
		/* The connections see the same eventfd and end. */
		pthread_mutex_lock(&s->lock);
		while (s->conns)
			pthread_cond_wait(&s->idle, &s->lock);
		pthread_mutex_unlock(&s->lock);
	}
	if (s->lfd >= 0)
		close(s->lfd);
	if (s->wake >= 0)
		close(s->wake);
	for (size_t i = 0; i < s->nr; i++) {
		part_set__free(s->arts[i]->set);
		free_all(s->arts[i]->last_peer, s->arts[i]);
	}
	pthread_cond_destroy(&s->idle);
	pthread_mutex_destroy(&s->lock);
	free_all(s->arts, s->where, s->label, s);
}

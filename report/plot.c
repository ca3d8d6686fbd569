// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clock.h"
#include "log.h"
#include "plot.h"
#include "util.h"

extern char **environ;

void plot__begin(struct plot *p, int width, int height)
{
	memset(p, 0, sizeof(*p));
	p->fp = open_memstream(&p->script, &p->len);
	if (!p->fp) {
		pr_err("out of memory for a plot script");
		exit(EXIT_WORK_FAILED);
	}
	/*
	 * noenhanced: names like tcp_rx must not turn into subscripts.
	 * No "mouse": that option would add a <script> to the SVG.
	 */
	plot__printf(p,
		     "set terminal svg size %d,%d dynamic noenhanced "
		     "font 'sans,12' background '#ffffff'\n"
		     "set encoding utf8\nset border lc rgb '#555555'\n"
		     "set grid ytics lc rgb '#dddddd'\n",
		     width, height);
}

void plot__printf(struct plot *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(p->fp, fmt, ap);
	va_end(ap);
}

void plot__quote(struct plot *p, const char *s)
{
	FILE *fp = p->fp;

	fputc('\'', fp);
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '\'')
			fputs("''", fp);
		else if (c < 0x20 || c == 0x7f)
			fputc(' ', fp);
		else if (c >= 0x80)
			fputc(c >= 0xc2 && c <= 0xf4 ? c : '?', fp);
		else
			fputc(c, fp);
	}
	fputc('\'', fp);
}

void plot__release(struct plot *p)
{
	if (p->fp)
		fclose(p->fp);
	free(p->script);
	memset(p, 0, sizeof(*p));
}

struct buf {
	char *s;
	size_t len, alloc;
};

static int drain(int fd, struct buf *b)
{
	ssize_t n;

	ALLOC_GROW(b->s, b->len + 65536, b->alloc);
	n = read(fd, b->s + b->len, b->alloc - b->len - 1);
	if (n > 0)
		b->len += n;
	b->s[b->len] = '\0';
	return n < 0 && errno != EINTR && errno != EAGAIN ? -errno : (int)n;
}

/*
 * Feed @in to the child's stdin while reading its stdout and stderr:
 * writing everything first could deadlock against a child that writes
 * a full pipe before it reads the rest of its script.
 */
static int pump(int fds[3], const char *in, size_t len, struct buf *out,
		struct buf *err)
{
	size_t off = 0;
	double deadline = mono_ns() / 1e9 + PLOT_TIMEOUT_S;
	struct pollfd pfd[3];
	int n, i, open = 3;
	ssize_t w;

	while (open) {
		for (i = 0; i < 3; i++) {
			pfd[i].fd = fds[i];
			pfd[i].events = i ? POLLIN : POLLOUT;
		}
		n = poll(pfd, 3, 1000);
		if (n < 0 && errno != EINTR)
			return -errno;
		if (mono_ns() / 1e9 > deadline)
			return -ETIMEDOUT;
		if (fds[0] >= 0 && pfd[0].revents) {
			w = write(fds[0], in + off, len - off);
			if (w > 0)
				off += w;
			if ((w < 0 && errno != EINTR && errno != EAGAIN) ||
			    off == len) {
				close(fds[0]);
				fds[0] = -1;
				open--;
			}
		}
		for (i = 1; i < 3; i++) {
			if (fds[i] < 0 || !pfd[i].revents)
				continue;
			if (drain(fds[i], i == 1 ? out : err) <= 0) {
				close(fds[i]);
				fds[i] = -1;
				open--;
			}
		}
	}
	return 0;
}

static int run_gnuplot(const char *script, size_t len, struct buf *out,
		       struct buf *err, int *status)
{
	static char *const argv[] = { "gnuplot", "-d", NULL };
	int in_p[2] = { -1, -1 }, out_p[2] = { -1, -1 }, err_p[2] = { -1, -1 };
	int fds[3], rc, e, i;
	posix_spawn_file_actions_t fa;
	pid_t pid;

	if (pipe2(in_p, O_CLOEXEC) || pipe2(out_p, O_CLOEXEC) ||
	    pipe2(err_p, O_CLOEXEC)) {
		rc = -errno;
		goto out;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, in_p[0], 0);
	posix_spawn_file_actions_adddup2(&fa, out_p[1], 1);
	posix_spawn_file_actions_adddup2(&fa, err_p[1], 2);
	e = posix_spawnp(&pid, "gnuplot", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (e) {
		rc = -e;
		goto out;
	}
	close(in_p[0]);
	close(out_p[1]);
	close(err_p[1]);
	in_p[0] = out_p[1] = err_p[1] = -1;
	fcntl(in_p[1], F_SETFL, O_NONBLOCK);
	fds[0] = in_p[1];
	fds[1] = out_p[0];
	fds[2] = err_p[0];
	in_p[1] = out_p[0] = err_p[0] = -1;
	/* A child that died early must not kill us with SIGPIPE. */
	signal(SIGPIPE, SIG_IGN);
	rc = pump(fds, script, len, out, err);
	for (i = 0; i < 3; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	if (rc == -ETIMEDOUT)
		kill(pid, SIGKILL);
	while (waitpid(pid, status, 0) < 0 && errno == EINTR)
		;
out:
	for (i = 0; i < 2; i++) {
		if (in_p[i] >= 0)
			close(in_p[i]);
		if (out_p[i] >= 0)
			close(out_p[i]);
		if (err_p[i] >= 0)
			close(err_p[i]);
	}
	return rc;
}

/* Copy @svg, dropping the prolog and prefixing ids and references. */
static char *fix_svg(const char *svg, const char *id)
{
	static const char *const refs[] = { "id=\"", "id='", "href=\"#",
					    "href='#", "url(#" };
	const char *p = strstr(svg, "<svg");
	char *out = NULL;
	size_t len = 0, i, n;
	FILE *fp;

	if (!p)
		return NULL;
	fp = open_memstream(&out, &len);
	while (*p) {
		for (i = 0; i < ARRAY_SIZE(refs); i++) {
			n = strlen(refs[i]);
			/* " id=" only: not "gpid=" or "valid=". */
			if (!strncmp(p, refs[i], n) &&
			    (p[-1] == ' ' || p[-1] == '\t' || p[-1] == '\n' ||
			     p[-1] == ':' || refs[i][0] == 'u'))
				break;
		}
		if (i < ARRAY_SIZE(refs)) {
			fwrite(p, 1, n, fp);
			fprintf(fp, "%s-", id);
			p += n;
			continue;
		}
		fputc(*p++, fp);
	}
	fclose(fp);
	return out;
}

int plot__render(struct plot *p, const char *id, char **svg)
{
	struct buf out = { 0 }, err = { 0 };
	int status = 0, rc;

	*svg = NULL;
	fflush(p->fp);
	rc = run_gnuplot(p->script, p->len, &out, &err, &status);
	if (rc == -ENOENT)
		pr_err("gnuplot not found: install gnuplot-nox for the plots");
	else if (rc == -ETIMEDOUT)
		pr_err("plot %s: gnuplot took over %d s; killed", id,
		       PLOT_TIMEOUT_S);
	else if (rc)
		pr_err("plot %s: running gnuplot: %s", id, strerror(-rc));
	else if (!WIFEXITED(status) || WEXITSTATUS(status) ||
		 !(*svg = fix_svg(out.s ? out.s : "", id))) {
		pr_err("plot %s: gnuplot failed: %s", id,
		       err.s && *err.s ? err.s : "no SVG");
		pr_debug("plot %s script:\n%s", id, p->script);
		rc = -EIO;
	}
	free(out.s);
	free(err.s);
	return rc;
}

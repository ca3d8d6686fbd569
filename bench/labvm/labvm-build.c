// SPDX-License-Identifier: GPL-2.0-only
/*
 * The commands of an image build. debootstrap alone writes thousands of
 * lines over minutes: they go to the build's log, and the user sees a
 * line per phase and, every ~10 s, how long it has run and the log's
 * last line. A failed command's error is the log's tail.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/labvm/labvm-priv.h"
#include "clock.h"
#include "errmsg.h"
#include "log.h"
#include "subprocess.h"
#include "util.h"

#define TICK_MS 1000
#define PROGRESS_S 10.0
#define STOP_GRACE_MS 5000
#define TAIL_BYTES 4096

int (*labvm_interrupted)(void);

static double now_s(void)
{
	return mono_ns() / 1e9;
}

void labvm_build__phase(struct labvm_build *b, const char *phase)
{
	double t = now_s();

	if (!b->start)
		b->start = t;
	b->phase = phase;
	b->phase_start = b->last_tick = t;
	pr_info("labvm build: %s (%.0f s in)", phase, t - b->start);
	dprintf(b->log_fd, "=== %s\n", phase);
}

/* The last @lines lines of the log, for an error message. */
static char *log_tail(int fd, int lines)
{
	char buf[TAIL_BYTES + 1], *p;
	off_t end = lseek(fd, 0, SEEK_END), from;
	ssize_t n;

	from = end > TAIL_BYTES ? end - TAIL_BYTES : 0;
	n = pread(fd, buf, TAIL_BYTES, from);
	if (n <= 0)
		return xstrdup("");
	buf[n] = '\0';
	p = buf + n;
	while (p > buf && p[-1] == '\n')
		*--p = '\0';
	while (p > buf && !(p[-1] == '\n' && --lines <= 0))
		p--;
	return xstrdup(p);
}

void labvm_build__tick(struct labvm_build *b)
{
	char *tail, line[160];
	double t = now_s();

	if (t - b->last_tick < PROGRESS_S)
		return;
	b->last_tick = t;
	tail = log_tail(b->log_fd, 1);
	pr_info("labvm build: %s, %.0f s (%.0f s in)%s%s", b->phase,
		t - b->phase_start, t - b->start, *tail ? ": " : "",
		spawn__last_line(tail, line, sizeof(line)));
	free(tail);
}

static int run(struct labvm_build *b, const char *const *argv, int timeout_ms,
	       const char *in, char **out, char **err)
{
	struct spawn_opts opts = {
		/* Captured: its stderr goes to the log once it is done. */
		.flags = out ? SPAWN_CAPTURE_OUT | SPAWN_CAPTURE_ERR :
			       SPAWN_ERR_TO_OUT,
		.out_to_fd = out ? 0 : b->log_fd,
		/* Killed with us, debootstrap stops unpacking. */
		.pdeathsig = SIGTERM,
		.in = in,
		.in_len = in ? strlen(in) : 0,
	};
	double deadline = now_s() + timeout_ms / 1000.0;
	char how[96], *tail;
	struct spawn sp;
	size_t i;
	int ret;

	dprintf(b->log_fd, "+");
	for (i = 0; argv[i]; i++)
		dprintf(b->log_fd, " %s", argv[i]);
	dprintf(b->log_fd, "\n");
	ret = spawn__argv(&sp, argv, &opts);
	if (ret)
		return errmsg__set(err, ret, "cannot run %s: %s", argv[0],
				   strerror(-ret));
	for (;;) {
		ret = spawn__wait(&sp, TICK_MS);
		if (ret != -ETIMEDOUT)
			break;
		labvm_build__tick(b);
		if (labvm_interrupted && labvm_interrupted()) {
			spawn__stop(&sp, SIGTERM, STOP_GRACE_MS);
			ret = errmsg__set(err, -EINTR,
					  "%s stopped: interrupted", argv[0]);
			goto out;
		}
		if (now_s() >= deadline) {
			spawn__stop(&sp, SIGTERM, STOP_GRACE_MS);
			ret = errmsg__set(err, -ETIMEDOUT,
					  "%s ran past %d s and was stopped",
					  argv[0], timeout_ms / 1000);
			goto out;
		}
	}
	if (ret) {
		errmsg__set(err, 0, "%s: %s", argv[0], strerror(-ret));
		goto out;
	}
	if (sp.err)
		write_all(b->log_fd, sp.err, sp.err_len);
	if (!spawn__succeeded(&sp)) {
		tail = log_tail(b->log_fd, 6);
		errmsg__set(err, 0,
			    "%s failed (%s); the build log %s ends:\n%s",
			    argv[0], spawn__describe(&sp, how, sizeof(how)),
			    b->log_path, tail);
		free(tail);
		ret = -EIO;
		goto out;
	}
	if (out) {
		*out = sp.out ? sp.out : xstrdup("");
		sp.out = NULL;
	}
out:
	spawn__release(&sp);
	return ret;
}

int labvm_build__run(struct labvm_build *b, const char *const *argv,
		     int timeout_ms, const char *in, char **err)
{
	return run(b, argv, timeout_ms, in, NULL, err);
}

int labvm_build__capture(struct labvm_build *b, const char *const *argv,
			 int timeout_ms, char **out, char **err)
{
	return run(b, argv, timeout_ms, NULL, out, err);
}

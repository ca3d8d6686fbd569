// SPDX-License-Identifier: GPL-2.0-only
/*
 * The commands of a build, each an argument vector with a timeout. Their
 * output goes straight into the build log rather than through us: a
 * kernel build writes tens of thousands of lines nobody reads unless it
 * fails, and then the log's tail is the error message.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/kbuild/kbuild.h"
#include "clock.h"
#include "errmsg.h"
#include "log.h"
#include "subprocess.h"
#include "util.h"

/* How often a running command is checked on (and progress printed). */
#define TICK_MS 1000
/* What a failed command's output may bring into an error message. */
#define OUTPUT_MAX (64 * 1024)
#define STOP_GRACE_MS 5000

/*
 * What a caller's environment must not bring into a build. make passes
 * its flags to every make below it: run from `make -s check`, the kernel
 * build was silent (no compile lines in its log); from `make -j2`, it
 * joined the outer make's jobserver instead of its own -j. Kbuild's own
 * variables (LOCALVERSION, KCONFIG_CONFIG, KCFLAGS, ...) would change
 * what is built without changing the cache key.
 */
static const char *const build_env_drop[] = {
	"MAKEFLAGS",	 "MFLAGS",     "GNUMAKEFLAGS", "MAKELEVEL",
	"MAKEOVERRIDES", "MAKEFILES",  "MAKE_TERMOUT", "MAKE_TERMERR",
	"KBUILD_*",	 "KCONFIG_*",  "KCFLAGS",      "KCPPFLAGS",
	"KAFLAGS",	 "KRUSTFLAGS", "LOCALVERSION", NULL,
};

/* The command line as the log shows it (never run through a shell). */
static void log_command(int log_fd, const char *const *argv)
{
	size_t i;

	dprintf(log_fd, "+");
	for (i = 0; argv[i]; i++)
		dprintf(log_fd, " %s", argv[i]);
	dprintf(log_fd, "\n");
}

/* What was appended to the log since @from, at most its last OUTPUT_MAX. */
static char *log_since(int log_fd, off_t from)
{
	off_t end = lseek(log_fd, 0, SEEK_END);
	size_t len;
	ssize_t n;
	char *buf;

	if (end < from)
		return xstrdup("");
	if (end - from > OUTPUT_MAX)
		from = end - OUTPUT_MAX;
	len = end - from;
	buf = xmalloc(len + 1);
	n = pread(log_fd, buf, len, from);
	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

int kbuild__run(const char *const *argv, int timeout_ms, int log_fd,
		struct kbuild_progress *p, char **output)
{
	/* Killed with us, make takes its jobs down with it. */
	struct spawn_opts opts = { .flags = SPAWN_ERR_TO_OUT,
				   .out_to_fd = log_fd,
				   .pdeathsig = SIGTERM,
				   .env_drop = build_env_drop };
	double deadline = mono_ns() / 1e9 + timeout_ms / 1000.0;
	off_t from = lseek(log_fd, 0, SEEK_END);
	char how[96];
	struct spawn sp;
	int ret;

	log_command(log_fd, argv);
	ret = spawn__argv(&sp, argv, &opts);
	if (ret) {
		dprintf(log_fd, "cannot run %s: %s\n", argv[0], strerror(-ret));
		goto out;
	}
	for (;;) {
		ret = spawn__wait(&sp, TICK_MS);
		if (ret != -ETIMEDOUT)
			break;
		if (p)
			kbuild_progress__tick(p, log_fd);
		if (mono_ns() / 1e9 >= deadline) {
			dprintf(log_fd,
				"iommu-bench: %s ran past %d s, "
				"stopped\n",
				argv[0], timeout_ms / 1000);
			spawn__stop(&sp, SIGTERM, STOP_GRACE_MS);
			ret = -ETIMEDOUT;
			goto out;
		}
	}
	if (ret)
		goto out;
	if (!spawn__succeeded(&sp)) {
		dprintf(log_fd, "iommu-bench: %s failed (%s)\n", argv[0],
			spawn__describe(&sp, how, sizeof(how)));
		ret = -EIO;
	}
out:
	if (ret && output)
		*output = log_since(log_fd, from);
	spawn__release(&sp);
	return ret;
}

int kbuild__capture(const char *const *argv, int timeout_ms, char **out,
		    char **err)
{
	struct spawn_opts opts = { .flags = SPAWN_CAPTURE_OUT |
					    SPAWN_CAPTURE_ERR,
				   .env_drop = build_env_drop };
	char how[96];
	struct spawn sp;
	int ret;

	ret = spawn__run(&sp, argv, &opts, timeout_ms);
	if (ret == -ETIMEDOUT) {
		errmsg__set(err, 0, "%s did not finish within %d s", argv[0],
			    timeout_ms / 1000);
		goto out;
	}
	if (ret) {
		errmsg__set(err, 0, "cannot run %s: %s", argv[0],
			    strerror(-ret));
		goto out;
	}
	if (!spawn__succeeded(&sp)) {
		ret = -EIO;
		errmsg__set(err, 0, "%s failed (%s): %s", argv[0],
			    spawn__describe(&sp, how, sizeof(how)),
			    sp.err ? kbuild__tail(sp.err, 5) : "");
		goto out;
	}
	*out = sp.out ? sp.out : xstrdup("");
	sp.out = NULL;
out:
	spawn__release(&sp);
	return ret;
}

const char *kbuild__tail(const char *text, int lines)
{
	const char *p = text + strlen(text);

	/* A trailing newline ends the last line; it does not start one. */
	if (p > text && p[-1] == '\n')
		p--;
	while (p > text) {
		if (p[-1] == '\n' && --lines <= 0)
			break;
		p--;
	}
	return p;
}

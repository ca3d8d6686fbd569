// SPDX-License-Identifier: GPL-2.0-only
/*
 * The helpers the transports share: where the agent binary
 * is, where per-run state lives, and running helper commands.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench/host/host-priv.h"
#include "bench/host/host.h"
#include "errmsg.h"
#include "log.h"
#include "subprocess.h"
#include "util.h"

#define STATE_DIR "/run/iommu-bench"

void host__say(const struct host *h, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	if (h->say)
		h->say(h->say_arg, s);
	else
		pr_info("%s", s);
	free(s);
}

void host_jobs__free(struct host_job *v, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		free_all(v[i].server, v[i].sha256, v[i].kernel, v[i].cmdline,
			 v[i].state, v[i].health, v[i].device, v[i].error);
	free(v);
}

const char *host__self_exe(void)
{
	return self_exe();
}

static int mkdir_p(const char *dir, mode_t mode)
{
	char *p = xstrdup(dir), *s;
	int ret = 0;

	for (s = p + 1;; s++) {
		char c = *s;

		if (c != '/' && c != '\0')
			continue;
		*s = '\0';
		if (mkdir(p, mode) && errno != EEXIST) {
			ret = -errno;
			break;
		}
		*s = c;
		if (!c)
			break;
	}
	free(p);
	return ret;
}

int host__state_dir(struct host *h, const char *sub, char **out, char **err)
{
	const char *base = h && h->state_dir ? h->state_dir : STATE_DIR;
	char *dir = xasprintf("%s/%s", base, sub);
	int ret;

	ret = mkdir_p(dir, 0700);
	if (ret) {
		errmsg__set(err, ret, "cannot create %s: %s", dir,
			    strerror(-ret));
		free(dir);
		return ret;
	}
	*out = dir;
	return 0;
}

int host__state_dir_lock(struct host *h, const char *kind, char **dir,
			 int *lock_fd, char **err)
{
	char *sub = xasprintf("%s-%s", kind, h->m->name), *lock;
	struct stat sb;
	int ret, tries = 0;

	*lock_fd = -1;
again:
	ret = host__state_dir(h, sub, dir, err);
	if (ret) {
		free(sub);
		return ret;
	}
	lock = xasprintf("%s/lock", *dir);
	*lock_fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	ret = *lock_fd < 0 ? -errno : 0;
	free(lock);
	if (ret == -ENOENT && tries++ < 8) {
		/* Its last holder removed the folder just now. */
		free(*dir);
		*dir = NULL;
		goto again;
	}
	if (!ret && flock(*lock_fd, LOCK_EX | LOCK_NB) < 0)
		ret = errno == EWOULDBLOCK ? -EBUSY : -errno;
	/*
	 * Its last holder unlinks the lock and removes the folder
	 * (qemu_vm__release()): a lock taken on the file it unlinked
	 * guards nothing, so make and take a new one.
	 */
	if (!ret && !fstat(*lock_fd, &sb) && !sb.st_nlink && tries++ < 8) {
		close(*lock_fd);
		*lock_fd = -1;
		free(*dir);
		*dir = NULL;
		goto again;
	}
	free(sub);
	if (ret == -EBUSY)
		errmsg__set(err, ret,
			    "host %s: %s is in use by another run; give this "
			    "host another name",
			    h->m->name, *dir);
	else if (ret)
		errmsg__set(err, ret, "host %s: cannot lock %s: %s", h->m->name,
			    *dir, strerror(-ret));
	/* Not ours: its release must not unlink another run's lock. */
	if (ret && *lock_fd >= 0) {
		close(*lock_fd);
		*lock_fd = -1;
	}
	return ret;
}

int host__cmd(const char *const *argv, int timeout_ms, char **out, char **err,
	      int *status)
{
	return spawn__cmd(argv, timeout_ms, out, err, status);
}

// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic-file.h"
#include "util.h"

/* Enough of the name to tell a leftover by, short of NAME_MAX. */
#define TMP_NAME_MAX 64

static char *tmp_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;

	return xasprintf("%.*s.tmp-%.*s.XXXXXX",
			 slash ? (int)(slash - path + 1) : 0, path,
			 TMP_NAME_MAX, base);
}

int atomic_file__open(struct atomic_file *af, const char *path, mode_t mode)
{
	int fd, err;

	memset(af, 0, sizeof(*af));
	if (!path || !strcmp(path, "-")) {
		af->fp = stdout;
		return 0;
	}
	af->tmp = tmp_name(path);
	fd = mkostemp(af->tmp, O_CLOEXEC);
	if (fd < 0 || fchmod(fd, mode) || !(af->fp = fdopen(fd, "w"))) {
		err = -errno;
		if (fd >= 0) {
			close(fd);
			unlink(af->tmp);
		}
		free(af->tmp);
		af->tmp = NULL;
		return err;
	}
	af->path = xstrdup(path);
	return 0;
}

static void release(struct atomic_file *af)
{
	free(af->path);
	free(af->tmp);
	memset(af, 0, sizeof(*af));
}

int atomic_file__commit(struct atomic_file *af)
{
	int err = 0;

	/* A stream that failed earlier keeps its errno only by luck. */
	errno = 0;
	if (fflush(af->fp) || ferror(af->fp))
		err = errno ? -errno : -EIO;
	if (!af->path) {
		release(af);
		return err;
	}
	/* The rename must never publish bytes the disk has not got. */
	if (!err && fsync(fileno(af->fp)))
		err = -errno;
	if (fclose(af->fp) && !err)
		err = -errno;
	if (!err && rename(af->tmp, af->path))
		err = -errno;
	if (err)
		unlink(af->tmp);
	release(af);
	return err;
}

void atomic_file__abort(struct atomic_file *af)
{
	if (af->path) {
		fclose(af->fp);
		unlink(af->tmp);
	}
	release(af);
}

int atomic_file__write(const char *path, const struct iovec *iov, int iovcnt)
{
	struct atomic_file af;
	int i, err;

	err = atomic_file__open(&af, path, 0644);
	if (err)
		return err;
	for (i = 0; i < iovcnt; i++)
		if (fwrite(iov[i].iov_base, 1, iov[i].iov_len, af.fp) !=
		    iov[i].iov_len)
			break;
	return atomic_file__commit(&af);
}

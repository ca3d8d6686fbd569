// SPDX-License-Identifier: GPL-2.0-only
/*
 * A lab machine's serial console, logged to a file the controller can
 * read (conserver, ipmitool sol's log, a VM's chardev): while a reboot
 * is awaited, a boot that has stopped for good says so there long
 * before the boot_timeout runs out. Only the kernel's own last words
 * count (bench/host/host-console.c), never a distribution's: they are
 * the same on every machine, and a boot that prints them will not
 * answer ssh without a power cycle.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/host/host-console.h"
#include "bench/host/ssh/ssh.h"
#include "util.h"

/* The most of a console read per look: a boot's output is far less. */
#define CONSOLE_READ_MAX (4U << 20)

int console__mark(const char *path, off_t *at)
{
	struct stat st;

	if (stat(path, &st))
		return -errno;
	*at = st.st_size;
	return 0;
}

int console__look(const char *path, off_t *at, char **line)
{
	char *buf;
	ssize_t n;
	size_t want;
	struct stat st;
	int fd, ret = 0;

	*line = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		ret = -errno;
		goto out;
	}
	/* Truncated or rotated: what is there now is all new. */
	if (st.st_size < *at)
		*at = 0;
	want = (size_t)(st.st_size - *at);
	if (!want)
		goto out;
	if (want > CONSOLE_READ_MAX)
		want = CONSOLE_READ_MAX;
	buf = xmalloc(want);
	n = pread(fd, buf, want, *at);
	if (n < 0) {
		ret = -errno;
	} else {
		/* Up to the last whole line: a half line is read again. */
		const char *nl = memrchr(buf, '\n', (size_t)n);
		size_t whole = nl ? (size_t)(nl - buf) + 1 : 0;

		*line = console__stopped(buf, whole);
		*at += (off_t)whole;
	}
	free(buf);
out:
	close(fd);
	return ret;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * A lab machine's serial console, logged to a file the controller can
 * read (conserver, ipmitool sol's log, a VM's chardev): while a reboot
 * is awaited, a boot that has stopped for good says so there long
 * before the boot_timeout runs out. Only the kernel's own last words
 * count, never a distribution's: they are the same on every machine,
 * and a boot that prints them will not answer ssh without a power
 * cycle.
 */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/host/host-console.h"
#include "util.h"

/* The most of a console read per look: a boot's output is far less. */
#define CONSOLE_READ_MAX (4U << 20)

/*
 * Every line a kernel in trouble begins with, for every transport: the
 * heads of its reports (their RIP and call trace follow) and its last
 * words (nothing follows them but a power cycle); a panic is both.
 */
static const struct {
	const char *words;
	bool report, last;
} dead_words[] = {
	{ "BUG: ", true, false },
	{ "Oops: ", true, false },
	{ "general protection fault", true, false },
	{ "kernel BUG at ", true, false },
	{ "Unable to handle kernel ", true, false }, /* arm64 */
	{ "Internal error: ", true, false },	     /* arm64 */
	{ CONSOLE_PANIC, true, true },		     /* panic() */
	{ "reboot: System halted", false, true },    /* kernel_halt() */
	{ CONSOLE_POWER_DOWN, false, true },	     /* kernel_power_off() */
};

const char *console__report(const char *buf)
{
	const char *first = NULL, *p;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(dead_words); i++) {
		if (!dead_words[i].report)
			continue;
		p = strstr(buf, dead_words[i].words);
		if (p && (!first || p < first))
			first = p;
	}
	while (first && first > buf && first[-1] != '\n')
		first--;
	return first;
}

char *console__stopped(const char *buf, size_t len)
{
	const char *line = buf, *end = buf + len, *nl;
	size_t i;

	for (; line < end; line = nl + 1) {
		nl = memchr(line, '\n', (size_t)(end - line));
		if (!nl)
			nl = end;
		for (i = 0; i < ARRAY_SIZE(dead_words); i++) {
			const char *w = dead_words[i].words;
			const char *at = dead_words[i].last ?
						 memmem(line,
							(size_t)(nl - line), w,
							strlen(w)) :
						 NULL;
			size_t n;

			if (!at)
				continue;
			/* From the words on: the timestamp is noise. */
			n = (size_t)(nl - at);
			while (n && (at[n - 1] == '\r' || at[n - 1] == ' '))
				n--;
			return xstrndup(at, n > 200 ? 200 : n);
		}
	}
	return NULL;
}

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

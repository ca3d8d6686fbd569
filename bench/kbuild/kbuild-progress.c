// SPDX-License-Identifier: GPL-2.0-only
/*
 * Progress of a build on stderr: a line per phase and, while a long
 * command runs, one every ~10 s with the log's last line, so a build of
 * many minutes is visibly alive without make's thousands of lines.
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/kbuild/kbuild.h"
#include "clock.h"
#include "log.h"

#define TICK_INTERVAL_S 10.0
#define LAST_LINE_MAX 160

const char *const kbuild_phase_names[KBUILD_NR_PHASES] = {
	[KBUILD_WORKTREE] = "worktree", [KBUILD_PATCHES] = "patches",
	[KBUILD_CONFIG] = "config",	[KBUILD_BUILD] = "build",
	[KBUILD_MODULES] = "modules",	[KBUILD_PACK] = "pack",
};

void kbuild_progress__init(struct kbuild_progress *p)
{
	memset(p, 0, sizeof(*p));
	p->start = p->phase_start = p->last_tick = mono_ns() / 1e9;
	p->phase = -1;
}

void kbuild_progress__done(struct kbuild_progress *p)
{
	double now = mono_ns() / 1e9;

	if (p->phase >= 0)
		p->elapsed[p->phase] += now - p->phase_start;
	p->phase = -1;
}

void kbuild_progress__phase(struct kbuild_progress *p, enum kbuild_phase phase)
{
	kbuild_progress__done(p);
	p->phase = phase;
	p->phase_start = p->last_tick = mono_ns() / 1e9;
	pr_info("kernel build: %s (%.0f s in)", kbuild_phase_names[phase],
		p->phase_start - p->start);
}

/* The log's last non-empty line, trimmed, into @buf. */
static void last_line(int log_fd, char *buf, size_t size)
{
	char tail[512];
	struct stat sb;
	off_t from;
	ssize_t n;
	char *end, *start;

	buf[0] = '\0';
	if (log_fd < 0 || fstat(log_fd, &sb))
		return;
	from = sb.st_size > (off_t)sizeof(tail) - 1 ?
		       sb.st_size - (off_t)sizeof(tail) + 1 :
		       0;
	n = pread(log_fd, tail, sizeof(tail) - 1, from);
	if (n <= 0)
		return;
	tail[n] = '\0';
	end = tail + n;
	while (end > tail && (end[-1] == '\n' || end[-1] == ' '))
		*--end = '\0';
	start = strrchr(tail, '\n');
	start = start ? start + 1 : tail;
	while (*start == ' ' || *start == '\t')
		start++;
	/* Cut on purpose: a progress line, not the log. */
	n = strlen(start);
	if ((size_t)n >= size)
		n = size - 1;
	memcpy(buf, start, n);
	buf[n] = '\0';
}

void kbuild_progress__tick(struct kbuild_progress *p, int log_fd)
{
	double now = mono_ns() / 1e9;
	char line[LAST_LINE_MAX];

	if (p->phase < 0 || now - p->last_tick < TICK_INTERVAL_S)
		return;
	p->last_tick = now;
	last_line(log_fd, line, sizeof(line));
	pr_info("kernel build: %s, %.0f s (%.0f s in)%s%s",
		kbuild_phase_names[p->phase], now - p->phase_start,
		now - p->start, *line ? ": " : "", line);
}

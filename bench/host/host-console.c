// SPDX-License-Identifier: GPL-2.0-only
/*
 * What a dead kernel prints on a console, in one list every transport
 * reads: qemu's console tail for an error, lava's job definition for
 * its end, ssh's console log while a reboot is awaited (ssh-console.c).
 * Only the kernel's own words count, never a distribution's: they are
 * the same on every machine.
 */
#include <stdbool.h>
#include <string.h>

#include "bench/host/host-console.h"
#include "util.h"

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

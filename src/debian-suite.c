// SPDX-License-Identifier: GPL-2.0-only
/* Debian suite names: their syntax and the ones the archive has. */
#include <string.h>

#include "debian-suite.h"
#include "suggest.h"

#define SUITE_MAX 40

/* The -security suites live on another archive, which the testbed skips. */
const char *const debian_suites[] = {
	"sid",
	"unstable",
	"experimental",
	"testing",
	"testing-updates",
	"stable",
	"stable-updates",
	"stable-backports",
	"oldstable",
	"oldstable-updates",
	"oldstable-backports",
	"forky",
	"forky-updates",
	"forky-backports",
	"trixie",
	"trixie-updates",
	"trixie-backports",
	"trixie-proposed-updates",
	"bookworm",
	"bookworm-updates",
	"bookworm-backports",
	"bookworm-proposed-updates",
	"bullseye",
	"bullseye-updates",
	"bullseye-backports",
	NULL,
};

bool debian_suite__is_valid(const char *suite)
{
	size_t len = strlen(suite);

	return len && len <= SUITE_MAX && suite[0] >= 'a' && suite[0] <= 'z' &&
	       strspn(suite, "abcdefghijklmnopqrstuvwxyz0123456789-") == len;
}

const char *debian_suite__suggest(const char *suite)
{
	size_t i;

	for (i = 0; debian_suites[i]; i++)
		if (!strcmp(suite, debian_suites[i]))
			return NULL;
	return suggest__best(suite, debian_suites);
}

// SPDX-License-Identifier: GPL-2.0-only
/* Debian suite names: their syntax and the ones the archive has. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "debian-suite.h"
#include "errmsg.h"
#include "suggest.h"
#include "util.h"

#define DEBIAN_MIRROR "http://deb.debian.org/debian"
#define MACHINE_SOURCES "/etc/apt/sources.list.d/debian.sources"
#define MIRROR_ENV "IOMMU_BENCH_DEBIAN_MIRROR"

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

/* What reaches sources.list as a word: no blank, no bracket, no quote. */
static bool uri_is_valid(const char *uri)
{
	return (!strncmp(uri, "http://", 7) || !strncmp(uri, "https://", 8) ||
		!strncmp(uri, "file:/", 6)) &&
	       strspn(uri,
		      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		      "0123456789._~:/%@+-") == strlen(uri);
}

/* The machine's URI for Debian itself: the first one ending in /debian. */
static char *machine_mirror(void)
{
	char *text = NULL, *line, *save = NULL, *word, *wsave, *found = NULL;
	size_t len;

	if (read_file(MACHINE_SOURCES, &text, &len))
		return NULL;
	for (line = strtok_r(text, "\n", &save); line && !found;
	     line = strtok_r(NULL, "\n", &save)) {
		if (strncasecmp(line, "URIs:", 5))
			continue;
		for (word = strtok_r(line + 5, " \t", &wsave); word && !found;
		     word = strtok_r(NULL, " \t", &wsave)) {
			len = strlen(word);
			while (len && word[len - 1] == '/')
				word[--len] = '\0';
			if (len >= 7 && !strcmp(word + len - 7, "/debian") &&
			    uri_is_valid(word))
				found = xstrdup(word);
		}
	}
	free(text);
	return found;
}

int debian__mirror(char **uri, char **err)
{
	const char *env = getenv(MIRROR_ENV);

	if (env && *env) {
		if (!uri_is_valid(env))
			return errmsg__set(
				err, -EINVAL,
				"%s='%.80s' is not a mirror URI "
				"(http://, https:// or file:/ and no "
				"blanks)",
				MIRROR_ENV, env);
		*uri = xstrdup(env);
		return 0;
	}
	*uri = machine_mirror();
	if (!*uri)
		*uri = xstrdup(DEBIAN_MIRROR);
	return 0;
}

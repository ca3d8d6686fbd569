// SPDX-License-Identifier: GPL-2.0-only
/*
 * What a kernel package's control data says about the packages that
 * make up the kernel: a meta-package's versioned kernel, a Debian 7.x
 * image package's binary, modules and base. Pure text, no apt.
 */
#include <stdlib.h>
#include <string.h>

#include "bench/testbed/testbed.h"
#include "util.h"

#define IMAGE_PREFIX "linux-image-"

/* Debian names a versioned kernel by its ABI, which starts with a digit. */
bool testbed__package_is_meta(const char *package)
{
	size_t plen = strlen(IMAGE_PREFIX);

	return !strncmp(package, IMAGE_PREFIX, plen) && package[plen] &&
	       !(package[plen] >= '0' && package[plen] <= '9');
}

char *testbed__control_field(const char *stanza, const char *field)
{
	size_t flen = strlen(field), skip;
	const char *line, *end;
	char *val = NULL, *p;

	for (line = stanza; line && *line; line = *end ? end + 1 : end) {
		end = strchrnul(line, '\n');
		if (!val) {
			if (strncasecmp(line, field, flen) || line[flen] != ':')
				continue;
			line += flen + 1;
		} else if (*line != ' ' && *line != '\t') {
			break; /* not a continuation: the next field */
		}
		skip = strspn(line, " \t");
		p = val;
		val = xasprintf("%s%s%.*s", p ? p : "", p ? " " : "",
				(int)(end - line - skip), line + skip);
		free(p);
	}
	if (val)
		for (p = val + strlen(val); p > val && p[-1] == ' ';)
			*--p = '\0';
	return val;
}

void testbed__depends_names(const char *depends, struct strvec *names)
{
	const char *p = depends;
	size_t len;

	while (*p) {
		p += strspn(p, " \t\n,|");
		len = strcspn(p, " \t\n,|(:[<");
		if (len)
			strvec__pushf(names, "%.*s", (int)len, p);
		p += len;
		/* What follows the name up to the next one: "(>= 1)", ":any". */
		p += strcspn(p, ",|");
	}
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t len = strlen(s), slen = strlen(suffix);

	return len >= slen && !strcmp(s + len - slen, suffix);
}

char *testbed__meta_target(const char *meta, const char *depends)
{
	const char *flavour = meta + strlen(IMAGE_PREFIX);
	struct strvec names = { 0 };
	char *suffix, *found = NULL;
	size_t i;

	if (!testbed__package_is_meta(meta))
		return NULL;
	suffix = xasprintf("-%s", flavour);
	testbed__depends_names(depends, &names);
	for (i = 0; i < names.nr && !found; i++) {
		const char *n = names.v[i];

		/* -dbg: debug symbols, a gigabyte and no kernel in it. */
		if (testbed__package_is_valid(n) &&
		    !testbed__package_is_meta(n) && ends_with(n, suffix) &&
		    !ends_with(n, "-dbg"))
			found = xstrdup(n);
	}
	strvec__release(&names);
	free(suffix);
	return found;
}

void testbed__kernel_parts(const char *package, const char *depends,
			   struct strvec *parts)
{
	static const char *const kinds[] = { "linux-binary-", "linux-modules-",
					     "linux-base-" };
	const char *rel = package + strlen(IMAGE_PREFIX);
	struct strvec names = { 0 };
	char *want;
	size_t i;

	if (strncmp(package, IMAGE_PREFIX, strlen(IMAGE_PREFIX)))
		return;
	testbed__depends_names(depends, &names);
	for (i = 0; i < ARRAY_SIZE(kinds); i++) {
		want = xasprintf("%s%s", kinds[i], rel);
		if (strvec__contains(&names, want))
			strvec__push_nodup(parts, want);
		else
			free(want);
	}
	strvec__release(&names);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * Which distribution the host runs, from os-release: the same kernel
 * release means a different kernel on Debian and on Fedora, and a lab
 * machine's tools (grub-reboot, its initramfs generator) follow the
 * distribution.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/hostfacts/hostfacts-priv.h"
#include "util.h"

int hostfacts__distro(const char *root, struct hostfacts_distro *d)
{
	/* os-release(5): /etc first, /usr/lib where /etc has none. */
	static const char *const paths[] = { "/etc/os-release",
					     "/usr/lib/os-release" };
	static const char *const keys[] = { "ID", "VERSION_ID", "PRETTY_NAME",
					    NULL };
	char *vals[3] = { 0 };
	size_t i;

	memset(d, 0, sizeof(*d));
	for (i = 0; i < ARRAY_SIZE(paths); i++) {
		if (hf_keyval_read(root, paths[i], keys, vals, true))
			continue;
		d->source = xstrdup(paths[i]);
		d->id = vals[0];
		d->version_id = vals[1];
		d->pretty_name = vals[2];
		return 0;
	}
	return -ENOENT;
}

void hostfacts__distro_release(struct hostfacts_distro *d)
{
	free_all(d->id, d->version_id, d->pretty_name, d->source);
	memset(d, 0, sizeof(*d));
}

json_t *hf_json_distro(const char *root, struct strvec *warn)
{
	struct hostfacts_distro d;
	json_t *o;

	if (hostfacts__distro(root, &d)) {
		strvec__push(warn, "distro: neither /etc/os-release nor "
				   "/usr/lib/os-release is readable");
		return json_null();
	}
	o = json_pack("{s:o, s:o, s:o, s:o}", "id", json_string_or_null(d.id),
		      "version_id", json_string_or_null(d.version_id),
		      "pretty_name", json_string_or_null(d.pretty_name),
		      "source", json_string_or_null(d.source));
	hostfacts__distro_release(&d);
	return o;
}

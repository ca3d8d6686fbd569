// SPDX-License-Identifier: GPL-2.0-only
/*
 * The ssh transport as the matrix sees it: a lab machine reached by ssh,
 * which reboots itself (kexec unless it says grub), so the keys it takes
 * are where it is, how to log in, how to power-cycle it and where its
 * console is logged.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "bench/host/host-transports.h"
#include "bench/matrix/matrix-priv.h"

/*
 * A file ssh reads by an -o option: it must exist here, and hold nothing
 * ssh would split or expand (blanks, quotes, its %-tokens).
 */
static void ssh_file(struct mx *mx, const struct toml_value *tab,
		     const char *key, char **out)
{
	const struct toml_pos *pos;

	if (mx_string(mx, tab, key, MX_PATH, out) <= 0)
		return;
	pos = &toml_table__get(tab, key)->pos;
	if (strpbrk(*out, " \t\n\"'%\\"))
		mx_err(mx, *pos,
		       "%s: '%s' holds a blank, a quote, '%%' or '\\', which "
		       "ssh would split or expand; use a path without them",
		       key, *out);
	else if (access(*out, R_OK))
		mx_err(mx, *pos, "%s: cannot read '%s': %s", key, *out,
		       strerror(errno));
}

static void ssh_parse(struct mx *mx, struct matrix_host *h,
		      const struct toml_value *tab)
{
	/* A lab machine's comes with it, or its error says why not. */
	if (!mx_string(mx, tab, "address", MX_HOSTADDR, &h->address) &&
	    !h->address && !toml_table__get(tab, "labvm"))
		mx_err(mx, h->pos,
		       "missing key 'address' in "
		       "[hosts.%s] (the ssh destination)",
		       h->name);
	mx_string(mx, tab, "data_address", MX_HOSTADDR, &h->data_address);
	mx_string(mx, tab, "user", MX_NAME, &h->user);
	mx_uint32(mx, tab, "port", 1, 65535, &h->port);
	ssh_file(mx, tab, "ssh_key", &h->ssh_key);
	ssh_file(mx, tab, "known_hosts", &h->known_hosts);
	/* Read when a boot is awaited: it may not exist yet. */
	mx_string(mx, tab, "console", MX_PATH, &h->console);
}

static void ssh_defaults(struct matrix_host *h)
{
	h->reboot = REBOOT_KEXEC;
}

static const char *const host_keys[] = {
	"address",	"nic",		 "data_address", "user",
	"port",		"allow_reboot",	 "reboot",	 "power_cycle",
	"boot_timeout", "boot_estimate", "kernel_dir",	 "disks",
	"ssh_key",	"known_hosts",	 "labvm",	 "console",
	NULL,
};

const struct matrix_transport ssh_transport = {
	.name = "ssh",
	.id = HOST_SSH,
	.keys = host_keys,
	.defaults = ssh_defaults,
	.parse = ssh_parse,
};

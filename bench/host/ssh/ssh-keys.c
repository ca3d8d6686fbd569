// SPDX-License-Identifier: GPL-2.0-only
/*
 * The ssh transport as the matrix sees it: a lab machine reached by ssh,
 * which reboots itself (kexec unless it says grub), so the keys it takes
 * are where it is, how to log in, how to power-cycle it and where its
 * console is logged.
 */
#include "bench/host/host-transports.h"

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
};

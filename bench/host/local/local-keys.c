// SPDX-License-Identifier: GPL-2.0-only
/*
 * The local and netns transports as the matrix sees them: the
 * controller's own machine and its network namespaces, never rebooted,
 * so their keys are where they are and what links them.
 */
#include "bench/host/host-transports.h"

static const char *const local_keys[] = {
	"address", "nic",   "link",  "allow_reboot",
	"reboot",  "disks", "labvm", NULL,
};

static const char *const netns_keys[] = {
	"address", "nic", "link", "netns", "allow_reboot", "reboot", NULL,
};

const struct matrix_transport local_transport = {
	.name = "local",
	.id = HOST_LOCAL,
	.keys = local_keys,
};

const struct matrix_transport netns_transport = {
	.name = "netns",
	.id = HOST_NETNS,
	.keys = netns_keys,
};

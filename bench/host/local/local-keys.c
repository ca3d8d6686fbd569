// SPDX-License-Identifier: GPL-2.0-only
/*
 * The local and netns transports as the matrix sees them: the
 * controller's own machine and its network namespaces, never rebooted,
 * so their keys are where they are and what links them.
 */
#include <string.h>

#include "bench/host/host-transports.h"
#include "bench/matrix/matrix-priv.h"
#include "util.h"

static const char *const local_keys[] = {
	"address", "nic",   "link",  "allow_reboot",
	"reboot",  "disks", "labvm", NULL,
};

static const char *const netns_keys[] = {
	"address", "nic", "link", "netns", "allow_reboot", "reboot", NULL,
};

static void netns_parse(struct mx *mx, struct matrix_host *h,
			const struct toml_value *tab)
{
	if (!mx_string(mx, tab, "address", MX_CIDR, &h->address))
		mx_err(mx, h->pos,
		       "missing key 'address' in "
		       "[hosts.%s] (its veth address, like "
		       "'10.77.0.2/24')",
		       h->name);
	if (!mx_string(mx, tab, "netns", MX_NAME, &h->netns)) {
		/* Prefixed, so that no namespace of the user's is hit. */
		h->netns = xasprintf("iommu-bench-%s", h->name);
		if (strlen(h->netns) > 64)
			mx_err(mx, h->pos,
			       "host name '%s' is too long "
			       "for a namespace name; set netns",
			       h->name);
	}
}

const struct matrix_transport local_transport = {
	.name = "local",
	.id = HOST_LOCAL,
	.keys = local_keys,
	.never_reboots = "is this machine (transport 'local')",
};

const struct matrix_transport netns_transport = {
	.name = "netns",
	.id = HOST_NETNS,
	.keys = netns_keys,
	.never_reboots = "is a namespace of this machine",
	.parse = netns_parse,
};

// SPDX-License-Identifier: GPL-2.0-only
/*
 * The table of transports: a new one is its folder under bench/host/
 * and one line here (docs/hacking.md, "Adding a transport"). Each line
 * pairs what the matrix reads of a transport (its keys and their hooks)
 * with what the run drives (its host_ops).
 */
#include "bench/host/host-transports.h"
#include "bench/host/host.h"
#include "util.h"

static const struct {
	const struct matrix_transport *keys;
	const struct host_ops *ops;
} transports[] = {
	{ &local_transport, &host_local_ops }, /* this machine */
	{ &netns_transport, &host_netns_ops }, /* a network namespace of it */
	{ &ssh_transport, &host_ssh_ops },     /* a lab machine */
	{ &qemu_transport, &host_qemu_ops },   /* the testbed's VM */
	{ &lava_transport, &host_lava_ops },   /* a device of a LAVA lab */
};

void host_transports__set(void)
{
	static const struct matrix_transport *table[ARRAY_SIZE(transports) + 1];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(transports); i++)
		table[i] = transports[i].keys;
	matrix__set_transports(table);
}

const struct host_ops *host_ops__find(enum host_transport t)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(transports); i++)
		if (transports[i].keys->id == t)
			return transports[i].ops;
	return NULL;
}

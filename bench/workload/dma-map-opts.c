// SPDX-License-Identifier: GPL-2.0-only
/*
 * The dma_map options against the kernel's own bounds, checked here
 * first: the kernel answers a bad one with a bare EINVAL and a line in
 * its log, after the device was lent.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bench/workload/dma-map-priv.h"
#include "errmsg.h"
#include "util.h"

int dma_map__check_opts(const struct dma_map_opts *o, char **err)
{
	char bdf[DMA_MAP_BDF_SIZE];

	if (dma_map__parse_bdf(o->device, bdf, err))
		return -EINVAL;
	if (o->threads < 1 || o->threads > DMA_MAP_MAX_THREADS)
		return errmsg__set(err, -EINVAL,
				   "threads %u is out of the kernel's range "
				   "1..%u",
				   o->threads, DMA_MAP_MAX_THREADS);
	if (o->seconds < 1 || o->seconds > DMA_MAP_MAX_SECONDS)
		return errmsg__set(err, -EINVAL,
				   "seconds %u is out of the kernel's range "
				   "1..%u",
				   o->seconds, DMA_MAP_MAX_SECONDS);
	if (o->granule < 1 || o->granule > DMA_MAP_MAX_GRANULE)
		return errmsg__set(err, -EINVAL,
				   "granule %u (pages per map) is out of the "
				   "kernel's range 1..%u",
				   o->granule, DMA_MAP_MAX_GRANULE);
	if (o->dma_bits < DMA_MAP_MIN_DMA_BITS ||
	    o->dma_bits > DMA_MAP_MAX_DMA_BITS)
		return errmsg__set(err, -EINVAL,
				   "dma_bits %u is out of the range %u..%u "
				   "(a mask the device can be given)",
				   o->dma_bits, DMA_MAP_MIN_DMA_BITS,
				   DMA_MAP_MAX_DMA_BITS);
	if (o->trans_ns > DMA_MAP_MAX_TRANS_NS)
		return errmsg__set(err, -EINVAL,
				   "trans_ns %u is out of the kernel's range "
				   "0..%u (10 ms)",
				   o->trans_ns, DMA_MAP_MAX_TRANS_NS);
	if (o->node < DMA_MAP_NO_NODE || o->node > DMA_MAP_MAX_NODE)
		return errmsg__set(err, -EINVAL,
				   "node %d is out of the kernel's range "
				   "%d..%d (%d: any node)",
				   o->node, DMA_MAP_NO_NODE, DMA_MAP_MAX_NODE,
				   DMA_MAP_NO_NODE);
	if (!dma_map__dir_name(o->dir))
		return errmsg__set(err, -EINVAL,
				   "direction %d is none of 0 (bidirectional), "
				   "1 (to_device) and 2 (from_device)",
				   (int)o->dir);
	return 0;
}

/* Is @n in the list @s ("0", "0-3", "0,2-5")? */
static bool in_list(const char *s, long n)
{
	char *end;
	long a, b;

	while (*s) {
		a = strtol(s, &end, 10);
		if (end == s)
			return false;
		b = a;
		if (*end == '-') {
			s = end + 1;
			b = strtol(s, &end, 10);
			if (end == s)
				return false;
		}
		if (n >= a && n <= b)
			return true;
		s = end;
		if (*s == ',')
			s++;
		else
			break;
	}
	return false;
}

int dma_map__check_node(const char *root, int node, char **err)
{
	char *p, *list = NULL;
	size_t n;
	bool ok;

	if (node == DMA_MAP_NO_NODE)
		return 0;
	p = dma_map__path(root, "/sys/devices/system/node/possible");
	/* No such file: a kernel without NUMA, whose one node is 0. */
	if (read_file(p, &list, &n))
		list = xstrdup("0");
	list[strcspn(list, "\n")] = '\0';
	ok = in_list(list, node);
	if (!ok)
		errmsg__set(err, -EINVAL,
			    "node %d is not a possible NUMA node of this host "
			    "(possible: %s)",
			    node, list);
	free(list);
	free(p);
	return ok ? 0 : -EINVAL;
}

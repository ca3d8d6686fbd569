// SPDX-License-Identifier: GPL-2.0-only
/*
 * How many maps and unmaps the benchmark did, as it counted them
 * (bpf/dma_map_loops.bpf.c): the one figure its ioctl keeps to itself,
 * and the one the probes' counts are checked against. Needs BTF and a
 * BPF trampoline on map_benchmark_thread(); where the kernel gives
 * neither, the count is unknown and the benchmark runs all the same.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "bench/workload/dma-map-priv.h"
#include "errmsg.h"
#include "util.h"

#include "dma_map_loops.skel.h"

struct dma_map_loops {
	struct dma_map_loops_bpf *obj;
};

int dma_map_loops__attach(struct dma_map_loops **out, char **err)
{
	struct dma_map_loops *c;
	struct btf *btf;
	int ret;

	/* Asked first, so that a kernel without it costs libbpf no words. */
	btf = btf__load_vmlinux_btf();
	if (!btf)
		return errmsg__set(err, -errno,
				   "no count of operations: the "
				   "kernel has no BTF");
	ret = btf__find_by_name_kind(btf, "map_benchmark_thread",
				     BTF_KIND_FUNC);
	btf__free(btf);
	if (ret < 0)
		return errmsg__set(err, ret,
				   "no count of operations: the "
				   "kernel's BTF has no map_benchmark_thread");
	c = xcalloc(1, sizeof(*c));
	c->obj = dma_map_loops_bpf__open_and_load();
	if (!c->obj) {
		ret = errmsg__set(err, -errno,
				  "the count of operations could not load "
				  "(no BTF, or no map_benchmark_thread): %s",
				  strerror(errno));
		goto fail;
	}
	ret = dma_map_loops_bpf__attach(c->obj);
	if (ret) {
		ret = errmsg__set(err, ret,
				  "the count of operations could not attach "
				  "to map_benchmark_thread: %s",
				  strerror(-ret));
		goto fail;
	}
	*out = c;
	return 0;
fail:
	dma_map_loops__detach(c);
	return ret;
}

int64_t dma_map_loops__read(const struct dma_map_loops *c, unsigned int threads)
{
	/* A thread that never returned has not added its part. */
	if (c->obj->bss->threads_done < threads)
		return -1;
	return (int64_t)c->obj->bss->loops;
}

void dma_map_loops__detach(struct dma_map_loops *c)
{
	if (!c)
		return;
	dma_map_loops_bpf__destroy(c->obj);
	free(c);
}

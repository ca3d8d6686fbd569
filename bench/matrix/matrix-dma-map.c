// SPDX-License-Identifier: GPL-2.0-only
/*
 * The dma_map workload's keys: one host, one PCI device of it that is
 * lent to the kernel's DMA map benchmark for each trial. The bounds are
 * the agent's own (bench/workload/dma-map.h), so that a matrix that
 * loads is one the agent accepts: refused here, not after a boot.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "bench/workload/dma-map.h"
#include "matrix-priv.h"
#include "units.h"
#include "util.h"

/*
 * Binding to the benchmark's driver, giving the device back and the
 * kthreads' stop (one last map of up to 1024 pages, a delay of up to
 * 10 ms) on top of the seconds the kernel runs.
 */
#define DMA_MAP_OVERHEAD_MS 2000

static const char *const dma_map_keys[] = {
	"host",	     "device",	 "unbind",   "threads", "seconds", "granule",
	"direction", "dma_bits", "trans_ns", "node",	NULL,
};

static void dma_map__release(struct matrix_workload *w)
{
	free(w->u.dma_map.device);
	w->u.dma_map.device = NULL;
}

static uint64_t dma_map__trial_ms(const struct matrix_workload *w)
{
	return w->u.dma_map.seconds * 1000ULL + DMA_MAP_OVERHEAD_MS;
}

static void device(struct mx *mx, struct matrix_workload *w,
		   const struct toml_value *tab)
{
	const struct matrix_host *h = &mx->m->hosts[w->sut];
	const struct toml_value *v = toml_table__get(tab, "device");
	char bdf[DMA_MAP_BDF_SIZE];
	char *why = NULL;

	if (!v) {
		/* The testbed's spare device is a later step (qemu.c). */
		if (h->transport == HOST_QEMU)
			mx_err(mx, w->pos,
			       "missing key 'device' in workload '%s': host "
			       "'%s' is a qemu guest, whose spare device for "
			       "dma_map is not there yet; name a PCI device "
			       "of an ssh or local host",
			       w->name, h->name);
		else
			mx_err(mx, w->pos,
			       "missing key 'device' in workload '%s' (a PCI "
			       "address of host '%s', like \"0000:00:04.0\")",
			       w->name, h->name);
		return;
	}
	if (!mx_is(mx, v, TOML_STRING, "device"))
		return;
	if (strlen(v->u.str.ptr) != v->u.str.len ||
	    dma_map__parse_bdf(v->u.str.ptr, bdf, &why)) {
		mx_err(mx, v->pos, "device: %s",
		       why ? why : "a NUL byte is no PCI address");
		free(why);
		return;
	}
	w->u.dma_map.device = xstrdup(bdf);
}

static void node(struct mx *mx, struct matrix_workload *w,
		 const struct toml_value *tab)
{
	const struct toml_value *v = toml_table__get(tab, "node");

	if (!v || !mx_is(mx, v, TOML_INTEGER, "node"))
		return;
	if (v->u.i < DMA_MAP_NO_NODE || v->u.i > DMA_MAP_MAX_NODE) {
		mx_err(mx, v->pos,
		       "node: %lld is out of range (%d..%d; %d: any node)",
		       (long long)v->u.i, DMA_MAP_NO_NODE, DMA_MAP_MAX_NODE,
		       DMA_MAP_NO_NODE);
		return;
	}
	w->u.dma_map.node = (int)v->u.i;
}

static void dma_map__parse(struct mx *mx, struct matrix_workload *w,
			   const struct toml_value *tab)
{
	/* The agent's words, in the order of enum dma_map_dir. */
	const char *dirs[] = { dma_map__dir_name(DMA_MAP_DIR_BIDIRECTIONAL),
			       dma_map__dir_name(DMA_MAP_DIR_TO_DEVICE),
			       dma_map__dir_name(DMA_MAP_DIR_FROM_DEVICE),
			       NULL };
	struct matrix_dma_map *p = &w->u.dma_map;
	char a[UNITS_FMT_MAX];
	uint64_t ms;
	int dir;

	p->threads = DMA_MAP_DEFAULT_THREADS;
	p->seconds = DMA_MAP_DEFAULT_SECONDS;
	p->granule = DMA_MAP_DEFAULT_GRANULE;
	p->dma_bits = DMA_MAP_DEFAULT_DMA_BITS;
	p->dir = DMA_MAP_DIR_BIDIRECTIONAL;
	p->node = DMA_MAP_NO_NODE;
	device(mx, w, tab);
	mx_bool(mx, tab, "unbind", &p->unbind);
	mx_uint32(mx, tab, "threads", 1, DMA_MAP_MAX_THREADS, &p->threads);
	mx_uint32(mx, tab, "granule", 1, DMA_MAP_MAX_GRANULE, &p->granule);
	mx_uint32(mx, tab, "dma_bits", DMA_MAP_MIN_DMA_BITS,
		  DMA_MAP_MAX_DMA_BITS, &p->dma_bits);
	mx_uint32(mx, tab, "trans_ns", 0, DMA_MAP_MAX_TRANS_NS, &p->trans_ns);
	if (mx_enum(mx, tab, "direction", dirs, &dir) > 0)
		p->dir = dir;
	node(mx, w, tab);
	if (mx_duration(mx, tab, "seconds", &ms) > 0) {
		if (ms < 1000 || ms > DMA_MAP_MAX_SECONDS * 1000ULL ||
		    ms % 1000)
			mx_err(mx, mx_val_pos(tab, "seconds", w->pos),
			       "seconds: %s is not whole seconds in 1s..%us "
			       "(the kernel's range)",
			       units__format_duration(ms, a, sizeof(a)),
			       DMA_MAP_MAX_SECONDS);
		else
			p->seconds = ms / 1000;
	}
}

static void dma_map__describe(const struct matrix *m,
			      const struct matrix_workload *w, char *buf,
			      size_t size)
{
	const struct matrix_dma_map *p = &w->u.dma_map;

	snprintf(buf, size,
		 "dma_map on %s:%s, %u thread%s, %u page%s, %s, %u-bit%s, %us",
		 m->hosts[w->sut].name, p->device ? p->device : "?", p->threads,
		 p->threads == 1 ? "" : "s", p->granule,
		 p->granule == 1 ? "" : "s", dma_map__dir_name(p->dir),
		 p->dma_bits, p->unbind ? ", unbind" : "", p->seconds);
}

static void dma_map__plan_json(const struct matrix *m,
			       const struct matrix_workload *w, json_t *o)
{
	const struct matrix_dma_map *p = &w->u.dma_map;

	json_object_set_new(o, "host", json_string(m->hosts[w->sut].name));
	json_object_set_new(o, "device",
			    p->device ? json_string(p->device) : json_null());
	json_object_set_new(o, "unbind", json_boolean(p->unbind));
	json_object_set_new(o, "threads", json_integer(p->threads));
	json_object_set_new(o, "granule", json_integer(p->granule));
	json_object_set_new(o, "direction",
			    json_string(dma_map__dir_name(p->dir)));
	json_object_set_new(o, "dma_bits", json_integer(p->dma_bits));
	json_object_set_new(o, "trans_ns", json_integer(p->trans_ns));
	json_object_set_new(o, "node", json_integer(p->node));
	json_object_set_new(o, "duration_seconds", json_real(p->seconds));
}

const struct workload_type_ops dma_map_workload_ops = {
	.name = "dma_map",
	.keys = dma_map_keys,
	.parse = dma_map__parse,
	.release = dma_map__release,
	.trial_ms = dma_map__trial_ms,
	.describe = dma_map__describe,
	.plan_json = dma_map__plan_json,
	.two_ends = false,
};

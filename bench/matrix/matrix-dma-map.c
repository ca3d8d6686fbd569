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

#include "dma-map-opts.h"
#include "matrix-priv.h"
#include "suggest.h"
#include "units.h"
#include "util.h"

/*
 * Binding to the benchmark's driver, giving the device back and the
 * kthreads' stop (one last map of up to 1024 pages, a delay of up to
 * 10 ms) on top of the seconds the kernel runs.
 */
#define DMA_MAP_OVERHEAD_MS 2000

/* What an empty list of a swept key is told. */
#define SWEEP_HINT "give one value or several to sweep"

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
		/* A testbed VM gets a device of its own for it. */
		if (h->ops && h->ops->lend_spare) {
			mx->m->hosts[w->sut].ops->lend_spare(
				&mx->m->hosts[w->sut]);
			w->u.dma_map.device = xstrdup(DMA_MAP_QEMU_SPARE_BDF);
			return;
		}
		mx_err(mx, w->pos,
		       "missing key 'device' in workload '%s' (a PCI address "
		       "of host '%s', like \"0000:00:04.0\")",
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
	/*
	 * A testbed VM has what its command line gives it, and nothing
	 * there but the spare is free to lend: the NIC carries the
	 * workloads, the disks and the agent's channel their own.
	 */
	if (h->ops && h->ops->lend_spare) {
		if (strcmp(bdf, DMA_MAP_QEMU_SPARE_BDF)) {
			mx_err(mx, v->pos,
			       "device: host '%s' is a testbed VM, and the "
			       "one device it lends is its spare, %s, which "
			       "it gets when 'device' is left out (got "
			       "\"%s\")",
			       h->name, DMA_MAP_QEMU_SPARE_BDF, bdf);
			return;
		}
		h->ops->lend_spare(&mx->m->hosts[w->sut]);
	}
	w->u.dma_map.device = xstrdup(bdf);
}

/*
 * A testbed's virtio spare is virtio-pci's from boot: known here, so
 * refused here, as the agent would refuse it after the boot.
 */
static void held_spare(struct mx *mx, const struct matrix_workload *w,
		       const struct toml_value *tab)
{
	const struct matrix_host *h = &mx->m->hosts[w->sut];

	if (!h->ops || !h->ops->spare_held || !h->ops->spare_held(h) ||
	    w->u.dma_map.unbind)
		return;
	mx_err(mx, mx_val_pos(tab, "device", w->pos),
	       "workload '%s': host '%s''s spare device (spare = \"virtio\") "
	       "is held by virtio-pci; set unbind = true to lend it",
	       w->name, h->name);
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

/* In the order of enum dma_map_dir: the agent's own words. */
static void dir_names(const char *names[4])
{
	unsigned int i;

	for (i = 0; i < 3; i++)
		names[i] = dma_map__dir_name((enum dma_map_dir)i);
	names[3] = NULL;
}

/*
 * threads or granule: an integer, or a list of them, each a value of
 * the sweep (see matrix_dma_map__expand()). *@out is the first.
 */
static void uint_axis(struct mx *mx, const struct toml_value *tab,
		      const char *key, unsigned int max, unsigned int *out)
{
	const struct toml_value *v = toml_table__get(tab, key);
	size_t i, j;

	if (!v)
		return;
	if (v->type != TOML_ARRAY) {
		mx_uint32(mx, tab, key, 1, max, out);
		return;
	}
	if (mx_empty(mx, v, key, SWEEP_HINT))
		return;
	for (i = 0; i < v->u.arr.n; i++) {
		const struct toml_value *it = v->u.arr.items[i];

		if (!mx_is(mx, it, TOML_INTEGER, key))
			continue;
		if (it->u.i < 1 || it->u.i > max) {
			mx_err(mx, it->pos, "%s: %lld is out of range (1..%u)",
			       key, (long long)it->u.i, max);
			continue;
		}
		for (j = 0; j < i; j++)
			if (v->u.arr.items[j]->type == TOML_INTEGER &&
			    v->u.arr.items[j]->u.i == it->u.i)
				break;
		if (j < i)
			mx_err(mx, it->pos, "%s: %lld is twice in the list",
			       key, (long long)it->u.i);
		else if (!i)
			*out = (unsigned int)it->u.i;
	}
}

/* One direction word; -1 and an error when it is none of them. */
static int dir_of(struct mx *mx, const struct toml_value *v)
{
	const char *names[4], *best;
	int i;

	dir_names(names);
	if (!mx_is(mx, v, TOML_STRING, "direction"))
		return -1;
	for (i = 0; names[i]; i++)
		if (!strcmp(names[i], v->u.str.ptr) &&
		    strlen(v->u.str.ptr) == v->u.str.len)
			return i;
	best = suggest__best(v->u.str.ptr, names);
	mx_err(mx, v->pos, "direction: '%s' is not one of %s, %s, %s%s%s%s",
	       v->u.str.ptr, names[0], names[1], names[2],
	       best ? "; did you mean '" : "", best ? best : "",
	       best ? "'?" : "");
	return -1;
}

static void dir_axis(struct mx *mx, const struct toml_value *tab,
		     unsigned int *out)
{
	const struct toml_value *v = toml_table__get(tab, "direction");
	size_t i, j;
	int d;

	if (!v)
		return;
	if (v->type != TOML_ARRAY) {
		d = dir_of(mx, v);
		if (d >= 0)
			*out = d;
		return;
	}
	if (mx_empty(mx, v, "direction", SWEEP_HINT))
		return;
	for (i = 0; i < v->u.arr.n; i++) {
		d = dir_of(mx, v->u.arr.items[i]);
		if (d < 0)
			continue;
		for (j = 0; j < i; j++)
			if (v->u.arr.items[j]->type == TOML_STRING &&
			    !strcmp(v->u.arr.items[j]->u.str.ptr,
				    v->u.arr.items[i]->u.str.ptr))
				break;
		if (j < i)
			mx_err(mx, v->u.arr.items[i]->pos,
			       "direction: '%s' is twice in the list",
			       v->u.arr.items[i]->u.str.ptr);
		else if (!i)
			*out = d;
	}
}

static void dma_map__parse(struct mx *mx, struct matrix_workload *w,
			   const struct toml_value *tab)
{
	struct matrix_dma_map *p = &w->u.dma_map;
	char a[UNITS_FMT_MAX];
	uint64_t ms;

	p->threads = DMA_MAP_DEFAULT_THREADS;
	p->seconds = DMA_MAP_DEFAULT_SECONDS;
	p->granule = DMA_MAP_DEFAULT_GRANULE;
	p->dma_bits = DMA_MAP_DEFAULT_DMA_BITS;
	p->dir = DMA_MAP_DIR_BIDIRECTIONAL;
	p->node = DMA_MAP_NO_NODE;
	device(mx, w, tab);
	mx_bool(mx, tab, "unbind", &p->unbind);
	held_spare(mx, w, tab);
	uint_axis(mx, tab, "threads", DMA_MAP_MAX_THREADS, &p->threads);
	uint_axis(mx, tab, "granule", DMA_MAP_MAX_GRANULE, &p->granule);
	dir_axis(mx, tab, &p->dir);
	mx_uint32(mx, tab, "dma_bits", DMA_MAP_MIN_DMA_BITS,
		  DMA_MAP_MAX_DMA_BITS, &p->dma_bits);
	mx_uint32(mx, tab, "trans_ns", 0, DMA_MAP_MAX_TRANS_NS, &p->trans_ns);
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

/* A list's length; 1 for one value, or none, or an empty list. */
static size_t axis_len(const struct toml_value *tab, const char *key)
{
	const struct toml_value *v = toml_table__get(tab, key);

	return v && v->type == TOML_ARRAY && v->u.arr.n ? v->u.arr.n : 1;
}

static bool is_list(const struct toml_value *tab, const char *key)
{
	const struct toml_value *v = toml_table__get(tab, key);

	return v && v->type == TOML_ARRAY;
}

size_t matrix_dma_map__sweep_size(const struct toml_value *tab)
{
	return axis_len(tab, "threads") * axis_len(tab, "granule") *
	       axis_len(tab, "direction");
}

void matrix_dma_map__expand(struct mx *mx, struct matrix_workload *w,
			    struct matrix_workload *out, size_t n)
{
	const struct toml_value *tab = w->src;
	const struct toml_value *t = toml_table__get(tab, "threads");
	const struct toml_value *g = toml_table__get(tab, "granule");
	const struct toml_value *d = toml_table__get(tab, "direction");
	size_t nt = axis_len(tab, "threads"), ng = axis_len(tab, "granule");
	size_t nd = axis_len(tab, "direction"), i;
	char *base = w->name;
	enum dma_map_dir dir;

	for (i = 0; i <= n && i < nt * ng * nd; i++) {
		struct matrix_workload *c = i ? &out[i - 1] : w;
		size_t ti = i / (ng * nd), gi = i / nd % ng, di = i % nd;
		struct strvec name = { 0 };

		if (i) {
			*c = *w;
			c->description =
				w->description ? xstrdup(w->description) : NULL;
			c->u.dma_map.device =
				w->u.dma_map.device ?
					xstrdup(w->u.dma_map.device) :
					NULL;
		}
		/* Only list items that passed the checks are taken. */
		if (is_list(tab, "threads") &&
		    t->u.arr.items[ti]->type == TOML_INTEGER)
			c->u.dma_map.threads = t->u.arr.items[ti]->u.i;
		if (is_list(tab, "granule") &&
		    g->u.arr.items[gi]->type == TOML_INTEGER)
			c->u.dma_map.granule = g->u.arr.items[gi]->u.i;
		if (is_list(tab, "direction") &&
		    d->u.arr.items[di]->type == TOML_STRING &&
		    !dma_map__dir_parse(d->u.arr.items[di]->u.str.ptr, &dir))
			c->u.dma_map.dir = dir;
		strvec__push(&name, base);
		if (is_list(tab, "threads"))
			strvec__pushf(&name, "t%u", c->u.dma_map.threads);
		if (is_list(tab, "granule"))
			strvec__pushf(&name, "g%u", c->u.dma_map.granule);
		if (is_list(tab, "direction"))
			strvec__push(&name,
				     dma_map__dir_name(c->u.dma_map.dir));
		c->name = strvec__join(&name, "-");
		strvec__release(&name);
		if (!name_is_safe(c->name))
			mx_err(mx, mx_val_pos(tab, "name", w->pos),
			       "name: the sweep's workload '%s' has a name "
			       "longer than 64 characters; shorten '%s'",
			       c->name, base);
	}
	free(base);
}

static void dma_map__describe(const struct matrix *m,
			      const struct matrix_workload *w, char *buf,
			      size_t size)
{
	const struct matrix_dma_map *p = &w->u.dma_map;

	snprintf(buf, size,
		 "%s:%s, %u thread%s, %u page%s per map, %s, %u-bit%s, %us",
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

WORKLOAD_TYPE_OPS(dma_map, false);

// SPDX-License-Identifier: GPL-2.0-only
/*
 * [collect]: which instruments run on the SUT during each trial. Each
 * collector is either a boolean ("bpf = true") or a table of settings;
 * a table switches it on unless it says enabled = false.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "matrix-internal.h"
#include "suggest.h"
#include "util.h"

/*
 * Logical probe names: each stands for a DMA-API or IOMMU path whose
 * function names differ by kernel and driver; the bpf collector resolves
 * them on the host. Keep in step with the collector's table.
 */
const char *const matrix_probe_names[] = {
	"map",		  /* iommu_dma_map_page / _phys */
	"unmap",	  /* iommu_dma_unmap_page / _phys */
	"map_sg",	  /* iommu_dma_map_sg */
	"unmap_sg",	  /* iommu_dma_unmap_sg */
	"sync_cpu",	  /* iommu_dma_sync_single_for_cpu */
	"sync_device",	  /* iommu_dma_sync_single_for_device */
	"sync_sg_cpu",	  /* iommu_dma_sync_sg_for_cpu */
	"sync_sg_device", /* iommu_dma_sync_sg_for_device */
	"iotlb_sync",	  /* iommu_iotlb_sync, __iommu_dma_unmap's flush */
	"flush_all",	  /* iommu_flush_iotlb_all */
	"fq_flush",	  /* the flush queue's batched invalidation */
	"iova_alloc",	  /* alloc_iova_fast */
	"iova_free",	  /* free_iova_fast */
	"hw_flush",   /* the driver's own: qi_submit_sync, arm_smmu_cmdq_* */
	"unmap_core", /* __iommu_dma_unmap */
	NULL,
};

/* What "default" means: the paths the seeds' arguments were about. */
const char *const matrix_default_probes[] = {
	"map",	      "unmap",	     "map_sg",	    "unmap_sg",
	"sync_cpu",   "sync_device", "sync_sg_cpu", "sync_sg_device",
	"iotlb_sync", "fq_flush",    "hw_flush",    NULL,
};

/* libperf takes event attributes, not perf's parser: known names only. */
static const char *const counter_names[] = {
	"cpu-clock",
	"task-clock",
	"context-switches",
	"cpu-migrations",
	"page-faults",
	"major-faults",
	"minor-faults",
	"cycles",
	"instructions",
	"cache-references",
	"cache-misses",
	"branch-instructions",
	"branch-misses",
	"bus-cycles",
	"stalled-cycles-frontend",
	"stalled-cycles-backend",
	"ref-cycles",
	NULL,
};

static const char *const callgraph_names[] = { "none", "fp", "dwarf", "lbr",
					       NULL };

void matrix_collect__release(struct matrix_collect *c)
{
	strv_free(c->bpf.probes, c->bpf.nr_probes);
	free(c->bpf.device);
	free(c->perf.event);
	strv_free(c->perf.counters, c->perf.nr_counters);
}

static void strv_add(char ***v, size_t *nr, const char *s)
{
	size_t i;

	for (i = 0; i < *nr; i++)
		if (!strcmp((*v)[i], s))
			return;
	*v = xrealloc(*v, (*nr + 2) * sizeof(**v));
	(*v)[(*nr)++] = xstrdup(s);
	(*v)[*nr] = NULL;
}

/* Names from @known, each once; "default" (if @dflt) adds its set. */
static void parse_names(struct mx *mx, const struct toml_value *tab,
			const char *key, const char *const *known,
			const char *const *dflt, char ***out, size_t *nr)
{
	const struct toml_value *v = toml_table__get(tab, key);
	size_t i;

	if (!v)
		return;
	if (dflt && v->type == TOML_STRING && !strcmp(v->u.str.ptr, "default"))
		return;
	if (v->type != TOML_ARRAY) {
		mx_err(mx, v->pos, "%s: expected a list of names%s", key,
		       dflt ? " or \"default\"" : "");
		return;
	}
	strv_free(*out, *nr);
	*out = NULL;
	*nr = 0;
	for (i = 0; i < v->u.arr.n; i++) {
		const struct toml_value *e = v->u.arr.items[i];
		const char *const *k;
		const char *best;

		if (!mx_is(mx, e, TOML_STRING, key))
			continue;
		if (dflt && !strcmp(e->u.str.ptr, "default")) {
			for (k = dflt; *k; k++)
				strv_add(out, nr, *k);
			continue;
		}
		for (k = known; *k && strcmp(*k, e->u.str.ptr); k++)
			;
		if (*k) {
			strv_add(out, nr, *k);
			continue;
		}
		best = suggest__best(e->u.str.ptr, known);
		if (best)
			mx_err(mx, e->pos,
			       "%s: unknown name '%s'; did you mean "
			       "'%s'?",
			       key, e->u.str.ptr, best);
		else
			mx_err(mx, e->pos,
			       "%s: unknown name '%s' (see "
			       "docs/matrix.md for the list)",
			       key, e->u.str.ptr);
	}
}

/* "0000:3b:00.0" or "3b:00.0", as lspci and sysfs write them. */
static bool is_pci_address(const char *s)
{
	static const char shape[] = "xxxx:xx:xx.x";
	const char *want = strlen(s) == 12 ? shape :
			   strlen(s) == 7  ? shape + 5 :
					     NULL;
	size_t i;

	if (!want)
		return false;
	for (i = 0; want[i]; i++) {
		if (want[i] == 'x' ? !isxdigit((unsigned char)s[i]) :
				     s[i] != want[i])
			return false;
	}
	return true;
}

/* false: the key is absent or a bool (then *@on is set), true: a table. */
static bool collector(struct mx *mx, const struct toml_value *c,
		      const char *key, bool *on)
{
	const struct toml_value *v = toml_table__get(c, key);

	if (!v)
		return false;
	if (v->type == TOML_BOOL) {
		*on = v->u.b;
		return false;
	}
	if (v->type != TOML_TABLE) {
		mx_err(mx, v->pos,
		       "%s: expected true, false or a table, found "
		       "%s",
		       key,
		       v->type == TOML_STRING ? "a string" : "another type");
		return false;
	}
	*on = true;
	mx_bool(mx, v, "enabled", on);
	return true;
}

static void parse_bpf(struct mx *mx, struct matrix_collect *c,
		      const struct toml_value *tab)
{
	static const char *const keys[] = { "enabled", "probes", "device",
					    NULL };
	const struct toml_value *p = toml_table__get(tab, "probes"), *d;

	mx_check_keys(mx, tab, keys, "[collect.bpf]");
	parse_names(mx, tab, "probes", matrix_probe_names,
		    matrix_default_probes, &c->bpf.probes, &c->bpf.nr_probes);
	if (p && p->type == TOML_ARRAY && !p->u.arr.n)
		mx_err(mx, p->pos,
		       "probes: the list is empty; leave it out "
		       "for \"default\"");
	d = toml_table__get(tab, "device");
	if (d && mx_is(mx, d, TOML_STRING, "device")) {
		if (strcmp(d->u.str.ptr, "nic") &&
		    !is_pci_address(d->u.str.ptr))
			mx_err(mx, d->pos,
			       "device: '%s' is neither a PCI "
			       "address like '0000:3b:00.0' nor \"nic\"",
			       d->u.str.ptr);
		else
			c->bpf.device = xstrdup(d->u.str.ptr);
	}
}

static void parse_perf(struct mx *mx, struct matrix_collect *c,
		       const struct toml_value *tab)
{
	static const char *const keys[] = { "enabled",	 "event",
					    "frequency", "callgraph",
					    "counters",	 NULL };
	int cg;

	mx_check_keys(mx, tab, keys, "[collect.perf]");
	mx_string(mx, tab, "event", MX_EVENT, &c->perf.event);
	mx_uint32(mx, tab, "frequency", 1, 100000, &c->perf.frequency);
	if (mx_enum(mx, tab, "callgraph", callgraph_names, &cg) > 0)
		c->perf.callgraph = cg;
	parse_names(mx, tab, "counters", counter_names, NULL, &c->perf.counters,
		    &c->perf.nr_counters);
}

static void parse_procstat(struct mx *mx, struct matrix_collect *c,
			   const struct toml_value *tab)
{
	static const char *const keys[] = { "enabled", "interval", NULL };

	mx_check_keys(mx, tab, keys, "[collect.procstat]");
	if (mx_duration(mx, tab, "interval", &c->procstat.interval_ms) > 0 &&
	    (c->procstat.interval_ms < 10 ||
	     c->procstat.interval_ms > 3600 * 1000))
		mx_err(mx, mx_val_pos(tab, "interval", tab->pos),
		       "interval: out of range (10ms..1h)");
}

/*
 * Off unless asked for, but procstat: probes and sampling perturb the
 * very paths being measured, so throughput runs stay clean by default.
 */
static void set_defaults(struct matrix_collect *c)
{
	const char *const *k;

	for (k = matrix_default_probes; *k; k++)
		strv_add(&c->bpf.probes, &c->bpf.nr_probes, *k);
	/* NULL: the collector takes cycles where countable, else cpu-clock. */
	c->perf.frequency = 999;
	c->perf.callgraph = CALLGRAPH_FP;
	c->procstat.enabled = true;
	c->procstat.interval_ms = 1000;
}

void matrix__parse_collect(struct mx *mx, const struct toml_value *v)
{
	static const char *const keys[] = { "bpf", "perf", "procstat", NULL };
	struct matrix_collect *c = &mx->m->collect;

	set_defaults(c);
	if (!v || !mx_is(mx, v, TOML_TABLE, "collect"))
		return;
	mx_check_keys(mx, v, keys, "[collect]");
	if (collector(mx, v, "bpf", &c->bpf.enabled))
		parse_bpf(mx, c, toml_table__get(v, "bpf"));
	if (collector(mx, v, "perf", &c->perf.enabled))
		parse_perf(mx, c, toml_table__get(v, "perf"));
	if (collector(mx, v, "procstat", &c->procstat.enabled))
		parse_procstat(mx, c, toml_table__get(v, "procstat"));
}

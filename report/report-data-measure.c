// SPDX-License-Identifier: GPL-2.0-only
/* The report's data: probes, profiles and interval series. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "report-data-priv.h"
#include "util.h"

/*
 * Trial id -> bytes moved: the workload's own count ("bytes": what the
 * receiving end got over the whole trial, what the probes counted
 * over), or for trials stored before it, the throughput series.
 */
struct bytes_map {
	int64_t *trial;
	double *bytes;
	size_t nr, alloc;
};

static int load_bytes(struct rd_ctx *c, struct bytes_map *m)
{
	struct store_rows *s;
	int rc, err;

	memset(m, 0, sizeof(*m));
	err = rd__query_runs(c, &store_q_report_bytes, &s);
	if (err)
		return err;
	while ((rc = store_rows__next(s)) > 0) {
		ALLOC_GROW(m->trial, m->nr + 1, m->alloc);
		m->bytes = xrealloc(m->bytes, m->alloc * sizeof(*m->bytes));
		if (store_rows__null(s, 1))
			continue;
		m->trial[m->nr] = store_rows__int(s, 0);
		m->bytes[m->nr++] = store_rows__real(s, 1);
	}
	if (rc < 0)
		err = rc;
	store_rows__close(s);
	return err;
}

/* Bytes of @trial, or a negative number when unknown. */
static double bytes_of(const struct bytes_map *m, int64_t trial)
{
	long i = ds__find_id(m->trial, m->nr, trial);

	return i < 0 ? -1 : m->bytes[i];
}

/* Add a "[n, n, ...]" histogram into @h; -EINVAL if it is not one. */
static int add_hist(const char *s, uint64_t *h, size_t max)
{
	unsigned long long v;
	size_t i = 0;
	char *end;

	s += strspn(s, " \t\n");
	if (*s++ != '[')
		return -EINVAL;
	s += strspn(s, " \t\n");
	if (*s == ']')
		return 0;
	for (;;) {
		s += strspn(s, " \t\n");
		if (*s < '0' || *s > '9')
			return -EINVAL;
		v = strtoull(s, &end, 10);
		s = end + strspn(end, " \t\n");
		/* Slots beyond ours hold the slowest calls: keep them. */
		h[i < max ? i : max - 1] += v;
		i++;
		if (*s == ']')
			return 0;
		if (*s++ != ',')
			return -EINVAL;
	}
}

/* @workload UINT32_MAX: the column's probe over every workload. */
static struct rd_probe *probe_for(struct report_data *d, struct keymap *map,
				  uint32_t axis, uint32_t workload,
				  const char *name)
{
	uint32_t key[3] = { axis, intern__id(&d->str, name), workload };
	struct rd_probe *p;
	bool added;
	uint32_t id = keymap__id(map, key, &added);

	if (added) {
		d->probes = xrealloc(d->probes, (id + 1) * sizeof(*d->probes));
		p = &d->probes[d->nr_probes++];
		memset(p, 0, sizeof(*p));
		p->axis = axis;
		p->name = key[1];
		p->per_workload = workload != UINT32_MAX;
		p->workload = p->per_workload ? workload : 0;
		p->attach = intern__id(&d->str, "");
	}
	return &d->probes[id];
}

/* One probe row of a trial, read once for the two probes it adds to. */
struct probe_row {
	uint64_t calls, total_ns;
	double bytes; /* < 0: unknown */
	uint64_t hist[RD_HIST_MAX];
	bool bad;      /* its histogram was not one: left out */
	uint32_t rung; /* "fentry iommu_dma_unmap_page" */
};

static void probe_row__read(struct rd_ctx *c, struct store_rows *s,
			    const struct bytes_map *bytes, struct probe_row *r)
{
	char *rung;

	r->calls = store_rows__int(s, 5);
	r->total_ns = store_rows__int(s, 6);
	r->bytes = bytes_of(bytes, store_rows__int(s, 1));
	memset(r->hist, 0, sizeof(r->hist));
	r->bad = add_hist(store_rows__str(s, 7), r->hist, RD_HIST_MAX) != 0;
	if (r->bad)
		memset(r->hist, 0, sizeof(r->hist));
	rung = xasprintf("%s %s", store_rows__str(s, 3), store_rows__str(s, 4));
	r->rung = intern__id(&c->d->str, rung);
	free(rung);
}

static void probe__add(struct rd_ctx *c, struct rd_probe *p,
		       const struct probe_row *r, struct keymap *seen)
{
	uint32_t how[3] = { p - c->d->probes, r->rung, 0 };
	bool added;
	size_t i;

	p->trials++;
	p->calls += r->calls;
	p->total_ns += r->total_ns;
	if (r->bytes >= 0) {
		p->bytes += r->bytes;
		p->trials_bytes++;
	}
	for (i = 0; i < RD_HIST_MAX; i++)
		p->hist[i] += r->hist[i];
	/* The attach rung and target, once per distinct pair. */
	keymap__id(seen, how, &added);
	if (added)
		p->attach = rd__merge_set(c->d, p->attach,
					  intern__str(&c->d->str, r->rung));
}

/* What the probe rows are read into. */
struct probes {
	struct keymap map, seen;
	struct bytes_map bytes;
	size_t bad;
};

static void probe_row(struct rd_ctx *c, struct rd_cell *cell,
		      struct store_rows *s, void *arg)
{
	struct probes *ps = arg;
	struct probe_row row;
	struct rd_probe *p;
	size_t k;

	probe_row__read(c, s, &ps->bytes, &row);
	ps->bad += row.bad;
	for (k = 0; k < 2; k++) {
		p = probe_for(c->d, &ps->map, cell->axis,
			      k ? cell->workload : UINT32_MAX,
			      store_rows__str(s, 2));
		probe__add(c, p, &row, &ps->seen);
	}
}

int rd__load_probes(struct rd_ctx *c)
{
	struct probes ps = { .bad = 0 };
	int err;

	err = load_bytes(c, &ps.bytes);
	if (err)
		goto out_bytes;
	keymap__init(&ps.map, 3);
	keymap__init(&ps.seen, 3);
	err = rd__each_cell_row(c, &store_q_report_probes, probe_row, &ps);
	if (ps.bad)
		pr_warn("%s: %zu probe histograms are not JSON arrays of "
			"counts; left out",
			c->r->path, ps.bad);
	keymap__release(&ps.map);
	keymap__release(&ps.seen);
out_bytes:
	free(ps.bytes.trial);
	free(ps.bytes.bytes);
	return err;
}

static void profiled_row(struct rd_ctx *c, struct rd_cell *cell,
			 struct store_rows *s, void *map)
{
	struct report_data *d = c->d;
	uint32_t key[2] = { cell->axis, cell->workload }, id;
	struct rd_profiled *pf;
	bool added;

	id = keymap__id(map, key, &added);
	if (added) {
		d->profiled =
			xrealloc(d->profiled, (id + 1) * sizeof(*d->profiled));
		pf = &d->profiled[d->nr_profiled++];
		pf->axis = key[0];
		pf->workload = key[1];
		pf->trials = 0;
		pf->events = intern__id(&d->str, "");
	}
	pf = &d->profiled[id];
	pf->trials += store_rows__int(s, 1);
	pf->events = rd__merge_set(d, pf->events, store_rows__str(s, 2));
}

static int load_profiled(struct rd_ctx *c, struct keymap *map)
{
	return rd__each_cell_row(c, &store_q_report_profiled, profiled_row,
				 map);
}

/* The symbols of one profile, by (column, workload, symbol, dso). */
struct symbols {
	struct keymap map;
	size_t alloc;
};

static void symbol_row(struct rd_ctx *c, struct rd_cell *cell,
		       struct store_rows *s, void *arg)
{
	struct report_data *d = c->d;
	struct symbols *syms = arg;
	uint32_t key[4] = { cell->axis, cell->workload,
			    intern__id(&d->str, store_rows__str(s, 1)),
			    intern__id(&d->str, store_rows__str(s, 2)) };
	struct rd_symbol *sym;
	bool added;
	uint32_t id = keymap__id(&syms->map, key, &added);

	if (added) {
		ALLOC_GROW(d->symbols, (size_t)id + 1, syms->alloc);
		sym = &d->symbols[id];
		sym->axis = key[0];
		sym->workload = key[1];
		sym->symbol = key[2];
		sym->dso = key[3];
		sym->overhead_sum = 0;
	}
	d->symbols[id].overhead_sum += store_rows__real(s, 3);
}

int rd__load_profile(struct rd_ctx *c)
{
	struct symbols syms = { .alloc = 0 };
	struct keymap groups;
	int err;

	keymap__init(&groups, 2);
	keymap__init(&syms.map, 4);
	err = load_profiled(c, &groups);
	if (!err) {
		err = rd__each_cell_row(c, &store_q_report_symbols, symbol_row,
					&syms);
		c->d->nr_symbols = syms.map.nr;
	}
	keymap__release(&groups);
	keymap__release(&syms.map);
	return err;
}

static int load_one_series(struct rd_ctx *c, struct rd_series *se)
{
	size_t alloc = 0;
	struct store_rows *s;
	int rc, err;

	err = rdb__query(c->r, &store_q_report_series,
			 STORE_ARGS(STORE_INT(se->trial)), &s);
	if (err)
		return err;
	while ((rc = store_rows__next(s)) > 0) {
		ALLOC_GROW(se->t, se->n + 1, alloc);
		se->v = xrealloc(se->v, alloc * sizeof(*se->v));
		se->t[se->n] =
			(store_rows__real(s, 0) + store_rows__real(s, 1)) / 2;
		se->v[se->n++] = store_rows__real(s, 2);
	}
	if (rc < 0)
		err = rc;
	store_rows__close(s);
	return err;
}

/* A few trials of the newest selected run, per axis value and workload. */
int rd__load_series(struct rd_ctx *c)
{
	struct report_data *d = c->d;
	size_t *count = NULL, alloc = 0, i;
	struct rd_cell *cell;
	struct rd_series *se;
	struct keymap map;
	uint32_t key[2], id;
	struct store_rows *s;
	bool added;
	int rc, err;

	keymap__init(&map, 2);
	err = rdb__query(c->r, &store_q_report_series_trials,
			 STORE_ARGS(STORE_INT(c->runs[c->nr_runs - 1])), &s);
	if (err)
		return err;
	while ((rc = store_rows__next(s)) > 0) {
		cell = rd__cell(c, store_rows__int(s, 1));
		if (!cell)
			continue;
		key[0] = cell->axis;
		key[1] = cell->workload;
		id = keymap__id(&map, key, &added);
		if (added) {
			ALLOC_GROW(count, (size_t)id + 1, alloc);
			count[id] = 0;
		}
		if (count[id]++ >= c->series_per_cell)
			continue;
		d->series = xrealloc(d->series,
				     (d->nr_series + 1) * sizeof(*d->series));
		se = &d->series[d->nr_series++];
		memset(se, 0, sizeof(*se));
		se->axis = key[0];
		se->workload = key[1];
		se->trial = store_rows__int(s, 0);
	}
	if (rc < 0)
		err = rc;
	store_rows__close(s);
	for (i = 0; !err && i < d->nr_series; i++)
		err = load_one_series(c, &d->series[i]);
	free(count);
	keymap__release(&map);
	return err;
}

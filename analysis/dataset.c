// SPDX-License-Identifier: GPL-2.0-only
/* Series of trial metrics, and the filters that select them. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dataset.h"
#include "log.h"
#include "util.h"

const char *const ds_dim_names[DS_NR_DIMS] = {
	"run", "host", "kernel", "mode", "workload", "label",
};

int ds__dim_parse(const char *name)
{
	int i;

	for (i = 0; i < DS_NR_DIMS; i++)
		if (!strcmp(name, ds_dim_names[i]))
			return i;
	return -1;
}

int ds_filter__add(struct ds_filter *f, const char *arg)
{
	const char *eq = strchr(arg, '=');
	char *key;
	int k;

	if (!eq || eq == arg || !eq[1]) {
		pr_err("--only wants KEY=VALUE (e.g. mode=lazy), got '%s'",
		       arg);
		return -EINVAL;
	}
	key = xstrndup(arg, eq - arg);
	k = strcmp(key, "metric") ? ds__dim_parse(key) : DS_FILTER_METRIC;
	if (k < 0) {
		pr_err("--only %s: unknown key '%s' (run, host, kernel, mode, "
		       "workload, label or metric)",
		       arg, key);
		free(key);
		return -EINVAL;
	}
	free(key);
	ALLOC_GROW(f->v, f->nr + 1, f->alloc);
	f->v[f->nr].key = k;
	f->v[f->nr++].value = xstrdup(eq + 1);
	return 0;
}

bool ds_filter__match(const struct ds_filter *f, int key, const char *value)
{
	bool keyed = false;
	size_t i;

	for (i = 0; f && i < f->nr; i++) {
		if (f->v[i].key != key)
			continue;
		if (!strcmp(f->v[i].value, value))
			return true;
		keyed = true;
	}
	return !keyed;
}

void ds_filter__release(struct ds_filter *f)
{
	size_t i;

	for (i = 0; i < f->nr; i++)
		free(f->v[i].value);
	free(f->v);
	memset(f, 0, sizeof(*f));
}

long ds__find_id(const int64_t *ids, size_t nr, int64_t id)
{
	size_t lo = 0, hi = nr, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (ids[mid] == id)
			return (long)mid;
		if (ids[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

void dataset__init(struct dataset *ds)
{
	memset(ds, 0, sizeof(*ds));
	keymap__init(&ds->metric_map, 2);
	keymap__init(&ds->series_map, DS_NR_DIMS + 1);
	keymap__init(&ds->seen, 2);
}

void dataset__release(struct dataset *ds)
{
	size_t i;

	for (i = 0; i < ds->nr_series; i++)
		free(ds->series[i].v);
	free_all(ds->series, ds->metrics, ds->effective, ds->unprotected);
	keymap__release(&ds->metric_map);
	keymap__release(&ds->series_map);
	keymap__release(&ds->seen);
	intern__release(&ds->str);
	dataset__init(ds);
}

const char *ds__str(const struct dataset *ds, uint32_t id)
{
	return intern__str(&ds->str, id);
}

bool ds__metric_is_exposure(const char *name)
{
	return !strncmp(name, "exposure_", 9) || !strcmp(name, "stale_max");
}

void dataset__mark_unprotected(struct dataset *ds,
			       const uint32_t dim[DS_NR_DIMS])
{
	ALLOC_GROW(ds->unprotected, ds->nr_unprotected + 1,
		   ds->alloc_unprotected);
	memcpy(ds->unprotected[ds->nr_unprotected++], dim,
	       sizeof(ds->unprotected[0]));
}

bool dataset__unprotected(const struct dataset *ds,
			  const uint32_t dim[DS_NR_DIMS], const char *metric)
{
	size_t i;
	int d;

	if (!ds__metric_is_exposure(metric))
		return false;
	for (i = 0; i < ds->nr_unprotected; i++) {
		for (d = 0; d < DS_NR_DIMS; d++)
			if (dim[d] != UINT32_MAX &&
			    dim[d] != ds->unprotected[i][d])
				break;
		if (d == DS_NR_DIMS)
			return true;
	}
	return false;
}

uint32_t dataset__metric_id(struct dataset *ds, const char *name,
			    const char *unit, enum store_better better)
{
	uint32_t key[2] = { intern__id(&ds->str, name),
			    intern__id(&ds->str, unit) };
	bool added;
	uint32_t id = keymap__id(&ds->metric_map, key, &added);

	if (added) {
		ALLOC_GROW(ds->metrics, ds->nr_metrics + 1, ds->alloc_metrics);
		ds->metrics[id].name = key[0];
		ds->metrics[id].unit = key[1];
		ds->metrics[id].better = better;
		ds->nr_metrics++;
	}
	return id;
}

void dataset__add_value(struct dataset *ds, const uint32_t dim[DS_NR_DIMS],
			uint32_t metric, double value)
{
	uint32_t key[DS_NR_DIMS + 1];
	struct ds_series *se;
	bool added;
	uint32_t id;

	memcpy(key, dim, DS_NR_DIMS * sizeof(*key));
	key[DS_NR_DIMS] = metric;
	id = keymap__id(&ds->series_map, key, &added);
	if (added) {
		ALLOC_GROW(ds->series, ds->nr_series + 1, ds->alloc_series);
		se = &ds->series[ds->nr_series++];
		memset(se, 0, sizeof(*se));
		memcpy(se->dim, dim, sizeof(se->dim));
		se->metric = metric;
	}
	se = &ds->series[id];
	ALLOC_GROW(se->v, se->n + 1, se->alloc);
	se->v[se->n++] = value;
}

void dataset__add(struct dataset *ds, const uint32_t dim[DS_NR_DIMS],
		  const char *metric, const char *unit,
		  enum store_better better, double value)
{
	dataset__add_value(ds, dim,
			   dataset__metric_id(ds, metric, unit, better), value);
}

char *ds__effective_text(const struct dataset *ds, size_t i)
{
	const struct ds_effective *e = &ds->effective[i];
	bool hosts = false;
	size_t j;

	for (j = 0; j < ds->nr_effective; j++)
		hosts = hosts || ds->effective[j].host != e->host;
	if (hosts)
		return xasprintf("%s on host %s, kernel %s: %s",
				 ds__str(ds, e->mode), ds__str(ds, e->host),
				 ds__str(ds, e->kernel),
				 ds__str(ds, e->effective));
	return xasprintf("%s on kernel %s: %s", ds__str(ds, e->mode),
			 ds__str(ds, e->kernel), ds__str(ds, e->effective));
}

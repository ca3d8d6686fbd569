/* SPDX-License-Identifier: GPL-2.0-only */
/* Shared by report-data*.c only. */
#ifndef IOMMU_BENCH_REPORT_DATA_PRIV_H
#define IOMMU_BENCH_REPORT_DATA_PRIV_H

#include "report-data.h"

struct rd_ctx {
	struct report_data *d;
	struct rdb *r;
	const int64_t *runs;
	size_t nr_runs;
	const struct ds_filter *f;
	size_t series_per_cell;
	/* Store cell id -> index into d->cells, -1 when left out. */
	int64_t *cell_of;
	size_t nr_cell_of;
	struct keymap cell_map;
};

/* The aggregated cell of store cell @id, or NULL when it is left out. */
struct rd_cell *rd__cell(const struct rd_ctx *c, int64_t id);
/* @q run with ?1 and ?2 bound to the first and last run read. */
int rd__query_runs(const struct rd_ctx *c, const struct store_query *q,
		   struct store_rows **s);
/*
 * @fn(@c, cell, row, @arg) for each row of @q over the runs read whose
 * first column is a cell kept; others are passed over.
 */
int rd__each_cell_row(struct rd_ctx *c, const struct store_query *q,
		      void (*fn)(struct rd_ctx *c, struct rd_cell *cell,
				 struct store_rows *row, void *arg),
		      void *arg);
bool rd__run_selected(const struct rd_ctx *c, int64_t run);
/* Add the comma-separated @more to the set @old ("a, b"); interned. */
uint32_t rd__merge_set(struct report_data *d, uint32_t old, const char *more);

int rd__load_cells(struct rd_ctx *c);
int rd__load_boots(struct rd_ctx *c);
int rd__load_configs(struct rd_ctx *c);
int rd__load_failures(struct rd_ctx *c);
int rd__load_probes(struct rd_ctx *c);
int rd__load_profile(struct rd_ctx *c);
/* c->series_per_cell trials per column and workload. */
int rd__load_series(struct rd_ctx *c);
/* report-data-carried.c */
int rd__load_carried(struct rd_ctx *c);
int rd__load_perturbation(struct rd_ctx *c);

#endif /* IOMMU_BENCH_REPORT_DATA_PRIV_H */

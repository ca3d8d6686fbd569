/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A real store with one running trial, as a run leaves it when a
 * collector or a workload stores its results: for the unit tests and
 * the fuzz targets that store what they parsed.
 */
#ifndef IOMMU_BENCH_TESTS_SCRATCH_STORE_H
#define IOMMU_BENCH_TESTS_SCRATCH_STORE_H

#include <stdint.h>

#include "store/store.h"

/* What the trial's rows name; the rest is the same for every caller. */
struct scratch_trial {
	const char *run;
	const char *machine;
	const char *boot_id;
	const char *release;
	const char *kernel;
	const char *mode;
	const char *cell_key;
};

/*
 * A new store at @path (its rows in a transaction left open) with the
 * run, host, boot, kernel and cell of @t and a started trial of that
 * cell: 0 or -errno, the store in *@stp, the run's and the trial's ids.
 */
static inline int scratch_store__open(const char *path,
				      const struct scratch_trial *t,
				      struct store **stp, int64_t *run,
				      int64_t *trial)
{
	struct store_boot boot = { t->boot_id, t->release, NULL, "", NULL };
	struct store_kernel k = { .name = t->kernel };
	int64_t host, boot_row, kernel, cell;
	struct store *st = NULL;
	int ret;

	ret = store__open(path, STORE_CREATE, &st);
	*stp = st;
	if (ret)
		return ret;
	return store__begin(st)						?:
		       store__run_begin(st, t->run, "", 0, run)		?:
		       store__host_upsert(st, "sut", t->machine, &host) ?:
		       store__boot_upsert(st, host, &boot, &boot_row)	?:
		       store__kernel_upsert(st, &k, &kernel)		?:
		       store__cell_upsert(st, &(struct store_cell){ *run, host, kernel, t->mode, "w", t->cell_key }, &cell) ?:
		       store__trial_find_or_insert(st, cell, 1, STORE_TRIAL_MEASURED, trial, NULL) ?:
		       store__trial_start(st, *trial, boot_row, t->mode,
					  t->mode);
}

#endif /* IOMMU_BENCH_TESTS_SCRATCH_STORE_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/* Shard databases combined into one (iommu-bench db merge OUT IN...). */
#ifndef IOMMU_BENCH_DB_MERGE_H
#define IOMMU_BENCH_DB_MERGE_H

/*
 * @in's runs, cells, trials and what they measured copied into @out, in
 * one transaction: a merge repeated or interrupted duplicates no row.
 * Both are databases of this binary's schema version. 0 or -EIO, with
 * SQLite's words logged.
 */
int store__merge(const char *out, const char *in);

#endif /* IOMMU_BENCH_DB_MERGE_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * iommu-bench db merge OUT IN...: shard databases combined into one.
 */
#ifndef IOMMU_BENCH_DB_MERGE_H
#define IOMMU_BENCH_DB_MERGE_H

/* @argv[0] is "merge"; returns an exit code. */
int cmd_db_merge(int argc, const char **argv);

#endif /* IOMMU_BENCH_DB_MERGE_H */

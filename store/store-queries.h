/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The read-only queries by name, for store__query(); their SQL is in
 * store/store-q-*.c. "The runs" are ?1 and ?2, the first and the last
 * run read (rdb__query_runs()).
 */
#ifndef IOMMU_BENCH_STORE_QUERIES_H
#define IOMMU_BENCH_STORE_QUERIES_H

struct store_query;

/* store-q-analysis.c */
extern const struct store_query store_q_runs;
extern const struct store_query store_q_kernel_names;
extern const struct store_query store_q_kernel_last_run;
extern const struct store_query store_q_kernel_packages;
extern const struct store_query store_q_run_config;
extern const struct store_query store_q_noise;
extern const struct store_query store_q_ds_cells;
extern const struct store_query store_q_ds_trials;
extern const struct store_query store_q_ds_metrics_scan;
extern const struct store_query store_q_ds_metrics_seek;
extern const struct store_query store_q_max_trial;

/* store-q-cost.c */
extern const struct store_query store_q_cost_trials;
extern const struct store_query store_q_cost_metrics;
extern const struct store_query store_q_cost_probes;
extern const struct store_query store_q_cost_profile;
extern const struct store_query store_q_cost_targets;

/* store-q-report.c */
extern const struct store_query store_q_report_cells;
extern const struct store_query store_q_report_boots;
extern const struct store_query store_q_report_configs;
extern const struct store_query store_q_report_failures;
extern const struct store_query store_q_report_collectors;
extern const struct store_query store_q_report_throughput;
extern const struct store_query store_q_report_bytes;
extern const struct store_query store_q_report_probes;
extern const struct store_query store_q_report_profiled;
extern const struct store_query store_q_report_symbols;
extern const struct store_query store_q_report_series;
extern const struct store_query store_q_report_series_trials;

/* store-q-history.c */
extern const struct store_query store_q_history_nights;

/* store-q-kcidb.c: one run each, ?1 */
extern const struct store_query store_q_kcidb_kernels;
extern const struct store_query store_q_kcidb_values;
extern const struct store_query store_q_kcidb_trials;
extern const struct store_query store_q_kcidb_regressions;

#endif /* IOMMU_BENCH_STORE_QUERIES_H */

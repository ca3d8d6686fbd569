/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Diagnostics go to stderr so that stdout stays clean for data (--json,
 * CSV). Verbosity is global: set once from -v in main.
 */
#ifndef IOMMU_BENCH_LOG_H
#define IOMMU_BENCH_LOG_H

extern int log_verbosity;

void pr_msg(int level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

enum { LOG_ERR, LOG_WARN, LOG_INFO, LOG_DEBUG };

#define pr_err(...) pr_msg(LOG_ERR, __VA_ARGS__)
#define pr_warn(...) pr_msg(LOG_WARN, __VA_ARGS__)
#define pr_info(...) pr_msg(LOG_INFO, __VA_ARGS__)
#define pr_debug(...) pr_msg(LOG_DEBUG, __VA_ARGS__)

#endif /* IOMMU_BENCH_LOG_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * compare's outputs: the text table, JSON and CSV, and the JSON helpers
 * the other outputs share. The comparison itself is analysis/compare.h.
 */
#ifndef IOMMU_BENCH_REPORT_COMPARE_PRINT_H
#define IOMMU_BENCH_REPORT_COMPARE_PRINT_H

#include <stdio.h>

#include "analysis/compare.h"

/*
 * "+168% [+165%, +170%] (p<0.001 n=10+9) better", "~ [...] (...)", or
 * "? (n=3+3) ²": a comparison as the text table shows it (new string).
 */
char *cmp__delta_text(const struct cmp_cell *base, const struct cmp_cell *c);

/* Outputs (compare-print.c). */
void cmp__print_text(const struct cmp_table *t, FILE *fp);
int cmp__print_json(const struct cmp_table *t, FILE *fp);
void cmp__print_csv(const struct cmp_table *t, FILE *fp);

/* JSON helpers shared by the outputs (jansson's json_t). */
struct json_t;
struct json_t *report_json_str(const char *s);
struct json_t *report_json_num(double v);
/*
 * Print @root (its reference taken) to @fp as --json prints: indented,
 * keys in order, reals to ten digits, a newline after. -EIO on failure.
 */
int report_json_print(struct json_t *root, FILE *fp);

#endif /* IOMMU_BENCH_REPORT_COMPARE_PRINT_H */

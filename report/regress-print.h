/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * regress's outputs: text, JSON and JUnit. The judgement itself is
 * analysis/regress.h.
 */
#ifndef IOMMU_BENCH_REPORT_REGRESS_PRINT_H
#define IOMMU_BENCH_REPORT_REGRESS_PRINT_H

#include <stdio.h>

#include "analysis/regress.h"

/* ---- outputs (regress-print.c, junit.c) ---- */

void regress__print_text(const struct regress_result *res,
			 const struct regress_history *h,
			 const struct regress_opts *o, bool all, FILE *fp);
int regress__print_json(const struct regress_result *res,
			const struct regress_history *h,
			const struct regress_opts *o, bool failed, FILE *fp);
/* One line of the text output, for the JUnit messages too. */
void regress__print_item(const struct regress_result *res,
			 const struct regress_item *it, FILE *fp);
void regress__print_cp(const struct regress_history *h,
		       const struct regress_series *s,
		       const struct regress_cp *c, FILE *fp);
/* JUnit XML, as GitLab and GitHub test reports read it. */
int regress__write_junit(const struct regress_result *res,
			 const struct regress_history *h, const char *path);

#endif /* IOMMU_BENCH_REPORT_REGRESS_PRINT_H */

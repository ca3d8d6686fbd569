/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Shared by the history page's writers (report/history*.c) only: the
 * page being written, the plots drawn before it, and what each file
 * writes into it.
 */
#ifndef IOMMU_BENCH_REPORT_HISTORY_PRIV_H
#define IOMMU_BENCH_REPORT_HISTORY_PRIV_H

/* FILE comes with regress.h's <stdio.h>. */
#include "analysis/history.h"
#include "history.h"

/* The index in h->nights of @robot's first night drawn (history-plots.c). */
size_t history__first_night(const struct history *h, const char *robot);

struct history_page {
	FILE *fp;
	const struct history_opts *o;
	const struct history *h;
	char *page_dir; /* absolute: where links are relative to */
	char **svgs;	/* per series; NULL: not drawn */
	size_t plot_failures;
};

/* history-plots.c: every series' small multiple, one gnuplot for all. */
void history_plots__draw(struct history_page *pg);
/* The grid of small multiples. */
void history_plots__grid(struct history_page *pg);

/* history-table.c: the regressions, their state, mail and report. */
void history_table__write(struct history_page *pg);

#endif /* IOMMU_BENCH_REPORT_HISTORY_PRIV_H */

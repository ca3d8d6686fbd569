/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * compare --cost's outputs and the sentences the report's cost section
 * shares with them. The cost table itself is analysis/cost.h.
 */
#ifndef IOMMU_BENCH_REPORT_COST_PRINT_H
#define IOMMU_BENCH_REPORT_COST_PRINT_H

#include <stdio.h>

#include "analysis/cost.h"

/*
 * A dma_map group's figures per call, in the order its differences are
 * told: the benchmark's mean, the probe's whole call. The difference of
 * @pa's figure cost_call_figs[@fig] between column @col and the
 * baseline, as a sentence (free() it), or NULL where there is none.
 */
#define COST_NR_CALL_FIGS 2
extern const enum cost_fig cost_call_figs[COST_NR_CALL_FIGS];
char *cost__call_diff_text(const struct cost_table *ct,
			   const struct cost_path *pa, size_t fig, size_t col);

/*
 * "0.065% (0.03-0.1%) / 0.016% (0.004-0.06%) agree": probes / perf on the
 * profile trials, each with its interval; "-".
 */
char *cost__profile_text(const struct cost_table *ct, const struct cost_path *p,
			 size_t col);
struct fmt_scale;
/* "in no probed path" for COST_UNPROBED...; a probe's own name. */
const char *cost__path_label(const char *name);
/*
 * Column @col against the baseline, decomposed: "lazy spends 2.7 s less
 * CPU per GB than strict [..] (p=.. n=..): -2.4 unmap, ...", the times
 * scaled by @sc (they are held in ms). A new string; NULL when either
 * side has no busy CPU.
 */
char *cost__diff_text(const struct cost_table *ct, const struct cost_group *g,
		      size_t col, const struct fmt_scale *sc);
void cost__print_text(const struct cost_table *ct, FILE *fp);
int cost__print_json(const struct cost_table *ct, FILE *fp);

#endif /* IOMMU_BENCH_REPORT_COST_PRINT_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/* Shared by the report's section writers (report*.c) only. */
#ifndef IOMMU_BENCH_REPORT_PRIV_H
#define IOMMU_BENCH_REPORT_PRIV_H

#include <stdio.h>

#include "bpf/probe-names.h"
#include "analysis/compare.h"
#include "analysis/cost.h"
#include "analysis/noise.h"
#include "plot.h"
#include "report-data.h"
#include "report.h"

struct report_ctx {
	FILE *fp;
	const struct report_opts *o;
	const struct dataset *ds;
	const struct cmp_table *t;
	const struct report_data *d;
	const struct noise *noise;     /* throughput's; may be NULL */
	const struct cost_table *cost; /* NULL: none could be read */
	const struct rdb_runs *all;
	const int64_t *runs;
	size_t nr_runs;
	const char *db_path;
	/* Axis values in column order, as strings (baseline first). */
	const char **cols;
	size_t nr_cols;
	size_t plots, plot_failures;
};

/* The column of axis value @name, or -1. */
int report__col(const struct report_ctx *c, const char *name);
/* The cmp_table metric index called @name, or -1. */
int report__metric(const struct report_ctx *c, const char *name);

/*
 * The row of @metric (-1: none) with @like's key (its workload, kernel
 * ...), or NULL.
 */
const struct cmp_row *report__row_like(const struct cmp_table *t, int metric,
				       const struct cmp_row *like);

/* html.c */
void html__head(FILE *fp, const char *title);
void html__foot(FILE *fp);
/* <h2 id="@id">@title</h2>, escaped. */
void html__h2(FILE *fp, const char *id, const char *title);
void html__td(FILE *fp, const char *cls, const char *text);
void html__th(FILE *fp, const char *text);
/* A row of headers, @heads NULL-terminated. */
void html__th_row(FILE *fp, const char *const *heads);
/* A count in a cell of class @cls ("num", "num worse"). */
void html__td_count(FILE *fp, const char *cls, size_t n);
/* A delta's CSS class: better, worse or same. */
const char *html__verdict_class(enum cmp_verdict v);

/* The sections, in page order. */
void report__headline(struct report_ctx *c);
/*
 * A boot's platform in one line, from its facts JSON: "aarch64, Arm
 * Cortex-A57, 2 CPUs, Arm SMMUv3, QEMU virt (cortex-a57) under TCG".
 * A new string; NULL without facts.
 */
char *report__platform(const char *facts_json);
/* "Platform: HOST: ...; HOST: ...", one paragraph, each host once. */
void report__platforms(struct report_ctx *c);
void report__warnings(struct report_ctx *c);
void report__plots(struct report_ctx *c);
void report__profile(struct report_ctx *c);
void report__collectors(struct report_ctx *c);
void report__stats(struct report_ctx *c);
void report__noise(struct report_ctx *c);
void report__verification(struct report_ctx *c);
void report__environment(struct report_ctx *c);

/* report-plots.c: the probe of @name in column @col, or NULL. */
const struct rd_probe *report__probe(const struct report_ctx *c, uint32_t name,
				     size_t col);
/* The same for one workload's trials (NULL: every workload's). */
const struct rd_probe *report__probe_w(const struct report_ctx *c,
				       uint32_t name, size_t col,
				       const uint32_t *workload);
/* Calls per GB moved; NAN when some trials had no interval series. */
double report__per_gb(const struct rd_probe *p);
/* report-profile.c: the numbers under the probe plot. */
void report__probe_table(struct report_ctx *c, const uint32_t *names, size_t n);

/* Inline a rendered plot, or a note saying why there is none. */
/*
 * Probe @name's histogram (log2 ns), columns overlaid; @what labels the
 * x axis ("latency", "window").
 */
void report__plot_hist(struct report_ctx *c, uint32_t name, const char *id,
		       const char *what, const char *caption);
/* Column @col's colour in every plot. */
const char *report__colour(size_t col);
/* report-plots.c: the probes' names, by their place (bpf/probe-names.h). */
extern const char *const report_probe_names[PROBE__NR];
/* The probes row the exposure window is stored in. */
#define EXPOSURE_PROBE report_probe_names[PROBE_exposure]
void report__exposure(struct report_ctx *c);
void report__cost(struct report_ctx *c);
void report__figure(struct report_ctx *c, struct plot *p, const char *id,
		    const char *caption);

#endif /* IOMMU_BENCH_REPORT_PRIV_H */

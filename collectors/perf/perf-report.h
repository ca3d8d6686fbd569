/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * `perf report --stdio` output, as the perf collector runs it, into
 * (symbol, dso, overhead, samples) rows. The columns are separated by a
 * character no symbol contains (PERF_REPORT_SEP, perf's -t), and found
 * by name in the header, so odd symbols (spaces, brackets, C++ and Rust
 * names, raw addresses) stay whole; lines that are not rows (warnings
 * perf mixes into stdout) are counted and skipped, never guessed at.
 */
#ifndef IOMMU_BENCH_PERF_REPORT_H
#define IOMMU_BENCH_PERF_REPORT_H

#include <stddef.h>
#include <stdint.h>

/* ASCII unit separator: what perf report -t puts between columns. */
#define PERF_REPORT_SEP '\x1f'

struct perf_row {
	char *event;  /* the section's event ("cpu-clock") */
	char *symbol; /* without perf's [k]/[.] marker */
	char *dso;    /* "" when perf printed none */
	char mode;    /* the marker: 'k' kernel, '.' user, 'g', 'u', 'H'; 0 */
	double overhead; /* percent: period / the section's total, else
			  * as perf printed it (two decimals) */
	uint64_t samples;
};

struct perf_report {
	struct perf_row *rows;
	size_t nr, alloc;
	uint64_t lost;	  /* "# Total Lost Samples:" */
	uint64_t samples; /* sum over rows, those dropped by the limit too */
	size_t skipped;	  /* lines that were neither comments nor rows */
	size_t dropped;	  /* rows below the limit (perf_report__limit) */
};

/* Parse @text into @r (zeroed by the caller). -EINVAL: no header at all. */
int perf_report__parse(const char *text, struct perf_report *r);
void perf_report__release(struct perf_report *r);
/* Drop rows whose overhead is below @percent or 0. */
void perf_report__limit(struct perf_report *r, double percent);

/* The argument vector perf_report__run() uses, for the curious. */
#define PERF_REPORT_SORT "dso,sym"

#endif /* IOMMU_BENCH_PERF_REPORT_H */

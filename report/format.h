/* SPDX-License-Identifier: GPL-2.0-only */
/* Numbers for people: units scaled to a readable prefix, 4 digits. */
#ifndef IOMMU_BENCH_REPORT_FORMAT_H
#define IOMMU_BENCH_REPORT_FORMAT_H

#include <stddef.h>

struct fmt_scale {
	double mul;    /* display value = value * mul */
	char unit[48]; /* the unit after scaling: "Gbit/s", "µs" */
};

/*
 * The scale that shows @ref (a typical value) between 1 and 1000: SI
 * prefixes for rates, bytes and counts, ns/µs/ms/s for times, nothing
 * for percentages.
 */
void fmt__scale(const char *unit, double ref, struct fmt_scale *sc);

/* @v with about four significant digits and no exponent; "-" for NAN. */
char *fmt__num(double v, char *buf, size_t size);
/* A signed percentage, "+167.1%", "-4.96%". */
char *fmt__pct(double pct, char *buf, size_t size);
/* "p<0.001" or "p=0.012". */
char *fmt__p(double p, char *buf, size_t size);
/* The shortest "%.*g" that reads back as the same double. */
int fmt__precision(double v);

/* Columns a UTF-8 string takes on a terminal. */
size_t fmt__width(const char *s);

#define FMT_MAX 64

#endif /* IOMMU_BENCH_REPORT_FORMAT_H */

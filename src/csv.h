/* SPDX-License-Identifier: GPL-2.0-only */
/* CSV as RFC 4180 writes it: what export and compare --csv both print. */
#ifndef IOMMU_BENCH_CSV_H
#define IOMMU_BENCH_CSV_H

#include <stdbool.h>
#include <stdio.h>

/*
 * One field, quoted when it holds a comma, a quote or a line break, then
 * a comma, or CRLF after the @last of a row.
 */
void csv__field(FILE *fp, const char *s, bool last);

#endif /* IOMMU_BENCH_CSV_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Text into HTML and XML. Host, kernel and symbol names, error texts
 * and facts come from outside (a binary's symbol table can hold any
 * bytes), so every string is escaped on its way into markup, and bytes
 * that are not UTF-8, or control characters XML forbids, become U+FFFD:
 * the document stays well-formed whatever the input.
 */
#ifndef IOMMU_BENCH_REPORT_MARKUP_H
#define IOMMU_BENCH_REPORT_MARKUP_H

#include <stdio.h>

/* Escape & < > " ' (safe in text and in quoted attributes). */
void markup__escape(FILE *fp, const char *s);
/* printf, then the result escaped. */
void markup__escapef(FILE *fp, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif /* IOMMU_BENCH_REPORT_MARKUP_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Plots: gnuplot (gnuplot-nox, its svg terminal) run as an argument
 * vector, the script on its stdin, the SVG read from its stdout, and
 * turned into markup that can sit inline in an HTML page beside other
 * plots: the XML prolog dropped and every id (gnuplot names them all
 * "gnuplot_canvas", "gpPt0" ...) prefixed with the plot's own name.
 */
#ifndef IOMMU_BENCH_REPORT_PLOT_H
#define IOMMU_BENCH_REPORT_PLOT_H

#include <stddef.h>

/* A script being written: open_memstream under the hood. */
struct plot {
	char *script;
	size_t len;
	void *fp; /* FILE *, for plot__printf */
};

void plot__begin(struct plot *p, int width, int height);
void plot__printf(struct plot *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/*
 * A gnuplot single-quoted string literal of @s: quotes doubled, control
 * characters blanked, bytes that are not UTF-8 made '?'.
 */
void plot__quote(struct plot *p, const char *s);

/*
 * Run gnuplot on the script and return the SVG, ready to inline, with
 * ids prefixed "@id-". 0, or a negative errno with gnuplot's own
 * complaint printed (-ENOENT: gnuplot is not installed).
 */
int plot__render(struct plot *p, const char *id, char **svg);
/*
 * One gnuplot for a script of @nr plots (each "plot" a document of its
 * own): @svgs[i] the i-th, ids prefixed "@id<i>-". 0, or a negative
 * errno, said; what was drawn is in @svgs either way (NULL: not).
 */
int plot__render_each(struct plot *p, const char *id, char **svgs, size_t nr);
void plot__release(struct plot *p);

/* Seconds a gnuplot run may take before it is killed. */
#define PLOT_TIMEOUT_S 30

#endif /* IOMMU_BENCH_REPORT_PLOT_H */

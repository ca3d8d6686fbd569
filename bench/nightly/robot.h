/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the kernel test robot writes, for IOMMU DMA: its comparison table
 * and its mail (RFC 5322, in an mbox file), in the shape kernel
 * developers already read from lkp's robot. Pure formatting: the night
 * (nightly.h) decides what goes in.
 */
#ifndef IOMMU_BENCH_NIGHTLY_ROBOT_H
#define IOMMU_BENCH_NIGHTLY_ROBOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <time.h>

/* ---- the table (robot-table.c) ---- */

struct robot_row {
	const char *name;	   /* the last column */
	double base, head;	   /* the sides' means; NAN: not measured */
	double base_rsd, head_rsd; /* relative stddev, percent; NAN: none */
	/*
	 * A percentage or a profile's share: the change is the difference,
	 * printed without a % sign, as lkp prints them.
	 */
	bool absolute;
};

/* The row's %change (or difference, when absolute); NAN when none. */
double robot_row__change(const struct robot_row *r);
/* The header with both commits' ids, then a line per row. */
void robot_table__print(FILE *fp, const char *base, const char *head,
			const struct robot_row *rows, size_t n);

/* A profile's symbol at both ends: its share of the samples, percent. */
struct robot_symbol {
	const char *event, *symbol;
	double base, head; /* 0 where that end did not sample it */
};

/*
 * How far a symbol's share must move, in points, to be a row: less is
 * what two profiles of the same kernel differ by (a share's sampling
 * noise at a few thousand samples a trial).
 */
#define ROBOT_PROFILE_MOVE 1.0

/*
 * Sorts @syms by how far their share moved, the biggest move first, and
 * returns how many moved by ROBOT_PROFILE_MOVE points or more: the
 * symbols lkp lists after the metrics, as perf-profile rows.
 */
size_t robot_symbols__moved(struct robot_symbol *syms, size_t n);

/* ---- the mail (robot-mail.c) ---- */

/* One end of the comparison: a commit of a tree, or a Debian package. */
struct robot_rev {
	const char *commit;	       /* 40 hex; NULL for a package */
	const char *subject;	       /* the commit's first line */
	const char *author;	       /* "Name <address>" */
	const char *package, *version; /* a package kernel instead */
};

struct robot_mail {
	const char *from;
	const char *const *to; /* the commit's author is the caller's */
	size_t nr_to;
	const char *const *cc;
	size_t nr_cc;
	const char *message_id; /* without the angle brackets */
	time_t date;
	bool improvement;
	const char *workload, *metric;
	double change_pct;	   /* the regressed metric's, signed */
	const char *tree, *branch; /* what the night follows */
	struct robot_rev base, head;
	/* Why no commit is named: the range cannot be bisected. */
	const char *no_commit;
	const char *machine;	   /* "test machine:" */
	const char *config;	   /* the kernel config's name */
	const char *compiler;	   /* NULL: not built here */
	const char *const *params; /* "key: value", the parameters block */
	size_t nr_params;
	const char *reproduced; /* how often the confirmation saw it */
	const char *bisect;	/* how the commit was found; NULL: not */
	const char *reported_by, *closes; /* the trailers */
	const char *materials;		  /* the reproduction folder */
	const char *axes, *axis_values;	  /* "mode/workload", "lazy/rx" */
	const struct robot_row *rows;
	size_t nr_rows;
};

/* "iommu/dma: skip the sync" -> "iommu/dma"; NULL when it has none. */
char *robot__subject_prefix(const char *subject);
/* The Subject: line's text, as lkp's robot words it. */
char *robot_mail__subject(const struct robot_mail *m);
/*
 * The message as one mbox entry (its "From " line, the headers, the
 * body with "From " lines quoted). Header values never break a line:
 * CR and LF from a commit's words become spaces; non-ASCII words are
 * encoded (RFC 2047). 0, or -EIO when @fp fails.
 */
int robot_mail__write(const struct robot_mail *m, FILE *fp);

#endif /* IOMMU_BENCH_NIGHTLY_ROBOT_H */

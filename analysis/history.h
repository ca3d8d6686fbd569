/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The nightly history as series to draw: the last N finished nights of
 * each robot (nights.series, the matrix's [run] name), each (host,
 * kernel, mode, workload, metric) of their runs one series whose points
 * are nights (the median of its trials with the median's interval), the
 * change points regress --history finds in it with their verdict, and
 * the regressions rows the robot stored for them with their triage
 * state. N counts nights per robot: a history longer than a robot's is
 * refused, never drawn short.
 */
#ifndef IOMMU_BENCH_ANALYSIS_HISTORY_H
#define IOMMU_BENCH_ANALYSIS_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dataset.h"
#include "rdb.h"
#include "regress.h"

struct history_night {
	int64_t id, run_id;
	char *robot;   /* nights.series */
	char *kernel;  /* the followed kernel's name */
	char *head;    /* a commit or a package's version */
	char *label;   /* the x axis': the version, or the short hash */
	char *subject; /* the commit's subject; "" */
	char *verdict; /* the night's; "" */
};

struct history_point {
	size_t night;	       /* index into history.nights */
	double median, lo, hi; /* lo, hi: NAN when too few for an interval */
	size_t n;
};

struct history_mark {
	size_t at;		    /* the first point after the change */
	enum regress_status status; /* REG_REGRESSION or REG_IMPROVEMENT */
	bool recovered;
	double change_pct;		    /* of the mean level, in percent */
	const struct store_regression *reg; /* the robot's row; NULL: none */
};

struct history_series {
	const char *robot, *host, *kernel, *mode, *workload, *metric, *unit;
	struct history_point *pts;
	size_t n;
	struct history_mark *marks; /* regressions and improvements only */
	size_t nr_marks;
	int rank;   /* 0 regressed still, 1 recovered, 2 improved, 3 the rest */
	size_t seq; /* within a rank: regress__history's order */
};

struct history {
	size_t last;		      /* N */
	struct history_night *nights; /* per robot, oldest first */
	size_t nr_nights;
	struct history_series *series; /* regressed first, then the rest */
	size_t nr_series;
	struct store_regression *regs; /* of the nights drawn, oldest first */
	size_t nr_regs;
	struct regress_history *rh; /* one per robot: the strings' owners */
	size_t nr_rh;
};

/*
 * Read the last @last nights of every robot and their runs' trials
 * that pass @f. 0; -ENOENT (no finished night: advice printed), -EINVAL
 * (a robot with fewer nights than @last, or a bad filter: said), or
 * another negative errno, said.
 */
int history__load(struct rdb *r, size_t last, const struct ds_filter *f,
		  struct history *h);
void history__release(struct history *h);

/* The night's index in @h of night id @id, or -1. */
long history__night(const struct history *h, int64_t id);
/* "regression" or "improvement". */
const char *history__verdict(const struct history_mark *m);

#endif /* IOMMU_BENCH_ANALYSIS_HISTORY_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/* Options compare, report and regress share, parsed the same way. */
#ifndef IOMMU_BENCH_REPORT_OPTS_H
#define IOMMU_BENCH_REPORT_OPTS_H

#include <stddef.h>
#include <stdint.h>

#include "parse-options.h"
#include "rdb.h"

/* A repeatable string option: OPT_CALLBACK(..., &list, ..., strlist__opt). */
struct strlist {
	const char **v;
	size_t nr, alloc;
};

int strlist__opt(const struct option *opt, const char *arg);
void strlist__release(struct strlist *l);

/*
 * A number strictly between @lo and @hi, else -EINVAL and a message
 * naming @opt, what was given and the range wanted.
 */
int report_opt_number(const char *opt, const char *arg, double lo, double hi,
		      double *out);

/*
 * The runs --run names (ids, "latest", "previous", "all"), sorted and
 * without duplicates; the latest run when @args is empty. -EINVAL for a
 * bad word, -ENOENT for a run that is not there (message printed).
 */
int report_select_runs(const struct rdb_runs *runs, const struct strlist *args,
		       int64_t **ids, size_t *nr);

#endif /* IOMMU_BENCH_REPORT_OPTS_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The analysis's read-only view of the store. store__open() does the
 * checks that keep a mistyped --db from being misread (not SQLite,
 * another program's database, a newer or older schema) and prints why;
 * then the analysis and the report read through the store's queries
 * (store/store-query.h), whose SQL lives in store/. Nothing here writes.
 */
#ifndef IOMMU_BENCH_ANALYSIS_RDB_H
#define IOMMU_BENCH_ANALYSIS_RDB_H

#include <stddef.h>
#include <stdint.h>

#include "store/store-query.h"

struct rdb {
	struct store *st;
	char *path;
};

/* 0, or a negative errno with the reason already printed. */
int rdb__open(const char *path, struct rdb *r);
void rdb__close(struct rdb *r);

/* store__query() on the database; a negative errno is already printed. */
int rdb__query(struct rdb *r, const struct store_query *q,
	       const struct store_arg *args, struct store_rows **out);
/*
 * rdb__query() for a query of the runs ?1 to ?2: the first and the
 * last of @runs, ascending (@nr_runs > 0).
 */
int rdb__query_runs(struct rdb *r, const struct store_query *q,
		    const int64_t *runs, size_t nr_runs,
		    struct store_rows **out);
/* rdb__query_runs() with @third bound to ?3. */
int rdb__query_runs_and(struct rdb *r, const struct store_query *q,
			const int64_t *runs, size_t nr_runs,
			struct store_arg third, struct store_rows **out);

struct rdb_run {
	int64_t id;
	char *name, *status, *started_at, *finished_at; /* finished: "" */
	char *tool_version;
};

struct rdb_runs {
	struct rdb_run *v;
	size_t nr, alloc;
};

/* Every run, oldest first. */
int rdb__runs(struct rdb *r, struct rdb_runs *runs);
const struct rdb_run *rdb__run_find(const struct rdb_runs *runs, int64_t id);
void rdb__runs_release(struct rdb_runs *runs);

/*
 * A run named on the command line: an id, "latest" or "previous" (the
 * newest and the one before it). 0 with @id set; -EINVAL (bad word) or
 * -ENOENT (no such run) with a message naming @what ("--run") and what
 * the database holds.
 */
int rdb__run_resolve(const struct rdb_runs *runs, const char *what,
		     const char *arg, int64_t *id);

#endif /* IOMMU_BENCH_ANALYSIS_RDB_H */

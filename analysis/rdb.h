/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * report/'s read-only view of the store. store__open() does the checks
 * that keep a mistyped --db from being misread (not SQLite, another
 * program's database, a newer or older schema) and prints why; then
 * report/ reads through its own read-only connection with its own
 * prepared statements, against the tables schemas/README.md documents,
 * for the queries the store's API has no reader for. Nothing here writes.
 */
#ifndef IOMMU_BENCH_ANALYSIS_RDB_H
#define IOMMU_BENCH_ANALYSIS_RDB_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

struct rdb {
	sqlite3 *db;
	char *path;
};

/* 0, or a negative errno with the reason already printed. */
int rdb__open(const char *path, struct rdb *r);
void rdb__close(struct rdb *r);

/* Prepare @sql; on failure print what for and return a negative errno. */
int rdb__prepare(struct rdb *r, const char *sql, sqlite3_stmt **stmt);
/*
 * rdb__prepare() for a query of the runs ?1 to ?2: the first and the
 * last of @runs, ascending (@nr_runs > 0).
 */
int rdb__prepare_runs(struct rdb *r, const char *sql, const int64_t *runs,
		      size_t nr_runs, sqlite3_stmt **stmt);
/* Report SQLite's error @rc while doing @what; returns -EIO. */
int rdb__error(struct rdb *r, int rc, const char *what);

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

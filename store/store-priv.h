/* SPDX-License-Identifier: GPL-2.0-only */
/* Shared by the store's own files (store*.c) and nothing else. */
#ifndef IOMMU_BENCH_STORE_PRIV_H
#define IOMMU_BENCH_STORE_PRIV_H

#include <sqlite3.h>

#include "store/store.h"

struct store {
	sqlite3 *db;
	char *path;
	char *dir; /* the database's directory, for artifacts */
	unsigned int flags;
	unsigned int version;
	struct store_stmt {
		const char *sql; /* identity: the caller's static text */
		sqlite3_stmt *stmt;
	} * cache;
	size_t nr_cache, alloc_cache;
};

/*
 * The prepared statement for @sql, reset and with no bindings. @sql must
 * be a string with static storage: it is the cache key, by address, so
 * that a trial's thousand metric inserts parse the SQL once.
 */
int store__stmt(struct store *st, const char *sql, sqlite3_stmt **out);

/*
 * Report SQLite's error @rc for @what ("adding metric 'x'") with the
 * database path, and return it as a negative errno.
 */
int store__sqlerr(struct store *st, int rc, const char *what);

/* Step a statement that returns no rows; reset it either way. */
int store__step_done(struct store *st, sqlite3_stmt *stmt, const char *what);

/* Bind a C string, NULL binding SQL NULL. */
int store__bind_text(sqlite3_stmt *stmt, int idx, const char *s);

/* The SQL functions of ours the statements use: per_gb(). */
int store__functions(struct store *st);

/* Status words back to enums; -EINVAL for a word not ours. */
int store__run_status_parse(const char *s, enum store_run_status *out);
int store__trial_status_parse(const char *s, enum store_trial_status *out);

/* The SQL expression for "now" in the store's time format. */
#define STORE_NOW "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"

#endif /* IOMMU_BENCH_STORE_PRIV_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/* Shared by the store's own files (store*.c) and nothing else. */
#ifndef IOMMU_BENCH_STORE_PRIV_H
#define IOMMU_BENCH_STORE_PRIV_H

#include <sqlite3.h>

#include "store/store-query.h"
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

/* A read-only query of the schema: its text and what it reads, for errors. */
struct store_query {
	const char *sql;
	const char *what;
};

/* The query store_q_@name of store-queries.h (store-q-*.c). */
#define STORE_QUERY(name, what_, sql_) \
	const struct store_query store_q_##name = { .sql = sql_, .what = what_ }

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

/* Bind @args (NULL: none) to @stmt's parameters. */
int store__bind(struct store *st, sqlite3_stmt *stmt,
		const struct store_arg *args);
/* store__stmt() with @args bound. */
int store__prepare(struct store *st, const char *sql,
		   const struct store_arg *args, sqlite3_stmt **out);
/*
 * A statement that returns no rows, or whose rows do not matter; it is
 * reset and unbound after, so that bound text may be freed.
 */
int store__exec(struct store *st, const char *sql, const struct store_arg *args,
		const char *what);
/* An INSERT: store__exec(), and the new row's id in @id (may be NULL). */
int store__insert(struct store *st, const char *sql,
		  const struct store_arg *args, const char *what, int64_t *id);
/*
 * A SELECT's first row: 0 with @out on it (read it, then reset it),
 * -ENOENT when there is none, or SQLite's error for @what.
 */
int store__select_row(struct store *st, const char *sql,
		      const struct store_arg *args, const char *what,
		      sqlite3_stmt **out);
/* A SELECT of one id; -ENOENT when it returns no row. */
int store__select_id(struct store *st, const char *sql,
		     const struct store_arg *args, const char *what,
		     int64_t *id);
/* A column's text as a new string; NULL for SQL NULL. */
char *store__column_dup(sqlite3_stmt *stmt, int col);

/* The SQL functions of ours the statements use: per_gb(). */
int store__functions(struct store *st);

/* Status words back to enums; -EINVAL for a word not ours. */
int store__run_status_parse(const char *s, enum store_run_status *out);
int store__trial_status_parse(const char *s, enum store_trial_status *out);

/* The SQL expression for "now" in the store's time format. */
#define STORE_NOW "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"

#endif /* IOMMU_BENCH_STORE_PRIV_H */

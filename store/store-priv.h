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

/*
 * A statement's parameters, bound in order to ?1, ?2 ... by
 * store__prepare(): STORE_ARGS(STORE_INT(run_id), STORE_TEXT(name)).
 * Text is bound SQLITE_STATIC: it must outlive the statement's steps.
 */
struct store_arg {
	enum store_arg_type {
		STORE_ARG_END,
		STORE_ARG_NULL,
		STORE_ARG_INT,
		STORE_ARG_REAL,
		STORE_ARG_TEXT,
	} type;
	int64_t i;
	double d;
	const char *s; /* NULL binds SQL NULL */
	int len;       /* of @s in bytes; -1: up to its NUL */
};

#define STORE_ARG(t, ...) ((struct store_arg){ .type = (t), __VA_ARGS__ })
#define STORE_INT(v) STORE_ARG(STORE_ARG_INT, .i = (v))
/* An optional id: 0, none, binds SQL NULL. */
#define STORE_ID(v) STORE_ARG((v) ? STORE_ARG_INT : STORE_ARG_NULL, .i = (v))
#define STORE_REAL(v) STORE_ARG(STORE_ARG_REAL, .d = (v))
#define STORE_TEXT(v) STORE_ARG(STORE_ARG_TEXT, .s = (v), .len = -1)
#define STORE_TEXT_LEN(v, n) STORE_ARG(STORE_ARG_TEXT, .s = (v), .len = (n))
#define STORE_ARGS(...) \
	((const struct store_arg[]){ __VA_ARGS__, { .type = STORE_ARG_END } })

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

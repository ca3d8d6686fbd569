/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The store's read-only queries for the analysis and the report: each
 * query is named by a constant whose SQL lives in store/ (the one place
 * that knows the schema), run with its parameters, and its rows read a
 * column at a time. Nothing outside store/ sees SQL or SQLite.
 */
#ifndef IOMMU_BENCH_STORE_QUERY_H
#define IOMMU_BENCH_STORE_QUERY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct store;
struct store_query;
struct store_rows;

/*
 * A statement's parameters, bound in order to ?1, ?2 ... by
 * store__query() (and store__prepare() inside the store):
 * STORE_ARGS(STORE_INT(run_id), STORE_TEXT(name)).
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

/*
 * @q prepared on @st with @args bound (NULL: none): 0 and @out, or a
 * negative errno with SQLite's words logged.
 */
int store__query(struct store *st, const struct store_query *q,
		 const struct store_arg *args, struct store_rows **out);
/* The next row: 1, 0 at the end, or a negative errno, SQLite's words logged. */
int store_rows__next(struct store_rows *rows);
/* From the first row again, with @args bound instead. */
int store_rows__rebind(struct store_rows *rows, const struct store_arg *args);
/* The current row's column @col; SQL NULL reads 0, 0.0 and NULL. */
int64_t store_rows__int(const struct store_rows *rows, int col);
double store_rows__real(const struct store_rows *rows, int col);
const char *store_rows__text(const struct store_rows *rows, int col);
/* Column @col as text, "" for SQL NULL. */
const char *store_rows__str(const struct store_rows *rows, int col);
const void *store_rows__blob(const struct store_rows *rows, int col,
			     size_t *len);
bool store_rows__null(const struct store_rows *rows, int col);
void store_rows__close(struct store_rows *rows);

/* The queries by name (store-q-*.c). */
#include "store/store-queries.h"

#endif /* IOMMU_BENCH_STORE_QUERY_H */

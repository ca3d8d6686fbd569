// SPDX-License-Identifier: GPL-2.0-only
/* A read-only query's rows, one at a time, for the layers above. */
#include <errno.h>
#include <sqlite3.h>
#include <stdlib.h>

#include "store-priv.h"
#include "util.h"

struct store_rows {
	struct store *st;
	const struct store_query *q;
	sqlite3_stmt *stmt;
};

int store__query(struct store *st, const struct store_query *q,
		 const struct store_arg *args, struct store_rows **out)
{
	struct store_rows *rows = xcalloc(1, sizeof(*rows));
	int rc, err;

	rows->st = st;
	rows->q = q;
	rc = sqlite3_prepare_v2(st->db, q->sql, -1, &rows->stmt, NULL);
	err = rc == SQLITE_OK ? store__bind(st, rows->stmt, args) :
				store__sqlerr(st, rc, q->what);
	if (err) {
		store_rows__close(rows);
		rows = NULL;
	}
	*out = rows;
	return err;
}

int store_rows__next(struct store_rows *rows)
{
	int rc = sqlite3_step(rows->stmt);

	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE)
		return 0;
	return store__sqlerr(rows->st, rc, rows->q->what);
}

int store_rows__rebind(struct store_rows *rows, const struct store_arg *args)
{
	sqlite3_reset(rows->stmt);
	sqlite3_clear_bindings(rows->stmt);
	return store__bind(rows->st, rows->stmt, args);
}

int64_t store_rows__int(const struct store_rows *rows, int col)
{
	return sqlite3_column_int64(rows->stmt, col);
}

double store_rows__real(const struct store_rows *rows, int col)
{
	return sqlite3_column_double(rows->stmt, col);
}

const char *store_rows__text(const struct store_rows *rows, int col)
{
	return (const char *)sqlite3_column_text(rows->stmt, col);
}

const char *store_rows__str(const struct store_rows *rows, int col)
{
	const char *t = store_rows__text(rows, col);

	return t ? t : "";
}

const void *store_rows__blob(const struct store_rows *rows, int col,
			     size_t *len)
{
	const void *b = sqlite3_column_blob(rows->stmt, col);

	*len = sqlite3_column_bytes(rows->stmt, col);
	return b;
}

bool store_rows__null(const struct store_rows *rows, int col)
{
	return sqlite3_column_type(rows->stmt, col) == SQLITE_NULL;
}

void store_rows__close(struct store_rows *rows)
{
	if (!rows)
		return;
	sqlite3_finalize(rows->stmt);
	free(rows);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * Which Debian package version each side's kernels were. A nightly over
 * a kernel that follows its suite measures a different build each time
 * it moves, under the same matrix name: the gate must say so beside its
 * verdict ("kernel debian-sid: 7.3.4-1 -> 7.3.5-1"), or a change of the
 * kernel reads as a change of the code under test.
 */
#include <jansson.h>

#include "rdb.h"
#include "regress.h"
#include "util.h"

int regress__kernels(struct rdb *r, struct regress_result *res)
{
	static const char sql[] =
		"SELECT k.name,"
		" max(CASE WHEN c.run_id = ?1 AND (?3 IS NULL OR k.name = ?3)"
		"  THEN k.package || ' ' || k.version END),"
		" max(CASE WHEN c.run_id = ?2 AND (?4 IS NULL OR k.name = ?4)"
		"  THEN k.package || ' ' || k.version END)"
		" FROM cells c JOIN kernels k ON k.id = c.kernel_id"
		" WHERE c.run_id IN (?1, ?2) AND k.version <> ''"
		" GROUP BY k.name ORDER BY k.name";
	sqlite3_stmt *stmt;
	int rc;

	rc = rdb__prepare(r, sql, &stmt);
	if (rc)
		return rc;
	sqlite3_bind_int64(stmt, 1, res->base.run);
	sqlite3_bind_int64(stmt, 2, res->cand.run);
	sqlite3_bind_text(stmt, 3, res->base.kernel, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 4, res->cand.kernel, -1, SQLITE_STATIC);
	res->kernels = json_array();
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		const char *b = (const char *)sqlite3_column_text(stmt, 1);
		const char *c = (const char *)sqlite3_column_text(stmt, 2);

		if (b || c)
			json_array_append_new(
				res->kernels,
				json_pack("{s:s, s:s?, s:s?}", "name",
					  sqlite3_column_text(stmt, 0),
					  "baseline", b, "candidate", c));
	}
	sqlite3_finalize(stmt);
	return rc == SQLITE_DONE ? 0 : rdb__error(r, rc, "reading kernels");
}

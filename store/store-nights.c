// SPDX-License-Identifier: GPL-2.0-only
/*
 * nights, regressions and their notes: the robot's memory. A night is
 * one row from its start, its stage moved on as it goes, so that a
 * night killed anywhere is found again and resumed, never begun twice;
 * a regression is one row per culprit and series, so that it is
 * reported once however many nights see it.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "store-priv.h"
#include "store.h"
#include "strvec.h"
#include "util.h"

#define NIGHT_COLS                                                            \
	"id, series, kernel, head, head_subject, package, ifnull(run_id, 0)," \
	" ifnull(base_night_id, 0), stage, verdict, summary, started_at,"     \
	" finished_at"

static void night_row(sqlite3_stmt *s, struct store_night *n)
{
	memset(n, 0, sizeof(*n));
	n->id = sqlite3_column_int64(s, 0);
	n->series = store__column_dup(s, 1);
	n->kernel = store__column_dup(s, 2);
	n->head = store__column_dup(s, 3);
	n->head_subject = store__column_dup(s, 4);
	n->package = store__column_dup(s, 5);
	n->run_id = sqlite3_column_int64(s, 6);
	n->base_night_id = sqlite3_column_int64(s, 7);
	n->stage = store__column_dup(s, 8);
	n->verdict = store__column_dup(s, 9);
	n->summary = store__column_dup(s, 10);
	n->started_at = store__column_dup(s, 11);
	n->finished_at = store__column_dup(s, 12);
}

/* The first row of @sql as a night; -ENOENT when there is none. */
static int night_get(struct store *st, const char *sql,
		     const struct store_arg *args, struct store_night *n)
{
	sqlite3_stmt *s;
	int err, rc;

	err = store__prepare(st, sql, args, &s);
	if (err)
		return err;
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		night_row(s, n);
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	if (rc == SQLITE_ROW)
		return 0;
	return rc == SQLITE_DONE ? -ENOENT :
				   store__sqlerr(st, rc, "reading nights");
}

int store__night_open(struct store *st, const char *series,
		      struct store_night *n)
{
	static const char sql[] = "SELECT " NIGHT_COLS " FROM nights"
				  " WHERE series = ?1 AND stage != 'done'";

	return night_get(st, sql, STORE_ARGS(STORE_TEXT(series)), n);
}

int store__night_get(struct store *st, int64_t id, struct store_night *n)
{
	static const char sql[] = "SELECT " NIGHT_COLS
				  " FROM nights WHERE id = ?1";

	return night_get(st, sql, STORE_ARGS(STORE_INT(id)), n);
}

int store__night_last_good(struct store *st, const char *series, int64_t before,
			   struct store_night *n)
{
	/* A night whose only news was ignored, or not confirmed, was good. */
	static const char sql[] =
		"SELECT " NIGHT_COLS " FROM nights WHERE series = ?1"
		" AND id < ?2 AND stage = 'done' AND run_id IS NOT NULL"
		" AND verdict IN ('pass', 'improvement', 'unconfirmed')"
		" ORDER BY id DESC LIMIT 1";

	return night_get(st, sql,
			 STORE_ARGS(STORE_TEXT(series), STORE_INT(before)), n);
}

int store__night_add(struct store *st, const struct store_night *n, int64_t *id)
{
	static const char sql[] =
		"INSERT INTO nights (series, kernel, head, head_subject,"
		" package, base_night_id, started_at)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, " STORE_NOW ")";

	return store__insert(
		st, sql,
		STORE_ARGS(STORE_TEXT(n->series), STORE_TEXT(n->kernel),
			   STORE_TEXT(n->head), STORE_TEXT(n->head_subject),
			   STORE_TEXT(n->package), STORE_ID(n->base_night_id)),
		"adding a night", id);
}

int store__night_set(struct store *st, const struct store_night *n)
{
	/* NULL keeps what is there: each stage says only what it knows. */
	static const char sql[] =
		"UPDATE nights SET run_id = coalesce(?2, run_id),"
		" stage = coalesce(?3, stage), verdict = coalesce(?4, verdict),"
		" summary = coalesce(?5, summary),"
		" finished_at = CASE WHEN ?3 = 'done' AND finished_at IS NULL"
		" THEN " STORE_NOW " ELSE finished_at END"
		" WHERE id = ?1";

	return store__exec(st, sql,
			   STORE_ARGS(STORE_INT(n->id), STORE_ID(n->run_id),
				      STORE_TEXT(n->stage),
				      STORE_TEXT(n->verdict),
				      STORE_TEXT(n->summary)),
			   "updating a night");
}

int store__night_say(struct store *st, int64_t id, const char *line)
{
	static const char sql[] =
		"UPDATE nights SET summary = CASE WHEN summary IS NULL THEN ?2"
		" ELSE summary || char(10) || ?2 END WHERE id = ?1";

	return store__exec(st, sql, STORE_ARGS(STORE_INT(id), STORE_TEXT(line)),
			   "updating a night");
}

void store_night__release(struct store_night *n)
{
	free_all(n->series, n->kernel, n->head, n->head_subject, n->package,
		 n->stage, n->verdict, n->summary, n->started_at,
		 n->finished_at);
	memset(n, 0, sizeof(*n));
}

/* One line a person reads: threads and model, memory, IOMMU, NIC. */
/*
 * The first row's one text column of @sql, whose parameters are a run's
 * id and a name (of a host, of a kernel), into *@out: -ENOENT when none.
 */
static int run_text(struct store *st, const char *sql, int64_t run_id,
		    const char *name, const char *what, char **out)
{
	sqlite3_stmt *s;
	int err, rc;

	*out = NULL;
	err = store__prepare(
		st, sql, STORE_ARGS(STORE_INT(run_id), STORE_TEXT(name)), &s);
	if (err)
		return err;
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		*out = store__column_dup(s, 0);
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	if (rc == SQLITE_ROW || rc == SQLITE_DONE)
		return *out ? 0 : -ENOENT;
	return store__sqlerr(st, rc, what);
}

int store__host_words(struct store *st, int64_t run_id, const char *host,
		      char **line)
{
	static const char sql[] =
		"SELECT json_extract(b.facts, '$.cpu.online') || ' threads '"
		" || ifnull(json_extract(b.facts, '$.cpu.model'), '?')"
		" || ', ' || (json_extract(b.facts, '$.memory.total_kib') / 1024)"
		" || ' MiB memory, IOMMU ' || ifnull(json_extract(b.facts,"
		" '$.iommu.units[0].label'), 'none') || ', NIC ' || ifnull("
		"(SELECT json_extract(n.value, '$.driver') FROM"
		" json_each(b.facts, '$.nics') n WHERE"
		" json_extract(n.value, '$.pci') IS NOT NULL LIMIT 1), '?')"
		" FROM trials t JOIN cells c ON c.id = t.cell_id"
		" JOIN hosts h ON h.id = c.host_id JOIN boots b ON b.id = t.boot_id"
		" WHERE c.run_id = ?1 AND h.name = ?2 ORDER BY t.id DESC LIMIT 1";

	return run_text(st, sql, run_id, host, "reading a host's facts", line);
}

int store__kernel_image(struct store *st, int64_t run_id, const char *kernel,
			char **path)
{
	static const char sql[] =
		"SELECT k.image_path FROM kernels k JOIN cells c"
		" ON c.kernel_id = k.id WHERE c.run_id = ?1 AND k.name = ?2"
		" AND k.image_path IS NOT NULL LIMIT 1";

	return run_text(st, sql, run_id, kernel, "reading a kernel's image",
			path);
}

int store__night_runs(struct store *st, const char *series, int64_t upto,
		      int64_t **ids, size_t *nr)
{
	static const char sql[] =
		"SELECT run_id FROM nights WHERE series = ?1 AND id <= ?2"
		" AND run_id IS NOT NULL AND (stage = 'done' OR id = ?2)"
		" AND ifnull(verdict, '') != 'failed' ORDER BY id";
	int64_t *v = NULL;
	sqlite3_stmt *s;
	size_t n = 0;
	int err, rc;

	*ids = NULL;
	*nr = 0;
	err = store__prepare(
		st, sql, STORE_ARGS(STORE_TEXT(series), STORE_INT(upto)), &s);
	if (err)
		return err;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		v = xrealloc(v, (n + 1) * sizeof(*v));
		v[n++] = sqlite3_column_int64(s, 0);
	}
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	if (rc != SQLITE_DONE) {
		free(v);
		return store__sqlerr(st, rc, "reading nights");
	}
	*ids = v;
	*nr = n;
	return 0;
}

/* ---- regressions ---- */

#define REG_COLS                                                               \
	"id, night_id, series, host, workload, mode, metric, improvement,"     \
	" base, head, base_median, head_median, change_pct,"                   \
	" ifnull(confirm_run_id, 0), ifnull(pairs, 0), ifnull(reproduced, 0)," \
	" first_bad, no_commit, culprit, state, mail, message_id,"             \
	" ifnull(fixed_night_id, 0), fixed_by, created_at"

static double column_real(sqlite3_stmt *s, int col)
{
	return sqlite3_column_type(s, col) == SQLITE_NULL ?
		       NAN :
		       sqlite3_column_double(s, col);
}

static void reg_row(sqlite3_stmt *s, struct store_regression *r)
{
	memset(r, 0, sizeof(*r));
	r->id = sqlite3_column_int64(s, 0);
	r->night_id = sqlite3_column_int64(s, 1);
	r->series = store__column_dup(s, 2);
	r->host = store__column_dup(s, 3);
	r->workload = store__column_dup(s, 4);
	r->mode = store__column_dup(s, 5);
	r->metric = store__column_dup(s, 6);
	r->improvement = sqlite3_column_int(s, 7);
	r->base = store__column_dup(s, 8);
	r->head = store__column_dup(s, 9);
	r->base_median = column_real(s, 10);
	r->head_median = column_real(s, 11);
	r->change_pct = column_real(s, 12);
	r->confirm_run_id = sqlite3_column_int64(s, 13);
	r->pairs = sqlite3_column_int(s, 14);
	r->reproduced = sqlite3_column_int(s, 15);
	r->first_bad = store__column_dup(s, 16);
	r->no_commit = store__column_dup(s, 17);
	r->culprit = store__column_dup(s, 18);
	r->state = store__column_dup(s, 19);
	r->mail = store__column_dup(s, 20);
	r->message_id = store__column_dup(s, 21);
	r->fixed_night_id = sqlite3_column_int64(s, 22);
	r->fixed_by = store__column_dup(s, 23);
	r->created_at = store__column_dup(s, 24);
}

static int regs_get(struct store *st, const char *sql,
		    const struct store_arg *args, struct store_regression **out,
		    size_t *nr)
{
	struct store_regression *v = NULL;
	sqlite3_stmt *s;
	size_t n = 0;
	int err, rc;

	*out = NULL;
	*nr = 0;
	err = store__prepare(st, sql, args, &s);
	if (err)
		return err;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		v = xrealloc(v, (n + 1) * sizeof(*v));
		reg_row(s, &v[n++]);
	}
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	if (rc != SQLITE_DONE) {
		store_regressions__free(v, n);
		return store__sqlerr(st, rc, "reading regressions");
	}
	*out = v;
	*nr = n;
	return 0;
}

int store__regressions(struct store *st, const char *series, int64_t night_id,
		       struct store_regression **out, size_t *nr)
{
	static const char sql[] =
		"SELECT " REG_COLS " FROM regressions"
		" WHERE (?1 IS NULL OR series = ?1)"
		" AND (?2 IS NULL OR night_id = ?2) ORDER BY id";

	return regs_get(st, sql,
			STORE_ARGS(STORE_TEXT(series), STORE_ID(night_id)), out,
			nr);
}

int store__regression_get(struct store *st, int64_t id,
			  struct store_regression *r)
{
	static const char sql[] = "SELECT " REG_COLS
				  " FROM regressions WHERE id = ?1";
	struct store_regression *v;
	size_t n;
	int err;

	err = regs_get(st, sql, STORE_ARGS(STORE_INT(id)), &v, &n);
	if (err)
		return err;
	if (!n) {
		free(v);
		return -ENOENT;
	}
	*r = v[0];
	free(v);
	return 0;
}

int store__regression_find(struct store *st, const struct store_regression *k,
			   struct store_regression *r)
{
	static const char sql[] =
		"SELECT " REG_COLS " FROM regressions WHERE series = ?1"
		" AND culprit = ?2 AND host = ?3 AND workload = ?4"
		" AND mode = ?5 AND metric = ?6 AND improvement = ?7";
	struct store_regression *v;
	size_t n;
	int err;

	err = regs_get(st, sql,
		       STORE_ARGS(STORE_TEXT(k->series), STORE_TEXT(k->culprit),
				  STORE_TEXT(k->host), STORE_TEXT(k->workload),
				  STORE_TEXT(k->mode), STORE_TEXT(k->metric),
				  STORE_INT(k->improvement)),
		       &v, &n);
	if (err)
		return err;
	if (!n) {
		free(v);
		return -ENOENT;
	}
	*r = v[0];
	free(v);
	return 0;
}

int store__regression_add(struct store *st, const struct store_regression *r,
			  int64_t *id)
{
	static const char sql[] =
		"INSERT INTO regressions (night_id, series, host, workload,"
		" mode, metric, improvement, base, head, base_median,"
		" head_median, change_pct, confirm_run_id, pairs, reproduced,"
		" first_bad, no_commit, culprit, created_at)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12,"
		" ?13, ?14, ?15, ?16, ?17, ?18, " STORE_NOW ")";

	return store__insert(
		st, sql,
		STORE_ARGS(STORE_INT(r->night_id), STORE_TEXT(r->series),
			   STORE_TEXT(r->host), STORE_TEXT(r->workload),
			   STORE_TEXT(r->mode), STORE_TEXT(r->metric),
			   STORE_INT(r->improvement), STORE_TEXT(r->base),
			   STORE_TEXT(r->head), STORE_REAL(r->base_median),
			   STORE_REAL(r->head_median),
			   STORE_REAL(r->change_pct),
			   STORE_ID(r->confirm_run_id), STORE_INT(r->pairs),
			   STORE_INT(r->reproduced), STORE_TEXT(r->first_bad),
			   STORE_TEXT(r->no_commit), STORE_TEXT(r->culprit)),
		"adding a regression", id);
}

int store__regression_set(struct store *st, const struct store_regression *r)
{
	static const char sql[] =
		"UPDATE regressions SET state = coalesce(?2, state),"
		" mail = coalesce(?3, mail),"
		" message_id = coalesce(?4, message_id),"
		" fixed_night_id = coalesce(?5, fixed_night_id),"
		" fixed_by = coalesce(?6, fixed_by),"
		" confirm_run_id = coalesce(?7, confirm_run_id),"
		" pairs = coalesce(?8, pairs),"
		" reproduced = CASE WHEN ?8 IS NULL THEN reproduced ELSE ?9 END,"
		" first_bad = coalesce(?10, first_bad),"
		" no_commit = coalesce(?11, no_commit),"
		" culprit = coalesce(?12, culprit) WHERE id = ?1";

	return store__exec(
		st, sql,
		STORE_ARGS(STORE_INT(r->id), STORE_TEXT(r->state),
			   STORE_TEXT(r->mail), STORE_TEXT(r->message_id),
			   STORE_ID(r->fixed_night_id), STORE_TEXT(r->fixed_by),
			   STORE_ID(r->confirm_run_id), STORE_ID(r->pairs),
			   STORE_INT(r->reproduced), STORE_TEXT(r->first_bad),
			   STORE_TEXT(r->no_commit), STORE_TEXT(r->culprit)),
		"updating a regression");
}

int store__regression_note(struct store *st, int64_t id, const char *note)
{
	static const char sql[] =
		"INSERT INTO regression_notes (regression_id, note, created_at)"
		" VALUES (?1, ?2, " STORE_NOW ")";

	return store__insert(st, sql,
			     STORE_ARGS(STORE_INT(id), STORE_TEXT(note)),
			     "adding a note", NULL);
}

int store__regression_notes(struct store *st, int64_t id, char ***notes,
			    size_t *nr)
{
	static const char sql[] =
		"SELECT created_at || '  ' || note FROM regression_notes"
		" WHERE regression_id = ?1 ORDER BY id";
	sqlite3_stmt *s;
	char **v = NULL;
	size_t n = 0;
	int err, rc;

	*notes = NULL;
	*nr = 0;
	err = store__prepare(st, sql, STORE_ARGS(STORE_INT(id)), &s);
	if (err)
		return err;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		v = xrealloc(v, (n + 1) * sizeof(*v));
		v[n++] = store__column_dup(s, 0);
	}
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	if (rc != SQLITE_DONE) {
		strv_free(v, n);
		return store__sqlerr(st, rc, "reading notes");
	}
	*notes = v;
	*nr = n;
	return 0;
}

void store_regression__release(struct store_regression *r)
{
	free_all(r->series, r->host, r->workload, r->mode, r->metric, r->base,
		 r->head, r->first_bad, r->no_commit, r->culprit, r->state,
		 r->mail, r->message_id, r->fixed_by, r->created_at);
	memset(r, 0, sizeof(*r));
}

void store_regressions__free(struct store_regression *v, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		store_regression__release(&v[i]);
	free(v);
}

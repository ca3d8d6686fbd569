// SPDX-License-Identifier: GPL-2.0-only
/* Writing what a trial measured: metrics, probes, profile, series, files. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "sha256.h"
#include "store/store-priv.h"
#include "util.h"

static const char *const better_names[] = {
	[STORE_BETTER_NONE] = "none",
	[STORE_BETTER_HIGHER] = "higher",
	[STORE_BETTER_LOWER] = "lower",
};

const char *store__better_name(enum store_better b)
{
	return (unsigned int)b < ARRAY_SIZE(better_names) ? better_names[b] :
							    NULL;
}

/* SQLite stores NaN as NULL, and JSON has neither NaN nor infinity. */
static int check_finite(struct store *st, const char *what, const char *name,
			double v)
{
	if (isfinite(v))
		return 0;
	pr_err("%s: %s '%s': value %g is not a finite number", st->path, what,
	       name ? name : "", v);
	return -EINVAL;
}

int store__metric_add(struct store *st, int64_t trial_id, const char *name,
		      double value, const char *unit, enum store_better better,
		      int64_t *id)
{
	static const char sql[] =
		"INSERT INTO metrics (trial_id, name, value, unit, better)"
		" VALUES (?1, ?2, ?3, coalesce(?4, ''), ?5)";
	int err;

	err = check_finite(st, "metric", name, value);
	if (!err && !store__better_name(better)) {
		pr_err("%s: metric '%s': bad direction %d", st->path, name,
		       (int)better);
		err = -EINVAL;
	}
	if (err)
		return err;
	return store__insert(st, sql,
			     STORE_ARGS(STORE_INT(trial_id), STORE_TEXT(name),
					STORE_REAL(value), STORE_TEXT(unit),
					STORE_TEXT(store__better_name(better))),
			     "adding a metric", id);
}

/* The histogram as a JSON array: only digits, commas and brackets. */
static char *hist_json(const uint64_t *hist, size_t len)
{
	char *buf = xmalloc(len * 21 + 3), *p = buf;
	size_t i;

	*p++ = '[';
	for (i = 0; i < len; i++)
		p += sprintf(p, "%s%llu", i ? "," : "",
			     (unsigned long long)hist[i]);
	*p++ = ']';
	*p = '\0';
	return buf;
}

/* SQLite integers are signed 64-bit; refuse rather than wrap. */
static int check_u63(struct store *st, const char *what, uint64_t v)
{
	if (v <= INT64_MAX)
		return 0;
	pr_err("%s: %s %llu is out of range", st->path, what,
	       (unsigned long long)v);
	return -ERANGE;
}

int store__probe_add(struct store *st, int64_t trial_id,
		     const struct store_probe *p, int64_t *id)
{
	static const char sql[] =
		"INSERT INTO probes (trial_id, name, target, attach, calls,"
		" total_ns, hist, self_ns, nested)"
		" VALUES (?1, ?2, coalesce(?3, ''), ?4, ?5, ?6, ?7, ?8, ?9)";
	/* NULL unless known */
	enum store_arg_type self = p->self_known ? STORE_ARG_INT :
						   STORE_ARG_NULL;
	char *hist;
	int err;

	err = check_u63(st, "probe calls", p->calls);
	if (!err)
		err = check_u63(st, "probe total_ns", p->total_ns);
	if (!err && p->self_known)
		err = check_u63(st, "probe self_ns", p->self_ns);
	if (!err && p->self_known)
		err = check_u63(st, "probe nested", p->nested);
	if (err)
		return err;
	hist = hist_json(p->hist, p->hist ? p->hist_len : 0);
	err = store__insert(
		st, sql,
		STORE_ARGS(STORE_INT(trial_id), STORE_TEXT(p->name),
			   STORE_TEXT(p->target), STORE_TEXT(p->attach),
			   STORE_INT(p->calls), STORE_INT(p->total_ns),
			   STORE_TEXT(hist),
			   STORE_ARG(self, .i = (int64_t)p->self_ns),
			   STORE_ARG(self, .i = (int64_t)p->nested)),
		"adding a probe", id);
	/* Bound SQLITE_STATIC: store__insert() has unbound it. */
	free(hist);
	return err;
}

double store__per_gb(double calls, double bytes)
{
	return bytes > 0 && isfinite(bytes) ? calls * 1e9 / bytes : NAN;
}

/* SQL's per_gb(calls, bytes): the rates stored are store__per_gb()'s. */
static void sql_per_gb(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	(void)argc;
	sqlite3_result_double(ctx,
			      store__per_gb(sqlite3_value_double(argv[0]),
					    sqlite3_value_double(argv[1])));
}

int store__functions(struct store *st)
{
	int rc = sqlite3_create_function(st->db, "per_gb", 2,
					 SQLITE_UTF8 | SQLITE_DETERMINISTIC,
					 NULL, sql_per_gb, NULL, NULL);

	return rc == SQLITE_OK ? 0 : store__sqlerr(st, rc, "adding per_gb()");
}

int store__probe_rates(struct store *st, int64_t trial_id, double bytes)
{
	static const char sql[] =
		"INSERT INTO metrics (trial_id, name, value, unit, better)"
		" SELECT trial_id, name || '" STORE_PER_GB_SUFFIX "',"
		" per_gb(calls, ?2), 'calls/GB', 'lower' FROM probes"
		" WHERE trial_id = ?1 AND attach <> 'none' AND attach <> ''"
		" AND name <> 'exposure' ORDER BY id";

	/* Nothing moved: no rate, which is not a rate of 0. */
	if (isnan(store__per_gb(0, bytes)))
		return 0;
	return store__exec(st, sql,
			   STORE_ARGS(STORE_INT(trial_id), STORE_REAL(bytes)),
			   "adding the probes' calls per GB");
}

int store__profile_add(struct store *st, int64_t trial_id,
		       const struct store_profile_row *row, int64_t *id)
{
	static const char sql[] =
		"INSERT INTO profile (trial_id, event, symbol, dso, overhead,"
		" samples) VALUES (?1, coalesce(?2, ''), ?3, coalesce(?4, ''),"
		" ?5, ?6)";
	int err;

	err = check_finite(st, "profile row", row->symbol, row->overhead);
	if (!err)
		err = check_u63(st, "profile samples", row->samples);
	if (err)
		return err;
	return store__insert(
		st, sql,
		STORE_ARGS(STORE_INT(trial_id), STORE_TEXT(row->event),
			   STORE_TEXT(row->symbol), STORE_TEXT(row->dso),
			   STORE_REAL(row->overhead), STORE_INT(row->samples)),
		"adding a profile row", id);
}

int store__interval_add(struct store *st, int64_t trial_id, const char *metric,
			double t_start, double t_end, double value,
			const char *unit, int64_t *id)
{
	static const char sql[] =
		"INSERT INTO intervals (trial_id, metric, t_start, t_end, value,"
		" unit) VALUES (?1, ?2, ?3, ?4, ?5, coalesce(?6, ''))";
	int err;

	err = check_finite(st, "interval", metric, value);
	if (!err)
		err = check_finite(st, "interval start", metric, t_start);
	if (!err)
		err = check_finite(st, "interval end", metric, t_end);
	if (err)
		return err;
	return store__insert(st, sql,
			     STORE_ARGS(STORE_INT(trial_id), STORE_TEXT(metric),
					STORE_REAL(t_start), STORE_REAL(t_end),
					STORE_REAL(value), STORE_TEXT(unit)),
			     "adding an interval", id);
}

int store__artifact_add(struct store *st, int64_t run_id, int64_t trial_id,
			const char *path, const char *kind, int64_t *id)
{
	/*
	 * A trial's artifact takes its run from the trial, so the two can
	 * never disagree: a @run_id of 0 means "the trial's", any other
	 * must match or nothing is inserted.
	 */
	static const char sql[] =
		"INSERT INTO artifacts (run_id, trial_id, path, kind, sha256,"
		" size) SELECT coalesce(?1, (SELECT c.run_id FROM trials t"
		" JOIN cells c ON c.id = t.cell_id WHERE t.id = ?2)),"
		" ?2, ?3, ?4, ?5, ?6 WHERE ?2 IS NULL OR coalesce(?1, 0) = 0 OR"
		" ?1 = (SELECT c.run_id FROM trials t JOIN cells c ON"
		" c.id = t.cell_id WHERE t.id = ?2)";
	char sha[SHA256_HEX_SIZE], *full;
	uint64_t size;
	int err;

	if (!path || !*path || (!run_id && !trial_id))
		return -EINVAL;
	full = path[0] == '/' ? xstrdup(path) :
				xasprintf("%s/%s", st->dir, path);
	err = sha256__file(full, sha, &size);
	if (err) {
		pr_err("%s: artifact %s: %s", st->path, full, strerror(-err));
		goto out;
	}
	err = store__exec(st, sql,
			  STORE_ARGS(STORE_ID(run_id), STORE_ID(trial_id),
				     STORE_TEXT(path), STORE_TEXT(kind),
				     STORE_TEXT(sha), STORE_INT(size)),
			  "adding an artifact");
	if (err)
		goto out;
	if (!sqlite3_changes(st->db)) {
		pr_err("%s: artifact %s: trial %lld is not in run %lld",
		       st->path, path, (long long)trial_id, (long long)run_id);
		err = -ENOENT;
	} else if (id) {
		*id = sqlite3_last_insert_rowid(st->db);
	}
out:
	free(full);
	return err;
}

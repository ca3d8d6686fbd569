// SPDX-License-Identifier: GPL-2.0-only
/*
 * A run's cells as KCIDB tests: one per cell and metric, DONE, its
 * number the median of the measured trials that finished in the mode
 * asked for (the statistics of compare and report: stats/), with the
 * interval, n and the mode in effect in misc; and one per measured
 * trial that gave no figure (kcidb-trials.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "kcidb/kcidb-priv.h"
#include "stats/stats.h"
#include "store/store-query.h"
#include "store/store.h"
#include "strvec.h"
#include "util.h"

/* A cell's median's interval: compare's and report's level. */
#define KCIDB_CONF 0.95

/* One cell's metric, its values as read so far. */
struct figure {
	struct kcidb_cell cell;
	struct strvec text;	  /* key, host, mode, workload, metric, unit */
	char *started, *finished; /* the first start, the last end */
	struct strvec effective;  /* the modes found in effect */
	double *v;
	size_t n, alloc;
};

enum { F_KEY, F_HOST, F_MODE, F_WORKLOAD, F_METRIC, F_UNIT };

static void figure_release(struct figure *f)
{
	strvec__release(&f->text);
	strvec__release(&f->effective);
	free_all(f->started, f->finished, f->v);
	memset(f, 0, sizeof(*f));
}

static bool figure_same(const struct figure *f, const struct store_rows *r)
{
	return f->text.nr && !strcmp(f->text.v[F_KEY], store_rows__str(r, 0)) &&
	       !strcmp(f->text.v[F_METRIC], store_rows__str(r, 5));
}

static void figure_start(struct figure *f, const struct store_rows *r)
{
	int col;

	for (col = 0; col < 4; col++)
		strvec__push(&f->text, store_rows__str(r, col));
	strvec__push(&f->text, store_rows__str(r, 5));
	strvec__push(&f->text, store_rows__str(r, 6));
	f->cell = (struct kcidb_cell){ f->text.v[F_KEY], f->text.v[F_HOST],
				       f->text.v[F_MODE], f->text.v[F_WORKLOAD],
				       store_rows__int(r, 4) };
	f->started = xstrdup(store_rows__str(r, 9));
	f->finished = xstrdup(store_rows__str(r, 10));
}

/* Times are the store's UTC text: they sort as strings. */
static void figure_add(struct figure *f, const struct store_rows *r)
{
	const char *eff = store_rows__str(r, 8), *s = store_rows__str(r, 9),
		   *e = store_rows__str(r, 10);

	ALLOC_GROW(f->v, f->n + 1, f->alloc);
	f->v[f->n++] = store_rows__real(r, 7);
	if (*s && (!*f->started || strcmp(s, f->started) < 0)) {
		free(f->started);
		f->started = xstrdup(s);
	}
	if (strcmp(e, f->finished) > 0) {
		free(f->finished);
		f->finished = xstrdup(e);
	}
	if (*eff)
		strvec__push_distinct(&f->effective, xstrdup(eff));
}

/*
 * KCIDB's unit for the store's: the value is the stored one, never
 * scaled; bytes are "B" with binary prefixes, a percentage and a count
 * take none.
 */
static json_t *number_json(double value, const char *unit)
{
	json_t *o = json_object();

	json_object_set_new(o, "value", json_real(value));
	if (!strcmp(unit, "bytes") || !strcmp(unit, "B")) {
		json_object_set_new(o, "unit", json_string("B"));
		json_object_set_new(o, "prefix", json_string("binary"));
	} else if (!strcmp(unit, "%")) {
		json_object_set_new(o, "unit", json_string("%"));
	} else if (*unit && strcmp(unit, "count")) {
		kcidb__set_str(o, "unit", unit);
		json_object_set_new(o, "prefix", json_string("metric"));
	}
	return o;
}

static json_t *figure_misc(struct figure *f, const struct stats_summary *s,
			   const char *run_name)
{
	json_t *misc = json_object();
	char *eff = strvec__join(&f->effective, ", ");

	json_object_set_new(misc, "ci_low", kcidb__real(s->ci_lo));
	json_object_set_new(misc, "ci_high", kcidb__real(s->ci_hi));
	json_object_set_new(misc, "ci_level", kcidb__real(s->ci_level));
	json_object_set_new(misc, "n", json_integer((json_int_t)s->n));
	json_object_set_new(misc, "min", kcidb__real(s->min));
	json_object_set_new(misc, "max", kcidb__real(s->max));
	json_object_set_new(misc, "cv", kcidb__real(s->cv));
	kcidb__set_known(misc, "effective_mode", eff);
	kcidb__set_str(misc, "host", f->cell.host);
	kcidb__set_str(misc, "cell", f->cell.key);
	kcidb__set_str(misc, "metric", f->text.v[F_METRIC]);
	kcidb__set_known(misc, "unit", f->text.v[F_UNIT]);
	kcidb__set_str(misc, "run", run_name);
	free(eff);
	return misc;
}

static void figure_emit(struct kcidb_ctx *c, const struct kcidb_run *run,
			struct figure *f)
{
	const char *metric = f->text.v[F_METRIC];
	struct stats_summary s;
	json_t *o;
	char *id;

	stats__summarize(f->v, f->n, KCIDB_CONF, &s);
	id = kcidb__test_id(c, run, f->cell.key, metric);
	o = kcidb__test_new(c, run, &f->cell, metric, id);
	json_object_set_new(o, "status", json_string("DONE"));
	json_object_set_new(o, "number",
			    number_json(s.median, f->text.v[F_UNIT]));
	kcidb__set_known(o, "start_time", f->started);
	kcidb__set_duration(o, f->started, f->finished);
	json_object_set_new(o, "misc", figure_misc(f, &s, run->name));
	if (!kcidb__seen(c, id))
		json_array_append(c->tests, o);
	json_decref(o);
	free(id);
}

/* A row of the run's values: the next of its figure, or a new figure. */
static void figure_row(struct kcidb_ctx *c, struct kcidb_run *run,
		       const struct store_rows *r, void *arg)
{
	struct figure *f = arg;

	if (!figure_same(f, r)) {
		if (f->n)
			figure_emit(c, run, f);
		figure_release(f);
		figure_start(f, r);
	}
	figure_add(f, r);
}

int kcidb__tests(struct kcidb_ctx *c, struct kcidb_run *run, char **err)
{
	struct figure f = { 0 };
	int ret;

	ret = kcidb__each(c, &store_q_kcidb_values, run, figure_row, &f);
	if (!ret && f.n)
		figure_emit(c, run, &f);
	figure_release(&f);
	if (!ret)
		ret = kcidb__trials(c, run);
	if (ret < 0)
		return errmsg__set(err, ret, "%s: run %lld: reading its trials",
				   store__path(c->st), (long long)run->id);
	return 0;
}

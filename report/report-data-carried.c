// SPDX-License-Identifier: GPL-2.0-only
/*
 * Which trials carried which collectors, and what a profile cost: each
 * trial stores the collectors it ran with (trials.collectors), and a
 * profile trial's throughput, kept out of the statistics, set beside
 * the measured trials' of its cell is the perturbation perf record
 * caused there.
 */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report-data-priv.h"
#include "stats/stats.h"
#include "strvec.h"
#include "util.h"

/* perf's part: "perf record (cpu-clock, 999 Hz, fp)" or "perf counters". */
static void describe_perf(const json_t *p, struct strvec *out)
{
	const char *ev = json_string_value(json_object_get(p, "event"));
	const char *cg = json_string_value(json_object_get(p, "callgraph"));
	json_int_t hz = json_integer_value(json_object_get(p, "frequency"));

	if (!json_is_true(json_object_get(p, "record"))) {
		strvec__push(out, "perf counters");
		return;
	}
	strvec__pushf(out,
		      "perf record (%s, %lld Hz, %s call graphs) and counters",
		      ev ? ev : "cycles or cpu-clock", (long long)hz,
		      cg ? cg : "fp");
}

/*
 * The collectors object as words, and whether it sampled. NULL JSON is
 * a trial stored before the column existed.
 */
static char *describe(const char *text, bool *records)
{
	struct strvec parts = { 0 };
	const char *name;
	json_t *o, *v;
	char *s;

	*records = false;
	if (!*text)
		return xstrdup("not recorded (stored before schema version 2)");
	o = json_loads(text, 0, NULL);
	if (!json_is_object(o)) {
		json_decref(o);
		return xstrdup("not readable");
	}
	json_object_foreach(o, name, v) {
		if (!strcmp(name, "perf")) {
			describe_perf(v, &parts);
			*records |= json_is_true(json_object_get(v, "record"));
		} else if (!strcmp(name, "bpf")) {
			strvec__pushf(
				&parts, "bpf (%zu probes)",
				json_array_size(json_object_get(v, "probes")));
		} else {
			strvec__push(&parts, name);
		}
	}
	json_decref(o);
	s = parts.nr ? strvec__join(&parts, ", ") : xstrdup("none");
	strvec__release(&parts);
	return s;
}

static struct rd_carried *carried_for(struct report_data *d, bool profile,
				      uint32_t what, bool records)
{
	size_t i;

	for (i = 0; i < d->nr_carried; i++)
		if (d->carried[i].profile == profile &&
		    d->carried[i].collectors == what)
			return &d->carried[i];
	d->carried =
		xrealloc(d->carried, (d->nr_carried + 1) * sizeof(*d->carried));
	d->carried[d->nr_carried] = (struct rd_carried){ .profile = profile,
							 .collectors = what,
							 .records = records };
	return &d->carried[d->nr_carried++];
}

static void carried_row(struct rd_ctx *c, struct rd_cell *cell,
			struct store_rows *s, void *arg)
{
	struct rd_carried *k;
	bool records;
	char *what = describe(store_rows__str(s, 2), &records);

	(void)cell;
	(void)arg;
	k = carried_for(c->d, (int)store_rows__int(s, 1),
			intern__id(&c->d->str, what), records);
	k->trials += store_rows__int(s, 3);
	free(what);
}

int rd__load_carried(struct rd_ctx *c)
{
	return rd__each_cell_row(c, &store_q_report_collectors, carried_row,
				 NULL);
}

struct tp_values {
	double *v[2]; /* measured, profile */
	size_t n[2];
};

static void median_of(double *v, size_t n, double *out)
{
	if (!n)
		return;
	stats__sort(v, n);
	*out = stats__median(v, n);
}

static void perturbation_row(struct rd_ctx *c, struct rd_cell *cell,
			     struct store_rows *s, void *arg)
{
	struct tp_values *tv = (struct tp_values *)arg + (cell - c->d->cells);
	size_t k = !!(int)store_rows__int(s, 1);

	tv->v[k] = xrealloc(tv->v[k], (tv->n[k] + 1) * sizeof(double));
	tv->v[k][tv->n[k]++] = store_rows__real(s, 2);
	cell->tp_unit = intern__id(&c->d->str, store_rows__str(s, 3));
}

int rd__load_perturbation(struct rd_ctx *c)
{
	struct report_data *d = c->d;
	struct tp_values *tv;
	size_t i;
	int err;

	for (i = 0; i < d->nr_cells; i++)
		d->cells[i].tp_measured = d->cells[i].tp_profile = NAN;
	tv = xcalloc(d->nr_cells ? d->nr_cells : 1, sizeof(*tv));
	err = rd__each_cell_row(c, &store_q_report_throughput, perturbation_row,
				tv);
	for (i = 0; i < d->nr_cells; i++) {
		median_of(tv[i].v[0], tv[i].n[0], &d->cells[i].tp_measured);
		median_of(tv[i].v[1], tv[i].n[1], &d->cells[i].tp_profile);
		d->cells[i].profile_trials = tv[i].n[1];
		free(tv[i].v[0]);
		free(tv[i].v[1]);
	}
	free(tv);
	return err;
}

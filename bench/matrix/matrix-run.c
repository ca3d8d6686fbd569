// SPDX-License-Identifier: GPL-2.0-only
/* [run]: the name, how often, in which order, and which modes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "matrix-priv.h"
#include "util.h"

static const char *const order_names[] = { "grouped", "interleaved", "random",
					   NULL };

const char *matrix_order__name(enum matrix_order o)
{
	return order_names[o];
}

/*
 * Without a list: the three built-in modes, then every mode the file
 * defines, in its order. "current" and "default" are left out: a
 * baseline for hosts whose mode cannot change, and a kernel's own
 * choice, each asked for by name.
 */
static void default_modes(struct matrix *m)
{
	size_t i;

	m->run.modes = xcalloc(m->nr_modes, sizeof(*m->run.modes));
	for (i = 0; i < m->nr_modes; i++) {
		if (!strcmp(m->modes[i].name, "current") ||
		    !strcmp(m->modes[i].name, "default"))
			continue;
		m->run.modes[m->run.nr_modes++] = i;
	}
}

static void parse_modes(struct mx *mx, const struct toml_value *v)
{
	struct matrix *m = mx->m;
	const char **names;
	size_t i, j;

	if (v->type != TOML_ARRAY) {
		mx_is(mx, v, TOML_ARRAY, "modes");
		return;
	}
	if (mx_empty(mx, v, "modes",
		     "leave it out to run strict, lazy and passthrough"))
		return;
	names = xcalloc(m->nr_modes + 1, sizeof(*names));
	for (i = 0; i < m->nr_modes; i++)
		names[i] = m->modes[i].name;
	m->run.modes = xcalloc(v->u.arr.n, sizeof(*m->run.modes));
	for (i = 0; i < v->u.arr.n; i++) {
		const struct toml_value *e = v->u.arr.items[i];
		long idx;

		if (!mx_is(mx, e, TOML_STRING, "modes"))
			continue;
		idx = mx_ref(mx, e->pos, "modes", "mode", e->u.str.ptr, names,
			     m->nr_modes);
		if (idx < 0)
			continue;
		for (j = 0; j < m->run.nr_modes; j++)
			if (m->run.modes[j] == (size_t)idx)
				break;
		if (j < m->run.nr_modes) {
			mx_err(mx, e->pos, "modes: '%s' is listed twice",
			       e->u.str.ptr);
			continue;
		}
		m->run.modes[m->run.nr_modes++] = idx;
	}
	free(names);
}

static void set_name(struct mx *mx, const struct toml_value *tab)
{
	struct matrix_run *r = &mx->m->run;

	if (mx_string(mx, tab, "name", MX_NAME, &r->name))
		return;
	/* The name reaches paths and the store: the file name must pass too. */
	r->name = path_stem(mx->m->path, ".toml");
	if (mx_kind__check(MX_NAME, r->name))
		mx_err(mx, r->pos,
		       "the run has no name and the file name '%s' "
		       "is not a safe one; set name in [run]",
		       r->name);
}

/* "5%", or a number of percent; > 0 and at most 1000. */
static int parse_pct(struct mx *mx, const struct toml_value *tab,
		     const char *key, double *out)
{
	const struct toml_value *v = toml_table__get(tab, key);
	char *end;
	double pct;

	if (!v)
		return 0;
	if (v->type == TOML_INTEGER) {
		pct = (double)v->u.i;
	} else if (v->type == TOML_FLOAT) {
		pct = v->u.f;
	} else if (v->type == TOML_STRING) {
		pct = strtod(v->u.str.ptr, &end);
		if (end == v->u.str.ptr || strcmp(end, "%"))
			pct = NAN;
	} else {
		pct = NAN;
	}
	if (!(pct > 0 && pct <= 1000)) {
		mx_err(mx, v->pos,
		       "%s: expected a percentage above 0 and at most 1000 "
		       "(\"5%%\" or 5)",
		       key);
		return -1;
	}
	*out = pct;
	return 1;
}

/*
 * until = { ci_width = "5%", max_repetitions = 20 }: adaptive rounds
 * (builtin-run.c and report/adaptive-check.c run them).
 */
static void parse_until(struct mx *mx, const struct toml_value *tab)
{
	static const char *const keys[] = { "ci_width", "max_repetitions",
					    NULL };
	const struct toml_value *v = toml_table__get(tab, "until");
	struct matrix_run *r = &mx->m->run;
	size_t i;

	if (!v || !mx_is(mx, v, TOML_TABLE, "until"))
		return;
	mx_check_keys(mx, v, keys, "until");
	for (i = 0; keys[i]; i++) {
		if (toml_table__get(v, keys[i]))
			continue;
		mx_err(mx, v->pos,
		       "until: %s is missing; both are needed, as in "
		       "{ ci_width = \"5%%\", max_repetitions = 20 }",
		       keys[i]);
		return;
	}
	if (parse_pct(mx, v, "ci_width", &r->until_width_pct) <= 0 ||
	    mx_uint32(mx, v, "max_repetitions", 2, MATRIX_MAX_REPETITIONS,
		      &r->until_max) <= 0)
		return;
	if (r->until_max < r->repetitions) {
		mx_err(mx, mx_val_pos(v, "max_repetitions", v->pos),
		       "until: max_repetitions %u is below repetitions %u",
		       r->until_max, r->repetitions);
		r->until_max = 0;
	}
}

void matrix__parse_run(struct mx *mx, const struct toml_value *tab)
{
	static const char *const keys[] = {
		"name",	 "description", "repetitions", "warmup",
		"order", "seed",	"cooldown",    "db",
		"modes", "until",	NULL,
	};
	struct matrix_run *r = &mx->m->run;
	const struct toml_value *modes = NULL;
	int order;

	r->repetitions = 5;
	r->warmup = 1;
	r->order = ORDER_GROUPED;
	r->seed = 1;
	r->cooldown_ms = 1000;
	if (tab && !mx_is(mx, tab, TOML_TABLE, "run"))
		tab = NULL;
	if (tab) {
		r->pos = tab->pos;
		r->src = tab;
		mx_check_keys(mx, tab, keys, "[run]");
		mx_text(mx, tab, "description", &r->description);
		/* n = 3 per side gives p >= 0.1 at best: no verdict possible. */
		if (mx_uint32(mx, tab, "repetitions", 1, MATRIX_MAX_REPETITIONS,
			      &r->repetitions) > 0 &&
		    r->repetitions < 4)
			mx_warn(mx, mx_val_pos(tab, "repetitions", r->pos),
				"repetitions: with fewer than 4, no difference "
				"can reach p < 0.05 (Mann-Whitney U)");
		mx_uint32(mx, tab, "warmup", 0, MATRIX_MAX_WARMUP, &r->warmup);
		if (mx_enum(mx, tab, "order", order_names, &order) > 0)
			r->order = order;
		if (mx_uint(mx, tab, "seed", 0, INT64_MAX, &r->seed) > 0 &&
		    r->order != ORDER_RANDOM)
			mx_warn(mx, mx_key_pos(tab, "seed", r->pos),
				"seed: unused unless order = \"random\"");
		mx_duration(mx, tab, "cooldown", &r->cooldown_ms);
		mx_string(mx, tab, "db", MX_PATH, &r->db);
		modes = toml_table__get(tab, "modes");
		parse_until(mx, tab);
	}
	set_name(mx, tab);
	if (modes)
		parse_modes(mx, modes);
	else
		default_modes(mx->m);
}

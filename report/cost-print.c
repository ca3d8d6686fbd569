// SPDX-License-Identifier: GPL-2.0-only
/* compare --cost's outputs: text for people, JSON for scripts. */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare-print.h"
#include "cost-print.h"
#include "format.h"
#include "util.h"

const char *cost__path_label(const char *name)
{
	if (!strcmp(name, COST_UNPROBED))
		return "in no probed path";
	if (!strcmp(name, COST_PROBES))
		return "the probes themselves";
	return name;
}

/* "1.22 s [1.10, 1.31]": a time per GB held in ms, scaled by @sc. */
static void fig_text(const struct cmp_cell *c, const struct fmt_scale *sc,
		     double mul, char *buf, size_t size)
{
	char v[FMT_MAX], lo[FMT_MAX], hi[FMT_MAX];

	if (!c) {
		snprintf(buf, size, "-");
		return;
	}
	fmt__num(c->s.median * mul * sc->mul, v, sizeof(v));
	if (isnan(c->s.ci_lo)) {
		snprintf(buf, size, "%s %s", v, sc->unit);
		return;
	}
	snprintf(buf, size, "%s %s [%s, %s]", v, sc->unit,
		 fmt__num(c->s.ci_lo * mul * sc->mul, lo, sizeof(lo)),
		 fmt__num(c->s.ci_hi * mul * sc->mul, hi, sizeof(hi)));
}

static const struct cmp_cell *cell(const struct cost_table *ct, int64_t row,
				   size_t col)
{
	return cost__cell(ct, NULL, row, col);
}

/* The time scale of a group: its baseline's busy CPU per GB. */
static void time_scale(const struct cost_table *ct, const struct cost_group *g,
		       struct fmt_scale *sc)
{
	const struct cmp_cell *c = NULL;
	size_t col;

	for (col = 0; !c && col < ct->t.nr_cols; col++)
		c = cell(ct, g->cpu, col);
	fmt__scale("ns", c ? c->s.median * 1e6 : 1e6, sc);
}

static void print_row(const struct cost_table *ct, const char *label,
		      int64_t row, int64_t share, const struct fmt_scale *sc,
		      double mul, FILE *fp)
{
	char buf[160], pct[FMT_MAX];
	size_t col;

	fprintf(fp, "  %-24s", label);
	for (col = 0; col < ct->t.nr_cols; col++) {
		const struct cmp_cell *s = cell(ct, share, col);

		fig_text(cell(ct, row, col), sc, mul, buf, sizeof(buf));
		if (s)
			snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf),
				 " %s%%",
				 fmt__num(s->s.median, pct, sizeof(pct)));
		fprintf(fp, "  %-34s", buf);
	}
	fputc('\n', fp);
}

/* Per call: "4.9 µs own of 13.4 µs, 250k/GB". */
static void print_calls(const struct cost_table *ct, const struct cost_path *p,
			FILE *fp)
{
	char self[FMT_MAX], incl[FMT_MAX], calls[FMT_MAX], buf[160];
	struct fmt_scale sc, cs;
	size_t col;

	if (p->row[COST_CALLS_PER_GB] < 0 && p->row[COST_NS_PER_CALL] < 0 &&
	    p->row[COST_BENCH_NS_PER_CALL] < 0)
		return;
	fprintf(fp, "  %-24s", ds__str(&ct->ds, p->name));
	for (col = 0; col < ct->t.nr_cols; col++) {
		const struct cmp_cell *s =
			cell(ct, p->row[COST_SELF_NS_PER_CALL], col);
		const struct cmp_cell *n =
			cell(ct, p->row[COST_NS_PER_CALL], col);
		const struct cmp_cell *c =
			cell(ct, p->row[COST_CALLS_PER_GB], col);
		const struct cmp_cell *b =
			cell(ct, p->row[COST_BPF_NS_PER_CALL], col);
		const struct cmp_cell *k =
			cell(ct, p->row[COST_BENCH_NS_PER_CALL], col);

		buf[0] = '\0';
		if (c) {
			fmt__scale("calls/GB", c->s.median, &cs);
			snprintf(buf, sizeof(buf), "%s %s",
				 fmt__num(c->s.median * cs.mul, calls,
					  sizeof(calls)),
				 cs.unit);
		}
		if (s && n) {
			fmt__scale("ns", n->s.median, &sc);
			snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf),
				 "%s%s of %s %s", *buf ? ", " : "",
				 fmt__num(s->s.median * sc.mul, self,
					  sizeof(self)),
				 fmt__num(n->s.median * sc.mul, incl,
					  sizeof(incl)),
				 sc.unit);
		}
		if (b)
			snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf),
				 ", probe %s ns",
				 fmt__num(b->s.median, self, sizeof(self)));
		if (k)
			snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf),
				 "%sbenchmark %s ns", *buf ? ", " : "",
				 fmt__num(k->s.median, self, sizeof(self)));
		fprintf(fp, "  %-34s", *buf ? buf : "-");
	}
	fputc('\n', fp);
}

/* A figure held in ms per GB, as @sc shows it; "0" never signed. */
static const char *ms_text(double ms, const struct fmt_scale *sc, char *buf,
			   size_t size)
{
	return fmt__num(ms == 0 ? 0 : ms * 1e6 * sc->mul, buf, size);
}

static bool all_zero(const struct cost_table *ct, int64_t row, size_t col)
{
	const struct cmp_cell *x = cost__cell(ct, NULL, row, 0);
	const struct cmp_cell *y = cost__cell(ct, NULL, row, col);

	return x && y && x->s.min == 0 && x->s.max == 0 && y->s.min == 0 &&
	       y->s.max == 0;
}

char *cost__diff_text(const struct cost_table *ct, const struct cost_group *g,
		      size_t col, const struct fmt_scale *sc)
{
	char v[FMT_MAX], lo[FMT_MAX], hi[FMT_MAX], p[FMT_MAX];
	struct cost_diff d;
	bool first = true;
	char *out = NULL;
	size_t len = 0, i;
	FILE *fp;

	if (!cost__diff(ct, g->cpu, col, &d))
		return NULL;
	fp = open_memstream(&out, &len);
	if (!fp)
		return NULL;
	if (d.p < ct->t.o.alpha)
		fprintf(fp, "%s spends %s %s %s CPU per GB than %s",
			ds__str(&ct->ds, ct->t.cols[col]),
			ms_text(fabs(d.diff), sc, v, sizeof(v)), sc->unit,
			d.diff < 0 ? "less" : "more",
			ds__str(&ct->ds, ct->t.cols[0]));
	else
		fprintf(fp,
			"%s against %s: %s%s %s CPU per GB, not significant",
			ds__str(&ct->ds, ct->t.cols[col]),
			ds__str(&ct->ds, ct->t.cols[0]), d.diff < 0 ? "-" : "+",
			ms_text(fabs(d.diff), sc, v, sizeof(v)), sc->unit);
	if (!isnan(d.lo))
		fprintf(fp, " [%s, %s]", ms_text(d.lo, sc, lo, sizeof(lo)),
			ms_text(d.hi, sc, hi, sizeof(hi)));
	fprintf(fp, " (%s n=%zu+%zu)", fmt__p(d.p, p, sizeof(p)), d.nx, d.ny);
	for (i = 0; i < g->nr_paths; i++) {
		const struct cost_path *pa = &g->paths[i];
		int64_t row = pa->row[COST_MS_PER_GB];

		if (all_zero(ct, row, col) || !cost__diff(ct, row, col, &d))
			continue;
		fprintf(fp, "%s %s%s %s", first ? ":" : ",",
			d.diff < 0 ? "-" : "+",
			ms_text(fabs(d.diff), sc, v, sizeof(v)),
			cost__path_label(ds__str(&ct->ds, pa->name)));
		if (!isnan(d.lo))
			fprintf(fp, " [%s, %s]",
				ms_text(d.lo, sc, lo, sizeof(lo)),
				ms_text(d.hi, sc, hi, sizeof(hi)));
		first = false;
	}
	fclose(fp);
	return out;
}

static void print_diffs(const struct cost_table *ct, const struct cost_group *g,
			const struct fmt_scale *sc, FILE *fp)
{
	size_t col;

	for (col = 1; col < ct->t.nr_cols; col++) {
		char *t = cost__diff_text(ct, g, col, sc);

		if (t)
			fprintf(fp, "  %s\n", t);
		free(t);
	}
}

/* " (lo-hi%)" of two cells' medians, "" when either is missing. */
static void range_text(const struct cmp_cell *lo, const struct cmp_cell *hi,
		       char *buf, size_t size)
{
	char a[FMT_MAX], b[FMT_MAX];

	if (!lo || !hi) {
		*buf = '\0';
		return;
	}
	snprintf(buf, size, " (%s-%s%%)", fmt__num(lo->s.median, a, sizeof(a)),
		 fmt__num(hi->s.median, b, sizeof(b)));
}

/*
 * Per path: the probes' share against perf's, on the profile trials,
 * each with the interval the check compares.
 */
char *cost__profile_text(const struct cost_table *ct, const struct cost_path *p,
			 size_t col)
{
	const struct cmp_cell *x = cell(ct, p->row[COST_PROBE_PCT], col);
	const struct cmp_cell *y = cell(ct, p->row[COST_PROFILE_PCT], col);
	char a[FMT_MAX], b[FMT_MAX], xr[2 * FMT_MAX + 8], yr[2 * FMT_MAX + 8];
	int agree = cost__agree(ct, p, col);

	if (!x || !y)
		return xstrdup("-");
	range_text(cell(ct, p->row[COST_PROBE_LO_PCT], col),
		   cell(ct, p->row[COST_PROBE_HI_PCT], col), xr, sizeof(xr));
	range_text(cell(ct, p->row[COST_PROFILE_LO_PCT], col),
		   cell(ct, p->row[COST_PROFILE_HI_PCT], col), yr, sizeof(yr));
	return xasprintf("%s%%%s / %s%%%s%s",
			 fmt__num(x->s.median, a, sizeof(a)), xr,
			 fmt__num(y->s.median, b, sizeof(b)), yr,
			 agree < 0 ? "" :
			 agree	   ? " agree" :
				     " differ");
}

static void print_profile(const struct cost_table *ct,
			  const struct cost_group *g, FILE *fp)
{
	size_t i, col;

	if (!cost__profiled(g))
		return;
	fprintf(fp, "  profile trials, %% of all CPU time, probes / perf's "
		    "samples, each with its interval (agree: they meet):\n");
	for (i = 0; i < g->nr_paths; i++) {
		const struct cost_path *p = &g->paths[i];

		if (p->row[COST_PROFILE_PCT] < 0)
			continue;
		fprintf(fp, "  %-24s", ds__str(&ct->ds, p->name));
		for (col = 0; col < ct->t.nr_cols; col++) {
			char *t = cost__profile_text(ct, p, col);

			fprintf(fp, "  %-34s", t);
			free(t);
		}
		fputc('\n', fp);
	}
}

static void print_cores(const struct cost_table *ct, const struct cost_group *g,
			FILE *fp)
{
	char v[FMT_MAX], lo[FMT_MAX], hi[FMT_MAX], r[FMT_MAX];
	size_t i, col;

	for (i = 0; i < ct->nr_at; i++) {
		double at = ct->at_gbit[i];

		fprintf(fp, "  at %s Gbit/s", fmt__num(at, r, sizeof(r)));
		for (col = 0; col < ct->t.nr_cols; col++) {
			const struct cmp_cell *c = cell(ct, g->cpu, col);

			if (!c)
				continue;
			fprintf(fp, "%s %s needs %s cores", col ? "," : "",
				ds__str(&ct->ds, ct->t.cols[col]),
				fmt__num(cost__cores(c->s.median, at), v,
					 sizeof(v)));
			if (!isnan(c->s.ci_lo))
				fprintf(fp, " [%s, %s]",
					fmt__num(cost__cores(c->s.ci_lo, at),
						 lo, sizeof(lo)),
					fmt__num(cost__cores(c->s.ci_hi, at),
						 hi, sizeof(hi)));
		}
		fputc('\n', fp);
	}
}

const enum cost_fig cost_call_figs[COST_NR_CALL_FIGS] = {
	COST_BENCH_NS_PER_CALL,
	COST_NS_PER_CALL,
};

char *cost__call_diff_text(const struct cost_table *ct,
			   const struct cost_path *pa, size_t fig, size_t col)
{
	static const char *const by[COST_NR_CALL_FIGS] = {
		"the benchmark's mean",
		"the probe's whole call",
	};
	char v[FMT_MAX], lo[FMT_MAX], hi[FMT_MAX], p[FMT_MAX], r[4 * FMT_MAX];
	struct cost_diff d;

	/* The floor is the probes' own: no path of the kernel's. */
	if (!strcmp(ds__str(&ct->ds, pa->name), COST_PROBES) ||
	    !cost__diff(ct, pa->row[cost_call_figs[fig]], col, &d))
		return NULL;
	r[0] = '\0';
	if (!isnan(d.lo))
		snprintf(r, sizeof(r), " [%s, %s]",
			 fmt__num(d.lo, lo, sizeof(lo)),
			 fmt__num(d.hi, hi, sizeof(hi)));
	return xasprintf("%s: %s against %s: %s%s ns a call%s by %s (%s "
			 "n=%zu+%zu)",
			 ds__str(&ct->ds, pa->name),
			 ds__str(&ct->ds, ct->t.cols[col]),
			 ds__str(&ct->ds, ct->t.cols[0]),
			 d.diff < 0 ? "-" : "+",
			 fmt__num(fabs(d.diff), v, sizeof(v)), r, by[fig],
			 fmt__p(d.p, p, sizeof(p)), d.nx, d.ny);
}

/*
 * A dma_map group moves no bytes: its figures are per call. Between
 * columns, each path's call by the benchmark's clock and by the
 * probe's, both around the whole call (nested paths in).
 */
static void print_call_diffs(const struct cost_table *ct,
			     const struct cost_group *g, FILE *fp)
{
	size_t col, i, f;
	char *t;

	for (col = 1; col < ct->t.nr_cols; col++)
		for (i = 0; i < g->nr_paths; i++)
			for (f = 0; f < COST_NR_CALL_FIGS; f++) {
				t = cost__call_diff_text(ct, &g->paths[i], f,
							 col);
				if (t)
					fprintf(fp, "  %s\n", t);
				free(t);
			}
}

/* The n of a column of a group without per-GB figures: its calls'. */
static size_t call_n(const struct cost_table *ct, const struct cost_group *g,
		     size_t col)
{
	const struct cmp_cell *c;
	size_t i, n = 0;

	for (i = 0; i < g->nr_paths; i++) {
		c = cell(ct, g->paths[i].row[COST_BENCH_NS_PER_CALL], col);
		if (!c)
			c = cell(ct, g->paths[i].row[COST_NS_PER_CALL], col);
		if (c && c->s.n > n)
			n = c->s.n;
	}
	return n;
}

static void print_per_call(const struct cost_table *ct,
			   const struct cost_group *g, const char *label,
			   FILE *fp)
{
	struct fmt_scale ns = { .mul = 1 };
	size_t i, col;

	fprintf(fp,
		"%s: time per call (no bytes moved: the dma_map "
		"benchmark), medians [%g%% CI]\n",
		label, ct->t.o.conf * 100);
	fprintf(fp, "  %-24s", "");
	for (col = 0; col < ct->t.nr_cols; col++) {
		char head[96];

		snprintf(head, sizeof(head), "%s (n=%zu)",
			 ds__str(&ct->ds, ct->t.cols[col]), call_n(ct, g, col));
		fprintf(fp, "  %-34s", head);
	}
	fprintf(fp, "\n  per call: own time of the time with nested paths, "
		    "the benchmark's own mean:\n");
	for (i = 0; i < g->nr_paths; i++)
		if (strcmp(ds__str(&ct->ds, g->paths[i].name), COST_PROBES))
			print_calls(ct, &g->paths[i], fp);
	strcpy(ns.unit, "ns");
	for (i = 0; i < g->nr_paths; i++)
		if (!strcmp(ds__str(&ct->ds, g->paths[i].name), COST_PROBES))
			print_row(ct, "probe floor a call",
				  g->paths[i].row[COST_NS_PER_CALL], -1, &ns, 1,
				  fp);
	print_call_diffs(ct, g, fp);
}

void cost__print_text(const struct cost_table *ct, FILE *fp)
{
	struct fmt_scale sc, none = { .mul = 1 }, ns = { .mul = 1 };
	size_t gi, i, col;

	for (gi = 0; gi < ct->nr_groups; gi++) {
		const struct cost_group *g = &ct->groups[gi];
		char *label = cmp__row_label(&ct->t, g->key);

		if (g->cpu < 0) {
			fprintf(fp, "%s", gi ? "\n" : "");
			print_per_call(ct, g, label, fp);
			free(label);
			continue;
		}
		time_scale(ct, g, &sc);
		fprintf(fp, "%s%s: CPU time per GB moved, medians [%g%% CI]\n",
			gi ? "\n" : "", label, ct->t.o.conf * 100);
		free(label);
		fprintf(fp, "  %-24s", "");
		for (col = 0; col < ct->t.nr_cols; col++) {
			const struct cmp_cell *c = cell(ct, g->cpu, col);
			char head[96];

			snprintf(head, sizeof(head), "%s (n=%zu)",
				 ds__str(&ct->ds, ct->t.cols[col]),
				 c ? c->s.n : (size_t)0);
			fprintf(fp, "  %-34s", head);
		}
		fputc('\n', fp);
		print_row(ct, "busy CPU", g->cpu, -1, &sc, 1e6, fp);
		for (i = 0; i < g->nr_paths; i++)
			print_row(ct,
				  cost__path_label(
					  ds__str(&ct->ds, g->paths[i].name)),
				  g->paths[i].row[COST_MS_PER_GB],
				  g->paths[i].row[COST_SHARE_PCT], &sc, 1e6,
				  fp);
		strcpy(none.unit, "Gbit/s");
		strcpy(ns.unit, "ns");
		print_row(ct, "per busy core", g->gbit_per_core, -1, &none, 1,
			  fp);
		fprintf(fp, "  per call: calls per GB, own time of the time "
			    "with nested paths, the probe's programs:\n");
		for (i = 0; i < g->nr_paths; i++)
			print_calls(ct, &g->paths[i], fp);
		for (i = 0; i < g->nr_paths; i++)
			if (!strcmp(ds__str(&ct->ds, g->paths[i].name),
				    COST_PROBES))
				print_row(ct, "probe floor a call",
					  g->paths[i].row[COST_NS_PER_CALL], -1,
					  &ns, 1, fp);
		print_profile(ct, g, fp);
		print_diffs(ct, g, &sc, fp);
		print_cores(ct, g, fp);
	}
	if (ct->load.no_self)
		fprintf(fp,
			"\nnote: %zu trial%s stored no own time per probe "
			"(before schema 0006): there, nested paths count in "
			"each path that holds them\n",
			ct->load.no_self, ct->load.no_self == 1 ? "" : "s");
}

static json_t *fig_json(const struct cmp_cell *c, double mul)
{
	if (!c)
		return json_null();
	return json_pack("{s:o, s:o, s:o, s:I}", "median",
			 report_json_num(c->s.median * mul), "lo",
			 report_json_num(c->s.ci_lo * mul), "hi",
			 report_json_num(c->s.ci_hi * mul), "n",
			 (json_int_t)c->s.n);
}

static json_t *diff_json(const struct cost_table *ct, int64_t row, size_t col)
{
	struct cost_diff d;
	char n[48];

	if (!cost__diff(ct, row, col, &d))
		return json_null();
	snprintf(n, sizeof(n), "%zu+%zu", d.nx, d.ny);
	return json_pack("{s:o, s:o, s:o, s:o, s:s}", "diff",
			 report_json_num(d.diff), "lo", report_json_num(d.lo),
			 "hi", report_json_num(d.hi), "p", report_json_num(d.p),
			 "n", n);
}

static json_t *column_json(const struct cost_table *ct,
			   const struct cost_group *g, size_t col)
{
	const struct cmp_cell *cpu = cell(ct, g->cpu, col);
	json_t *paths = json_array(), *at = json_array();
	size_t i;
	int f;

	for (i = 0; i < g->nr_paths; i++) {
		const struct cost_path *p = &g->paths[i];
		json_t *o =
			json_pack("{s:s}", "path", ds__str(&ct->ds, p->name));

		for (f = 0; f < COST_NR_FIGS; f++)
			if (p->row[f] >= 0)
				json_object_set_new(
					o, cost_fig_names[f],
					fig_json(cell(ct, p->row[f], col), 1));
		json_array_append_new(paths, o);
	}
	for (i = 0; i < ct->nr_at; i++) {
		double k = cost__cores(1, ct->at_gbit[i]);

		json_array_append_new(at,
				      json_pack("{s:o, s:o}", "gbit",
						report_json_num(ct->at_gbit[i]),
						"cores", fig_json(cpu, k)));
	}
	return json_pack("{s:s, s:I, s:o, s:o, s:o, s:o}", "name",
			 ds__str(&ct->ds, ct->t.cols[col]), "n",
			 (json_int_t)(cpu ? cpu->s.n : 0), "cpu_ms_per_gb",
			 fig_json(cpu, 1), "paths", paths, "cores_at", at,
			 "gbit_per_core",
			 fig_json(cell(ct, g->gbit_per_core, col), 1));
}

static json_t *against_json(const struct cost_table *ct,
			    const struct cost_group *g, size_t col)
{
	static const enum cost_fig figs[] = { COST_MS_PER_GB,
					      COST_SELF_NS_PER_CALL,
					      COST_NS_PER_CALL,
					      COST_CALLS_PER_GB };
	json_t *paths = json_array();
	size_t i, f;

	for (i = 0; i < g->nr_paths; i++) {
		const struct cost_path *p = &g->paths[i];
		json_t *o =
			json_pack("{s:s}", "path", ds__str(&ct->ds, p->name));

		for (f = 0; f < ARRAY_SIZE(figs); f++)
			if (p->row[figs[f]] >= 0)
				json_object_set_new(
					o, cost_fig_names[figs[f]],
					diff_json(ct, p->row[figs[f]], col));
		json_array_append_new(paths, o);
	}
	return json_pack("{s:s, s:s, s:o, s:o}", "column",
			 ds__str(&ct->ds, ct->t.cols[col]), "against",
			 ds__str(&ct->ds, ct->t.cols[0]), "cpu_ms_per_gb",
			 diff_json(ct, g->cpu, col), "paths", paths);
}

int cost__print_json(const struct cost_table *ct, FILE *fp)
{
	json_t *root, *groups = json_array(), *at = json_array();
	size_t gi, col, i;
	int d, err;

	for (i = 0; i < ct->nr_at; i++)
		json_array_append_new(at, report_json_num(ct->at_gbit[i]));
	for (gi = 0; gi < ct->nr_groups; gi++) {
		const struct cost_group *g = &ct->groups[gi];
		json_t *o = json_object(), *cols = json_array(),
		       *vs = json_array();

		for (d = 0; d < DS_NR_DIMS; d++)
			if (d != (int)ct->t.o.by && d != DS_RUN &&
			    d != DS_LABEL)
				json_object_set_new(
					o, ds_dim_names[d],
					json_string(ds__str(&ct->ds,
							    g->key->key[d])));
		for (col = 0; col < ct->t.nr_cols; col++) {
			json_array_append_new(cols, column_json(ct, g, col));
			if (col)
				json_array_append_new(vs,
						      against_json(ct, g, col));
		}
		json_object_set_new(o, "columns", cols);
		json_object_set_new(o, "against_baseline", vs);
		json_array_append_new(groups, o);
	}
	root = json_pack("{s:s, s:s, s:o, s:o, s:I}", "by",
			 ds_dim_names[ct->t.o.by], "baseline",
			 ct->t.nr_cols ? ds__str(&ct->ds, ct->t.cols[0]) : "",
			 "at_gbit", at, "groups", groups, "trials_without_self",
			 (json_int_t)ct->load.no_self);
	err = report_json_print(root, fp);
	json_decref(root);
	return err;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * [collect]: which instruments run on the SUT during each trial. Each
 * collector is either a boolean ("bpf = true") or a table of settings;
 * a table switches it on unless it says enabled = false.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/bpf/bpf-defs.h"
#include "collectors/perf/perf-events.h"
#include "collectors/procstat/procstat-limits.h"
#include "matrix-priv.h"
#include "suggest.h"
#include "units.h"
#include "util.h"

/*
 * Logical probe names, and what "default" means, are the bpf
 * collector's own table: each stands for a DMA-API or IOMMU path whose
 * function names differ by kernel and driver, resolved on the host.
 */
static void probe_names(struct strvec *all, struct strvec *dflt)
{
	const struct bpf_probe_def *d;

	for (d = bpf_probe_defs; d->name; d++) {
		strvec__push(all, d->name);
		if (d->in_default)
			strvec__push(dflt, d->name);
	}
}

/*
 * libperf takes event attributes, not perf's parser: the counters are
 * the perf collector's known events, by their canonical names.
 */
static void counter_names(struct strvec *names)
{
	const struct perf_event_def *d;

	for (d = perf_event_defs; d->name; d++)
		strvec__push(names, d->name);
}

void matrix_collect__release(struct matrix_collect *c)
{
	strv_free(c->bpf.probes, c->bpf.nr_probes);
	free(c->bpf.device);
	free(c->perf.event);
	strv_free(c->perf.counters, c->perf.nr_counters);
}

static void strv_add(char ***v, size_t *nr, const char *s)
{
	size_t i;

	for (i = 0; i < *nr; i++)
		if (!strcmp((*v)[i], s))
			return;
	*v = xrealloc(*v, (*nr + 2) * sizeof(**v));
	(*v)[(*nr)++] = xstrdup(s);
	(*v)[*nr] = NULL;
}

/* Names from @known, each once; "default" (if @dflt) adds its set. */
static void parse_names(struct mx *mx, const struct toml_value *tab,
			const char *key, const char *const *known,
			const char *const *dflt, char ***out, size_t *nr)
{
	const struct toml_value *v = toml_table__get(tab, key);
	size_t i;

	if (!v)
		return;
	if (dflt && v->type == TOML_STRING && !strcmp(v->u.str.ptr, "default"))
		return;
	if (v->type != TOML_ARRAY) {
		mx_err(mx, v->pos, "%s: expected a list of names%s", key,
		       dflt ? " or \"default\"" : "");
		return;
	}
	strv_free(*out, *nr);
	*out = NULL;
	*nr = 0;
	for (i = 0; i < v->u.arr.n; i++) {
		const struct toml_value *e = v->u.arr.items[i];
		const char *const *k;
		const char *best;

		if (!mx_is(mx, e, TOML_STRING, key))
			continue;
		if (dflt && !strcmp(e->u.str.ptr, "default")) {
			for (k = dflt; *k; k++)
				strv_add(out, nr, *k);
			continue;
		}
		for (k = known; *k && strcmp(*k, e->u.str.ptr); k++)
			;
		if (*k) {
			strv_add(out, nr, *k);
			continue;
		}
		best = suggest__best(e->u.str.ptr, known);
		if (best)
			mx_err(mx, e->pos,
			       "%s: unknown name '%s'; did you mean "
			       "'%s'?",
			       key, e->u.str.ptr, best);
		else
			mx_err(mx, e->pos,
			       "%s: unknown name '%s' (see "
			       "docs/matrix.md for the list)",
			       key, e->u.str.ptr);
	}
}

/* "0000:3b:00.0" or "3b:00.0", as lspci and sysfs write them. */
static bool is_pci_address(const char *s)
{
	static const char shape[] = "xxxx:xx:xx.x";
	const char *want = strlen(s) == 12 ? shape :
			   strlen(s) == 7  ? shape + 5 :
					     NULL;
	size_t i;

	if (!want)
		return false;
	for (i = 0; want[i]; i++) {
		if (want[i] == 'x' ? !isxdigit((unsigned char)s[i]) :
				     s[i] != want[i])
			return false;
	}
	return true;
}

/* false: the key is absent or a bool (then *@on is set), true: a table. */
static bool collector(struct mx *mx, const struct toml_value *c,
		      const char *key, bool *on)
{
	const struct toml_value *v = toml_table__get(c, key);

	if (!v)
		return false;
	if (v->type == TOML_BOOL) {
		*on = v->u.b;
		return false;
	}
	if (v->type != TOML_TABLE) {
		mx_err(mx, v->pos,
		       "%s: expected true, false or a table, found "
		       "%s",
		       key,
		       v->type == TOML_STRING ? "a string" : "another type");
		return false;
	}
	*on = true;
	mx_bool(mx, v, "enabled", on);
	return true;
}

static void parse_bpf(struct mx *mx, struct matrix_collect *c,
		      const struct toml_value *tab)
{
	static const char *const keys[] = { "enabled", "probes", "device",
					    "cost", NULL };
	const struct toml_value *p = toml_table__get(tab, "probes"), *d;
	struct strvec all = { 0 }, dflt = { 0 };

	mx_check_keys(mx, tab, keys, "[collect.bpf]");
	probe_names(&all, &dflt);
	parse_names(mx, tab, "probes", strvec__argv(&all), strvec__argv(&dflt),
		    &c->bpf.probes, &c->bpf.nr_probes);
	strvec__release(&all);
	strvec__release(&dflt);
	if (p && p->type == TOML_ARRAY && !p->u.arr.n)
		mx_err(mx, p->pos,
		       "probes: the list is empty; leave it out "
		       "for \"default\"");
	d = toml_table__get(tab, "device");
	if (d && mx_is(mx, d, TOML_STRING, "device")) {
		if (strcmp(d->u.str.ptr, "nic") &&
		    !is_pci_address(d->u.str.ptr))
			mx_err(mx, d->pos,
			       "device: '%s' is neither a PCI "
			       "address like '0000:3b:00.0' nor \"nic\"",
			       d->u.str.ptr);
		else
			c->bpf.device = xstrdup(d->u.str.ptr);
	}
	d = toml_table__get(tab, "cost");
	if (d && mx_is(mx, d, TOML_BOOL, "cost"))
		c->bpf.cost = d->u.b;
}

const char *const matrix_record_names[] = { "separate", "every", "off", NULL };

static void parse_perf(struct mx *mx, struct matrix_collect *c,
		       const struct toml_value *tab)
{
	static const char *const keys[] = {
		"enabled",  "event",  "frequency",	"callgraph",
		"counters", "record", "profile_trials", NULL,
	};
	struct strvec counters = { 0 };
	int cg, rec;

	mx_check_keys(mx, tab, keys, "[collect.perf]");
	mx_string(mx, tab, "event", MX_EVENT, &c->perf.event);
	mx_uint32(mx, tab, "frequency", PERF_MIN_FREQ, PERF_MAX_FREQ,
		  &c->perf.frequency);
	if (mx_enum(mx, tab, "callgraph", perf_callgraph_names, &cg) > 0)
		c->perf.callgraph = cg;
	counter_names(&counters);
	parse_names(mx, tab, "counters", strvec__argv(&counters), NULL,
		    &c->perf.counters, &c->perf.nr_counters);
	strvec__release(&counters);
	if (mx_enum(mx, tab, "record", matrix_record_names, &rec) > 0)
		c->perf.record = rec;
	if (mx_uint32(mx, tab, "profile_trials", 1, MATRIX_MAX_PROFILE_TRIALS,
		      &c->perf.profile_trials) > 0 &&
	    c->perf.record != RECORD_SEPARATE)
		mx_err(mx, mx_val_pos(tab, "profile_trials", tab->pos),
		       "profile_trials: only with record = \"separate\" "
		       "(record is \"%s\")",
		       matrix_record_names[c->perf.record]);
}

static void parse_procstat(struct mx *mx, struct matrix_collect *c,
			   const struct toml_value *tab)
{
	static const char *const keys[] = { "enabled", "interval", NULL };

	char lo[32], hi[32];

	mx_check_keys(mx, tab, keys, "[collect.procstat]");
	if (mx_duration(mx, tab, "interval", &c->procstat.interval_ms) > 0 &&
	    (c->procstat.interval_ms < PROCSTAT_MIN_INTERVAL_MS ||
	     c->procstat.interval_ms > PROCSTAT_MAX_INTERVAL_MS))
		mx_err(mx, mx_val_pos(tab, "interval", tab->pos),
		       "interval: out of range (%s..%s)",
		       units__format_duration(PROCSTAT_MIN_INTERVAL_MS, lo,
					      sizeof(lo)),
		       units__format_duration(PROCSTAT_MAX_INTERVAL_MS, hi,
					      sizeof(hi)));
}

/*
 * Off unless asked for, but procstat: probes and sampling perturb the
 * very paths being measured, so throughput runs stay clean by default.
 */
static void set_defaults(struct matrix_collect *c)
{
	const struct bpf_probe_def *d;

	for (d = bpf_probe_defs; d->name; d++)
		if (d->in_default)
			strv_add(&c->bpf.probes, &c->bpf.nr_probes, d->name);
	/* NULL: the collector takes cycles where countable, else cpu-clock. */
	c->perf.frequency = PERF_DEFAULT_FREQ;
	c->perf.callgraph = CALLGRAPH_FP;
	c->perf.record = RECORD_SEPARATE;
	c->perf.profile_trials = 1;
	c->procstat.enabled = true;
	c->procstat.interval_ms = PROCSTAT_DEFAULT_INTERVAL_MS;
}

void matrix__parse_collect(struct mx *mx, const struct toml_value *v)
{
	static const char *const keys[] = { "bpf", "perf", "procstat", NULL };
	struct matrix_collect *c = &mx->m->collect;

	set_defaults(c);
	if (!v || !mx_is(mx, v, TOML_TABLE, "collect"))
		return;
	mx_check_keys(mx, v, keys, "[collect]");
	if (collector(mx, v, "bpf", &c->bpf.enabled))
		parse_bpf(mx, c, toml_table__get(v, "bpf"));
	if (collector(mx, v, "perf", &c->perf.enabled))
		parse_perf(mx, c, toml_table__get(v, "perf"));
	if (collector(mx, v, "procstat", &c->procstat.enabled))
		parse_procstat(mx, c, toml_table__get(v, "procstat"));
}

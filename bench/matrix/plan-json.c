// SPDX-License-Identifier: GPL-2.0-only
/*
 * The plan for programs. Top-level values are written one by one and the
 * trials one per line, so a plan of a million trials streams out instead
 * of being built as one tree in memory first.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>

#include "bench/matrix/plan.h"
#include "collectors/perf/perf-events.h"
#include "json-util.h"

static json_t *seconds(uint64_t ms)
{
	return json_real(ms / 1000.0);
}

static json_t *run_json(const struct matrix *m, const char *db)
{
	const struct matrix_run *r = &m->run;
	json_t *modes = json_array();
	size_t i;

	for (i = 0; i < r->nr_modes; i++)
		json_array_append_new(modes,
				      json_string(m->modes[r->modes[i]].name));
	return json_pack(
		"{s:s, s:s, s:o, s:i, s:i, s:s, s:o, s:o, s:s, s:o, "
		"s:o}",
		"name", r->name, "file", m->path, "description",
		json_string_or_null(r->description), "repetitions",
		(int)r->repetitions, "warmup", (int)r->warmup, "order",
		matrix_order__name(r->order), "seed",
		r->order == ORDER_RANDOM ? json_integer(r->seed) : json_null(),
		"cooldown_seconds", seconds(r->cooldown_ms), "db", db, "modes",
		modes, "until",
		r->until_max ? json_pack("{s:f, s:i}", "ci_width_pct",
					 r->until_width_pct, "max_repetitions",
					 (int)r->until_max) :
			       json_null());
}

static json_t *hosts_json(const struct matrix *m)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < m->nr_hosts; i++) {
		const struct matrix_host *h = &m->hosts[i];

		json_array_append_new(
			a,
			json_pack("{s:s, s:s, s:s, s:s?, s:s?, s:s?, s:b, s:s, "
				  "s:o}",
				  "name", h->name, "transport",
				  host_transport__name(h->transport), "role",
				  host_role__name(h->role), "address",
				  h->address, "nic", h->nic, "link",
				  h->has_link ? m->hosts[h->link].name : NULL,
				  "allow_reboot", h->allow_reboot, "reboot",
				  mode_apply__name(matrix__boot_method(h)),
				  "boot_estimate_seconds",
				  seconds(h->boot_estimate_ms)));
	}
	return a;
}

static json_t *kernels_json(const struct matrix *m)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < m->nr_kernels; i++) {
		const struct matrix_kernel *k = &m->kernels[i];

		json_array_append_new(
			a,
			/* s? is null where the matrix or the run says nothing. */
			json_pack(
				"{s:s, s:s, s:s?, s:s?, s:s?, s:s?, s:s?, s:s?, "
				"s:o, s:o}",
				"name", k->name, "kind",
				kernel_kind__name(k->kind), "package",
				k->package, "suite", k->suite, "resolves_to",
				k->fetched, "version", k->version, "image",
				k->image, "release", k->release, "cmdline",
				json_strings(k->cmdline, k->nr_cmdline),
				"patches",
				json_strings(k->build.patches,
					     k->build.nr_patches)));
	}
	return a;
}

static json_t *modes_json(const struct matrix *m)
{
	json_t *a = json_array();
	size_t i, j;

	for (i = 0; i < m->run.nr_modes; i++) {
		const struct matrix_mode *md = &m->modes[m->run.modes[i]];
		json_t *apply = json_object();

		for (j = 0; j < m->nr_hosts; j++)
			if (m->hosts[j].role == ROLE_SUT)
				json_object_set_new(
					apply, m->hosts[j].name,
					json_string(mode_apply__name(
						matrix__apply(&m->hosts[j],
							      md))));
		json_array_append_new(
			a,
			json_pack("{s:s, s:b, s:o, s:o, s:s, s:o}", "name",
				  md->name, "builtin", md->builtin, "cmdline",
				  json_strings(md->cmdline, md->nr_cmdline),
				  "group_type",
				  md->group_type == GROUP_TYPE_UNSET ?
					  json_null() :
					  json_string(group_type__name(
						  md->group_type)),
				  "method", mode_method__name(md->method),
				  "apply", apply));
	}
	return a;
}

static json_t *workloads_json(const struct matrix *m)
{
	json_t *a = json_array(), *o;
	size_t i;

	for (i = 0; i < m->nr_workloads; i++) {
		const struct matrix_workload *w = &m->workloads[i];

		o = json_pack("{s:s, s:s, s:s, s:o}", "name", w->name, "type",
			      w->ops->name, "sut", m->hosts[w->sut].name,
			      "trial_seconds",
			      seconds(matrix_workload__trial_ms(w)));
		w->ops->plan_json(m, w, o);
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *collect_json(const struct matrix *m)
{
	const struct matrix_collect *c = &m->collect;

	return json_pack("{s:{s:b, s:o, s:o, s:b}, s:{s:b, s:o, s:i, s:s, s:o, "
			 "s:s, s:i}, s:{s:b, s:o}}",
			 "bpf", "enabled", c->bpf.enabled, "probes",
			 json_strings(c->bpf.probes, c->bpf.nr_probes),
			 "device", json_string_or_null(c->bpf.device), "cost",
			 c->bpf.cost, "perf", "enabled", c->perf.enabled,
			 "event", json_string_or_null(c->perf.event),
			 "frequency", (int)c->perf.frequency, "callgraph",
			 perf_callgraph_names[c->perf.callgraph], "counters",
			 json_strings(c->perf.counters, c->perf.nr_counters),
			 "record", matrix_record_names[c->perf.record],
			 "profile_trials", (int)plan__profile_trials(m),
			 "procstat", "enabled", c->procstat.enabled,
			 "interval_seconds", seconds(c->procstat.interval_ms));
}

static json_t *trial_json(const struct plan *p, size_t i)
{
	const struct matrix *m = p->m;
	const struct plan_trial *t = &p->trials[i];
	char key[PLAN_KEY_MAX];

	plan_trial__key(m, t, key, sizeof(key));
	return json_pack("{s:I, s:s, s:s, s:s, s:s, s:s, s:i, s:b, s:b, s:s, "
			 "s:b, s:b, s:o}",
			 "index", (json_int_t)i, "key", key, "host",
			 m->hosts[t->host].name, "kernel",
			 m->kernels[t->kernel].name, "mode",
			 m->modes[t->mode].name, "workload",
			 m->workloads[t->workload].name, "repetition",
			 (int)t->repetition, "warmup", t->warmup, "profile",
			 t->profile, "apply", mode_apply__name(t->apply),
			 "reboot_before", t->reboot_before, "mode_switch",
			 t->mode_switch, "start_seconds", seconds(t->start_ms));
}

static json_t *summary_json(const struct plan *p)
{
	const struct plan_summary *s = &p->summary;

	return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:{s:o, "
			 "s:o, s:o, s:o}}",
			 "cells", (json_int_t)s->cells, "trials",
			 (json_int_t)s->trials, "warmup_trials",
			 (json_int_t)s->warmup_trials, "profile_trials",
			 (json_int_t)s->profile_trials, "reboots",
			 (json_int_t)s->reboots, "mode_switches",
			 (json_int_t)s->mode_switches, "sysfs_switches",
			 (json_int_t)s->sysfs_switches, "estimated_seconds",
			 (json_int_t)((s->estimated_ms + 999) / 1000),
			 "estimate", "trials_seconds", seconds(s->trial_ms),
			 "reboots_seconds", seconds(s->boot_ms),
			 "switches_seconds", seconds(s->switch_ms),
			 "cooldowns_seconds", seconds(s->cooldown_ms));
}

/* "  "KEY": VALUE" and the separator; consumes @v. */
static int member(FILE *fp, const char *key, json_t *v, const char *sep)
{
	int ret;

	if (!v)
		return -EIO;
	fprintf(fp, "  \"%s\": ", key);
	ret = json_dumpf(v, fp, JSON_PRESERVE_ORDER);
	json_decref(v);
	fputs(sep, fp);
	return ret ? -EIO : 0;
}

int plan__print_json(const struct plan *p, const char *db, json_t *gate,
		     FILE *fp)
{
	const struct matrix *m = p->m;
	int ret = 0;
	size_t i;

	fputs("{\n", fp);
	ret |= member(fp, "run", run_json(m, db), ",\n");
	ret |= member(fp, "hosts", hosts_json(m), ",\n");
	ret |= member(fp, "kernels", kernels_json(m), ",\n");
	ret |= member(fp, "modes", modes_json(m), ",\n");
	ret |= member(fp, "workloads", workloads_json(m), ",\n");
	ret |= member(fp, "collect", collect_json(m), ",\n");
	fputs("  \"cells\": [\n", fp);
	for (i = 0; i < p->nr_trials; i++) {
		json_t *t = trial_json(p, i);

		fputs("    ", fp);
		ret |= !t || json_dumpf(t, fp, JSON_PRESERVE_ORDER);
		json_decref(t);
		fputs(i + 1 < p->nr_trials ? ",\n" : "\n", fp);
	}
	fputs("  ],\n", fp);
	ret |= member(fp, "summary", summary_json(p), gate ? ",\n" : "\n");
	if (gate)
		ret |= member(fp, "gate", gate, "\n");
	fputs("}\n", fp);
	return ret || ferror(fp) ? -EIO : 0;
}

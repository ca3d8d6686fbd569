// SPDX-License-Identifier: GPL-2.0-only
/*
 * procstat deltas as the collector's results JSON (documented in
 * docs/collectors.md): shares of CPU time in %, per CPU and in total,
 * softirq and NIC interrupt counts and rates.
 */
#include <stdio.h>
#include <string.h>

#include "collectors/procstat/procstat-priv.h"

static double rate(uint64_t n, double seconds)
{
	return seconds > 0 ? (double)n / seconds : 0;
}

static json_t *shares(const struct procstat_cpu_delta *c)
{
	const uint64_t *v = c->v;
	uint64_t t = c->total;

	return json_pack("{s:f, s:f, s:f, s:f, s:f, s:f, s:f}", "util_pct",
			 procstat__pct(c->busy, t), "user_pct",
			 procstat__pct(v[PS_USER] + v[PS_NICE], t), "sys_pct",
			 procstat__pct(v[PS_SYSTEM], t), "irq_pct",
			 procstat__pct(v[PS_IRQ], t), "softirq_pct",
			 procstat__pct(v[PS_SOFTIRQ], t), "iowait_pct",
			 procstat__pct(v[PS_IOWAIT], t), "steal_pct",
			 procstat__pct(v[PS_STEAL], t));
}

static json_t *jiffies(const struct procstat_cpu_delta *c)
{
	json_t *o = json_object();
	int f;

	for (f = 0; f < PS_NR_FIELDS; f++)
		json_object_set_new(o, procstat_field_names[f],
				    json_integer((json_int_t)c->v[f]));
	return o;
}

static json_t *per_cpu(const struct procstat_delta *d, double *max_util)
{
	json_t *arr = json_array();
	size_t i;

	*max_util = 0;
	for (i = 0; i < d->nr_cpus; i++) {
		const struct procstat_cpu_delta *c = &d->cpus[i];
		json_t *o = shares(c);
		double u = procstat__pct(c->busy, c->total);

		if (u > *max_util)
			*max_util = u;
		json_object_set_new(o, "cpu", json_integer(c->cpu));
		json_object_set_new(o, "jiffies", jiffies(c));
		json_object_set_new(o, "net_rx", json_integer(c->net_rx));
		json_object_set_new(o, "net_tx", json_integer(c->net_tx));
		json_array_append_new(arr, o);
	}
	return arr;
}

static json_t *nic_json(const struct procstat_delta *d, const char *name)
{
	json_t *irqs = json_array();
	size_t i;

	for (i = 0; i < d->nr_irqs; i++)
		json_array_append_new(
			irqs, json_pack("{s:s, s:s, s:I}", "irq", d->irqs[i].id,
					"name", d->irqs[i].desc, "count",
					(json_int_t)d->irqs[i].count));
	return json_pack("{s:s, s:o, s:I, s:f}", "name", name, "irqs", irqs,
			 "total", (json_int_t)d->irq_total, "per_s",
			 rate(d->irq_total, d->seconds));
}

json_t *procstat__delta_json(const struct procstat_delta *d,
			     const char *nic_name, long user_hz)
{
	json_t *total = shares(&d->sum), *missing = json_array();
	double max_util, busy_cores = 0;
	json_t *cpus = per_cpu(d, &max_util);
	size_t i;

	if (d->sum.total)
		busy_cores = (double)d->nr_cpus * (double)d->sum.busy /
			     (double)d->sum.total;
	json_object_set_new(total, "busy_cores", json_real(busy_cores));
	json_object_set_new(total, "jiffies",
			    json_integer((json_int_t)d->sum.total));
	for (i = 0; i < d->nr_missing; i++)
		json_array_append_new(missing, json_integer(d->missing[i]));
	return json_pack(
		"{s:f, s:i, s:i, s:o, s:b, s:o, s:f, s:o, s:{s:I, s:I, s:f, "
		"s:f}, s:o}",
		"window_seconds", d->seconds, "user_hz", (int)user_hz,
		"nr_cpus", (int)d->nr_cpus, "cpus_missing", missing,
		"counters_went_backwards", d->backwards, "total", total,
		"max_util_pct", max_util, "per_cpu", cpus, "softirqs", "net_rx",
		(json_int_t)d->sum.net_rx, "net_tx", (json_int_t)d->sum.net_tx,
		"net_rx_per_s", rate(d->sum.net_rx, d->seconds), "net_tx_per_s",
		rate(d->sum.net_tx, d->seconds), "nic",
		nic_name ? nic_json(d, nic_name) : json_null());
}

json_t *procstat__interval_json(const struct procstat_delta *d, double start,
				double end, bool nic)
{
	json_t *o = shares(&d->sum), *cpus = json_object();
	size_t i;

	for (i = 0; i < d->nr_cpus; i++) {
		char key[24];

		snprintf(key, sizeof(key), "cpu%d", d->cpus[i].cpu);
		json_object_set_new(cpus, key,
				    json_real(procstat__pct(d->cpus[i].busy,
							    d->cpus[i].total)));
	}
	json_object_set_new(o, "start", json_real(start));
	json_object_set_new(o, "end", json_real(end));
	json_object_set_new(o, "net_rx_per_s",
			    json_real(rate(d->sum.net_rx, d->seconds)));
	json_object_set_new(o, "net_tx_per_s",
			    json_real(rate(d->sum.net_tx, d->seconds)));
	if (nic)
		json_object_set_new(o, "nic_irqs_per_s",
				    json_real(rate(d->irq_total, d->seconds)));
	json_object_set_new(o, "per_cpu_util_pct", cpus);
	return o;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * The arguments of the agent verbs a trial uses, built from the matrix:
 * the iperf3 keys of a workload (as the plan's workload JSON names them),
 * a fio workload's, and the enabled [collect] tables.
 */
#include <errno.h>
#include <string.h>

#include "bench/run/run.h"
#include "bench/workload/dma-map.h"
#include "collectors/perf/perf-events.h"
#include "json-util.h"

static json_t *cpus_json(const struct iperf3_affinity *a)
{
	json_t *arr = json_array();
	size_t i;

	for (i = 0; i < a->nr; i++)
		json_array_append_new(arr, json_integer(a->cpus[i]));
	return arr;
}

json_t *run_args__iperf3(const struct matrix *m,
			 const struct matrix_workload *w, bool client)
{
	const struct matrix_iperf3 *p = &w->u.iperf3;
	const struct iperf3_affinity *aff = client ? &p->client_cpus :
						     &p->server_cpus;
	json_t *o;

	(void)m;
	o = json_pack("{s:s, s:i, s:i, s:i, s:i, s:b, s:b, s:I, s:I, s:b, "
		      "s:i, s:b, s:i}",
		      "protocol", p->protocol == PROTO_UDP ? "udp" : "tcp",
		      "streams", (int)p->streams, "processes",
		      (int)p->processes, "duration_seconds",
		      (int)(p->duration_ms / 1000), "omit_seconds",
		      (int)(p->omit_ms / 1000), "reverse", p->reverse, "bidir",
		      p->bidir, "length", (json_int_t)p->length, "window",
		      (json_int_t)p->window, "zerocopy", p->zerocopy, "mss",
		      (int)p->mss, "no_delay", p->no_delay, "port",
		      (int)p->port);
	if (!o)
		return NULL;
	if (p->has_bitrate)
		json_object_set_new(o, "bitrate",
				    json_integer((json_int_t)p->bitrate));
	if (p->congestion)
		json_object_set_new(o, "congestion",
				    json_string(p->congestion));
	if (aff->nr)
		json_object_set_new(o, "affinity", cpus_json(aff));
	return o;
}

json_t *run_args__fio(const struct matrix *m, const struct matrix_workload *w)
{
	const struct matrix_fio *p = &w->u.fio;
	const struct matrix_disk *d = matrix_fio__disk(m, w);

	/* A VM's disk by the serial the testbed gave it; elsewhere by path. */
	return json_pack("{s:s, s:s, s:I, s:i, s:i, s:i, s:b, s:b}",
			 d->path ? "path" : "serial",
			 d->path ? d->path : d->name, "rw", fio_rw__name(p->rw),
			 "bs", (json_int_t)p->bs, "iodepth", (int)p->iodepth,
			 "numjobs", (int)p->numjobs, "runtime_s",
			 (int)(p->duration_ms / 1000), "direct", p->direct,
			 "destructive", p->destructive);
}

json_t *run_args__dma_map(const struct matrix_workload *w)
{
	const struct matrix_dma_map *p = &w->u.dma_map;

	return json_pack("{s:s, s:b, s:i, s:i, s:i, s:s, s:i, s:i, s:i}",
			 "device", p->device, "unbind", p->unbind, "threads",
			 (int)p->threads, "seconds", (int)p->seconds, "granule",
			 (int)p->granule, "direction",
			 dma_map__dir_name(p->dir), "dma_bits",
			 (int)p->dma_bits, "trans_ns", (int)p->trans_ns, "node",
			 p->node);
}

/* Sampling only where the matrix wants it: see enum perf_record_where. */
static json_t *perf_json(const struct matrix_collect *c, bool profile,
			 const struct matrix_host *h)
{
	bool record = c->perf.record == RECORD_EVERY ||
		      (c->perf.record == RECORD_SEPARATE && profile);
	json_t *o = json_pack("{s:b}", "record", record);

	/*
	 * A testbed guest runs the controller's own binaries, and under
	 * TCG each perf process costs it tens of seconds: perf report
	 * runs here instead, on the fetched perf.data with the guest's
	 * kallsyms (docs/collectors.md).
	 */
	if (record && matrix_host__is_vm(h))
		json_object_set_new(o, "report", json_string("controller"));
	if (c->perf.event)
		json_object_set_new(o, "event", json_string(c->perf.event));
	if (c->perf.frequency)
		json_object_set_new(o, "frequency",
				    json_integer(c->perf.frequency));
	json_object_set_new(
		o, "callgraph",
		json_string(perf_callgraph_names[c->perf.callgraph]));
	if (c->perf.nr_counters)
		json_object_set_new(o, "counters",
				    json_strings(c->perf.counters,
						 c->perf.nr_counters));
	return o;
}

json_t *run_args__collect(const struct matrix *m, const struct matrix_host *h,
			  const char *outdir, bool profile)
{
	const char *nic = h->nic;
	const struct matrix_collect *c = &m->collect;
	json_t *cols = json_object(), *o;

	if (c->bpf.enabled) {
		o = json_pack("{s:o}", "probes",
			      json_strings(c->bpf.probes, c->bpf.nr_probes));
		if (c->bpf.device)
			json_object_set_new(o, "device",
					    json_string(c->bpf.device));
		if (c->bpf.cost)
			json_object_set_new(o, "cost", json_true());
		json_object_set_new(cols, "bpf", o);
	}
	if (c->perf.enabled)
		json_object_set_new(cols, "perf", perf_json(c, profile, h));
	if (c->procstat.enabled)
		json_object_set_new(
			cols, "procstat",
			json_pack("{s:f}", "interval_seconds",
				  c->procstat.interval_ms / 1000.0));
	o = json_pack("{s:o}", "collectors", cols);
	if (nic)
		json_object_set_new(o, "nic", json_string(nic));
	if (outdir)
		json_object_set_new(o, "outdir", json_string(outdir));
	return o;
}

int run_args__data_ip(const struct matrix_host *h, char *buf, size_t size)
{
	const char *a = h->data_address ? h->data_address : h->address;
	size_t n;

	if (!a)
		return -ENOENT;
	n = strcspn(a, "/");
	if (n >= size)
		return -ENAMETOOLONG;
	memcpy(buf, a, n);
	buf[n] = '\0';
	return 0;
}

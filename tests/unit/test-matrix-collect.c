// SPDX-License-Identifier: GPL-2.0-only
/*
 * The matrix validates [collect] against the collectors' own tables,
 * without loading a collector (plan touches nothing): every probe name
 * the bpf collector knows is accepted, "default" is exactly its default
 * set in its order, and a name it does not know is refused with a
 * suggestion; the perf counters, call graphs and frequencies and the
 * procstat interval keep the collectors' limits.
 */
#include <stdbool.h>
#include <string.h>

#include "collectors/bpf/bpf-defs.h"
#include "collectors/perf/perf-events.h"
#include "collectors/procstat/procstat-limits.h"
#include "matrix-load.h"
#include "tap.h"

#define BASE                                                          \
	"[hosts.sut]\ntransport = \"ssh\"\nrole = \"sut\"\n"          \
	"address = \"sut.lab\"\n"                                     \
	"[hosts.peer]\ntransport = \"ssh\"\naddress = \"peer.lab\"\n" \
	"[[workloads]]\nname = \"tcp-rx\"\nserver = \"sut\"\n"        \
	"client = \"peer\"\n[run]\nmodes = [\"current\"]\n"

static bool has(const struct matrix *m, const char *name)
{
	size_t i;

	for (i = 0; i < m->collect.bpf.nr_probes; i++)
		if (!strcmp(m->collect.bpf.probes[i], name))
			return true;
	return false;
}

static void test_each_name(void)
{
	const struct bpf_probe_def *d;
	struct matrix *m;
	char *toml;

	for (d = bpf_probe_defs; d->name; d++) {
		toml = xasprintf(BASE "[collect.bpf]\nprobes = [\"%s\"]\n",
				 d->name);
		m = load(toml);
		ok(m && m->collect.bpf.nr_probes == 1 && has(m, d->name),
		   "the matrix accepts '%s'", d->name);
		matrix__free(m);
		free(toml);
	}
}

static void test_default(void)
{
	const struct bpf_probe_def *d;
	struct matrix *m = load(BASE "[collect.bpf]\nprobes = \"default\"\n");
	size_t n = 0;

	if (!m) {
		ok(0, "a matrix with probes = \"default\" loads");
		return;
	}
	for (d = bpf_probe_defs; d->name; d++) {
		is_int(has(m, d->name), d->in_default,
		       "'%s' is in the matrix's default as in the collector's",
		       d->name);
		if (d->in_default && n < m->collect.bpf.nr_probes)
			is_str(m->collect.bpf.probes[n++], d->name,
			       "in the collector's order");
	}
	is_int(m->collect.bpf.nr_probes, n, "and nothing else");
	matrix__free(m);
}

static void test_unknown(void)
{
	char *msg = load_bad(BASE "[collect.bpf]\nprobes = [\"unmpa\"]\n");

	has_str(msg, "unknown name 'unmpa'; did you mean 'unmap'?",
		"a name the collector does not know is refused, with a "
		"suggestion");
	free(msg);
}

static void test_perf(void)
{
	const struct perf_event_def *d;
	struct matrix *m;
	char *toml, *msg;
	size_t i;

	for (d = perf_event_defs; d->name; d++) {
		toml = xasprintf(BASE "[collect.perf]\ncounters = [\"%s\"]\n",
				 d->name);
		m = load(toml);
		ok(m && m->collect.perf.nr_counters == 1 &&
			   !strcmp(m->collect.perf.counters[0], d->name),
		   "the matrix counts '%s'", d->name);
		matrix__free(m);
		free(toml);
	}
	msg = load_bad(BASE "[collect.perf]\ncounters = [\"cycels\"]\n");
	has_str(msg, "did you mean 'cycles'?",
		"a counter the collector does not know is refused");
	free(msg);
	for (i = 0; perf_callgraph_names[i]; i++) {
		toml = xasprintf(BASE "[collect.perf]\ncallgraph = \"%s\"\n",
				 perf_callgraph_names[i]);
		m = load(toml);
		ok(m && (size_t)m->collect.perf.callgraph == i,
		   "callgraph '%s' is the collector's",
		   perf_callgraph_names[i]);
		matrix__free(m);
		free(toml);
	}
	m = load(BASE "[collect.perf]\n");
	ok(m && m->collect.perf.frequency == PERF_DEFAULT_FREQ,
	   "the default frequency is the collector's");
	matrix__free(m);
	toml = xasprintf(BASE "[collect.perf]\nfrequency = %d\n",
			 PERF_MAX_FREQ + 1);
	msg = load_bad(toml);
	has_str(msg, "frequency",
		"a frequency above the collector's is refused");
	free(msg);
	free(toml);
}

static void test_procstat(void)
{
	struct matrix *m = load(BASE);
	char *msg;

	ok(m && m->collect.procstat.interval_ms == PROCSTAT_DEFAULT_INTERVAL_MS,
	   "procstat samples at the collector's default interval");
	matrix__free(m);
	m = load(BASE "[collect.procstat]\ninterval = \"10ms\"\n");
	ok(m && m->collect.procstat.interval_ms == PROCSTAT_MIN_INTERVAL_MS,
	   "the collector's shortest interval is accepted");
	matrix__free(m);
	msg = load_bad(BASE "[collect.procstat]\ninterval = \"9ms\"\n");
	has_str(msg, "interval: out of range (10ms..1h)",
		"a shorter one is refused, with the collector's limits");
	free(msg);
	msg = load_bad(BASE "[collect.procstat]\ninterval = \"61m\"\n");
	has_str(msg, "out of range", "and so is one above an hour");
	free(msg);
}

int main(void)
{
	test_each_name();
	test_default();
	test_unknown();
	test_perf();
	test_procstat();
	config_errors__release(&errs);
	return tap_done();
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * The matrix validates [collect] against the collectors' own tables,
 * without loading a collector (plan touches nothing): every probe name
 * the bpf collector knows is accepted, "default" is exactly its default
 * set in its order, and a name it does not know is refused with a
 * suggestion; the perf counters, call graphs and frequencies and the
 * procstat interval keep the collectors' limits; and perf samples in
 * profile trials of their own unless told otherwise, which the plan
 * places after each cell's last measured trial.
 */
#include <stdbool.h>
#include <string.h>

#include "collectors/bpf/bpf-defs.h"
#include "collectors/perf/perf-events.h"
#include "bench/matrix/plan.h"
#include "collectors/procstat/procstat-limits.h"
#include "matrix-load.h"
#include "tap.h"
#include "util.h"

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
	char *toml;
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
	load_refused(BASE "[collect.perf]\ncounters = [\"cycels\"]\n",
		     "did you mean 'cycles'?",
		     "a counter the collector does not know is refused");
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
	load_refused(toml, "frequency",
		     "a frequency above the collector's is refused");
	free(toml);
}

static void test_procstat(void)
{
	struct matrix *m = load(BASE);

	ok(m && m->collect.procstat.interval_ms == PROCSTAT_DEFAULT_INTERVAL_MS,
	   "procstat samples at the collector's default interval");
	matrix__free(m);
	m = load(BASE "[collect.procstat]\ninterval = \"10ms\"\n");
	ok(m && m->collect.procstat.interval_ms == PROCSTAT_MIN_INTERVAL_MS,
	   "the collector's shortest interval is accepted");
	matrix__free(m);
	load_refused(BASE "[collect.procstat]\ninterval = \"9ms\"\n",
		     "interval: out of range (10ms..1h)",
		     "a shorter one is refused, with the collector's limits");
	load_refused(BASE "[collect.procstat]\ninterval = \"61m\"\n",
		     "out of range", "and so is one above an hour");
}

/* "m" a measured trial, "p" a profile one, "w" a warmup, per trial. */
static char *kinds(const struct plan *p)
{
	char *s = xcalloc(p->nr_trials + 1, 1);
	size_t i;

	for (i = 0; i < p->nr_trials; i++)
		s[i] = p->trials[i].warmup  ? 'w' :
		       p->trials[i].profile ? 'p' :
					      'm';
	return s;
}

static void test_record(void)
{
	struct matrix *m;
	struct plan p;
	char *k;

	m = load(BASE "[collect.perf]\n");
	ok(m && m->collect.perf.record == RECORD_SEPARATE &&
		   m->collect.perf.profile_trials == 1 &&
		   plan__profile_trials(m) == 1,
	   "perf samples in one profile trial per cell by default");
	matrix__free(m);
	m = load(BASE "[collect.perf]\nrecord = \"every\"\n");
	ok(m && m->collect.perf.record == RECORD_EVERY &&
		   !plan__profile_trials(m),
	   "record = \"every\": no profile trials");
	matrix__free(m);
	m = load(BASE "[collect.perf]\nrecord = \"off\"\n");
	ok(m && m->collect.perf.record == RECORD_OFF &&
		   !plan__profile_trials(m),
	   "record = \"off\": counters only, no profile trials");
	matrix__free(m);
	m = load(BASE);
	ok(m && !plan__profile_trials(m), "no perf, no profile trials");
	matrix__free(m);

	load_refused(BASE "[collect.perf]\nrecord = \"evrey\"\n",
		     "did you mean 'every'?", "a misspelt record is refused");
	load_refused(BASE "[collect.perf]\nrecord = \"every\"\n"
			  "profile_trials = 2\n",
		     "profile_trials: only with record = \"separate\"",
		     "profile_trials without profile trials is refused");
	load_refused(BASE "[collect.perf]\nprofile_trials = 0\n",
		     "profile_trials", "profile_trials = 0 is refused");

	m = load(BASE "[collect.perf]\nprofile_trials = 2\n"
		      "[[workloads]]\nname = \"tcp-tx\"\nserver = \"sut\"\n"
		      "client = \"peer\"\nreverse = true\n");
	m->run.repetitions = 3;
	m->run.warmup = 1;
	ok(!plan__build(&p, m, &errs), "a plan with profile trials");
	k = kinds(&p);
	is_str(k, "wmmmppwmmmpp",
	       "grouped: each cell's profile trials after its last rep");
	ok(p.summary.trials == 6 && p.summary.profile_trials == 4 &&
		   p.summary.warmup_trials == 2,
	   "the summary counts them apart");
	free(k);
	plan__release(&p);
	m->run.order = ORDER_INTERLEAVED;
	ok(!plan__build(&p, m, &errs), "interleaved");
	k = kinds(&p);
	is_str(k, "wmwmmmmppmpp",
	       "interleaved: after the cell's trial of the last round");
	free(k);
	plan__release(&p);
	matrix__free(m);
}

int main(void)
{
	test_each_name();
	test_default();
	test_unknown();
	test_perf();
	test_procstat();
	test_record();
	config_errors__release(&errs);
	return tap_done();
}

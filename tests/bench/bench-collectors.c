// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the collectors cost the workload they measure: iperf3 TCP across
 * a veth pair between two network namespaces, 2 s per run, under
 *
 *   bare               no collector
 *   procstat 1s        the default procstat (one snapshot a second)
 *   procstat 10ms      procstat at its finest interval
 *   perf counters      libperf counting only (no perf record)
 *   perf record        perf record -a -F 999 -g, then perf report
 *
 * interleaved over a few rounds, the median of each beside its ratio
 * to bare in one table. The goal, read off and not asserted: procstat
 * and counters within noise of bare, perf record's cost visible and
 * stated. Then the time a snapshot of /proc and a parse of a perf
 * report take, the costs that bound the sampling interval.
 */
#include <math.h>

#include "bench/workload/iperf3.h"
#include "clock.h"
#include "collectors/collector.h"
#include "collectors/perf/perf-report.h"
#include "collectors/procstat/procstat-parse.h"
#include "log.h"
#include "tests/unit/collectors-test.h"

#define ROUNDS 3
#define PORT_BASE 23000

enum config { BARE, PS_1S, PS_10MS, COUNTERS, RECORD, NR };

static const char *const names[NR] = {
	"bare",		 "procstat 1s",		  "procstat 10ms",
	"perf counters", "perf record -F 999 -g",
};

static json_t *config_of(enum config c, const struct collector_ops **ops)
{
	*ops = c == PS_1S || c == PS_10MS ? &procstat_collector_ops :
					    &perf_collector_ops;
	switch (c) {
	case PS_1S:
		return json_pack("{s:s}", "interval", "1s");
	case PS_10MS:
		return json_pack("{s:s}", "interval", "10ms");
	case COUNTERS:
		return json_pack("{s:b}", "record", 0);
	case RECORD:
		return json_pack("{s:i, s:s}", "frequency", 999, "callgraph",
				 "fp");
	default:
		*ops = NULL;
		return NULL;
	}
}

/* One run: Gbit/s, or NAN; @stop_ms gets what stop() took. */
static double run_one(enum config c, unsigned int port, double *stop_ms)
{
	struct iperf3_opts srv = { .netns = ct_ns_a, .port = port };
	struct iperf3_opts cli = { .netns = ct_ns_b,
				   .host = ct_addr_a,
				   .port = port,
				   .duration_s = 2 };
	const struct collector_ops *ops;
	json_t *cfg = config_of(c, &ops), *r = NULL;
	struct collector *col = NULL;
	double gbit = NAN, t;

	*stop_ms = 0;
	if (ops &&
	    (ops->create(&(struct collector_opts){ .config = cfg }, &col) ||
	     ops->start(col)))
		goto out;
	if (!iperf3__run(&srv, &cli, &r, NULL))
		gbit = json_number_value(json_object_get(r, "throughput_bps")) /
		       1e9;
	if (col) {
		t = mono_ns() / 1e9;
		if (ops->stop(col))
			gbit = NAN;
		*stop_ms = (mono_ns() / 1e9 - t) * 1e3;
	}
out:
	if (col)
		ops->destroy(col);
	json_decref(r);
	json_decref(cfg);
	return gbit;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void bench_overhead(void)
{
	double gbit[NR][ROUNDS], stop[NR][ROUNDS], base;
	unsigned int port = PORT_BASE + getpid() % 1000 * 8;
	int r, c;

	for (r = 0; r < ROUNDS; r++)
		for (c = 0; c < NR; c++)
			gbit[c][r] = run_one(c, port++, &stop[c][r]);
	printf("iperf3 TCP over veth, 2 s runs, median of %d interleaved "
	       "rounds\n",
	       ROUNDS);
	printf("%-24s %8s %9s %9s %10s\n", "collector", "Gbit/s", "vs bare",
	       "spread", "stop() ms");
	base = median(gbit[BARE], ROUNDS);
	for (c = 0; c < NR; c++) {
		double g = median(gbit[c], ROUNDS);

		/* sorted by median(): the spread says how far to trust it */
		printf("%-24s %8.2f %8.3fx %8.0f%% %10.1f\n", names[c], g,
		       g / base, 100 * (gbit[c][ROUNDS - 1] - gbit[c][0]) / g,
		       median(stop[c], ROUNDS));
	}
}

static void bench_parsers(void)
{
	char *path = xasprintf("%s/tests/unit/fixtures/perf/report-real.txt",
			       getenv("SRCDIR") ? getenv("SRCDIR") : ".");
	struct procstat_snap s = { 0 };
	char *text = NULL;
	size_t len;
	double t;
	int i, n = 2000;

	t = mono_ns() / 1e9;
	for (i = 0; i < n; i++)
		procstat__snap_read(&s, NULL);
	printf("procstat snapshot (/proc/stat + /proc/softirqs): %.1f us\n",
	       (mono_ns() / 1e9 - t) / n * 1e6);
	procstat__snap_release(&s);
	if (read_file(path, &text, &len)) {
		printf("(no %s)\n", path);
		free(path);
		return;
	}
	n = 200;
	t = mono_ns() / 1e9;
	for (i = 0; i < n; i++) {
		struct perf_report rep = { 0 };

		perf_report__parse(text, &rep);
		perf_report__release(&rep);
	}
	printf("perf report parse (349 rows, %zu bytes): %.1f us\n", len,
	       (mono_ns() / 1e9 - t) / n * 1e6);
	free(text);
	free(path);
}

int main(void)
{
	log_verbosity = LOG_ERR;
	ct_guard();
	ct_netns_pair();
	bench_overhead();
	bench_parsers();
	return 0;
}

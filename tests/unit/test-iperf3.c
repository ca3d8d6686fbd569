// SPDX-License-Identifier: GPL-2.0-only
/*
 * iperf3 through libiperf, for real: servers in one network namespace,
 * clients in another, across a veth pair. TCP and UDP, two parallel
 * processes, a closed port, the servers' own reports, and the results
 * written into a real SQLite store. Every test is 2 s of traffic.
 */
#include <math.h>

#include "bench/workload/iperf3.h"
#include "collectors-test.h"

/* Far from iperf3's 5201, so that a stray iperf3 -s cannot answer. */
#define PORT (20000 + getpid() % 10000)

static double dnum(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

static void opts_pair(struct iperf3_opts *srv, struct iperf3_opts *cli,
		      unsigned int port)
{
	*srv = (struct iperf3_opts){ .netns = ct_ns_a, .port = port };
	*cli = (struct iperf3_opts){
		.netns = ct_ns_b,
		.host = ct_addr_a,
		.port = port,
		.duration_s = 2,
	};
}

static void test_tcp(struct store *st, int64_t trial)
{
	struct iperf3_opts srv, cli;
	json_t *r = NULL, *ivs;
	int64_t n = 0;
	int err;

	opts_pair(&srv, &cli, PORT);
	err = iperf3__run(&srv, &cli, &r);
	if (!is_int(err, 0, "TCP for 2 s across the veth pair"))
		return;
	tap_diag("TCP: %.2f Gbit/s, %g retransmits",
		 dnum(r, "throughput_bps") / 1e9, dnum(r, "retransmits"));
	ok(dnum(r, "throughput_bps") > 0, "throughput is positive");
	ok(dnum(r, "sender_bps") > 0, "the sender's side is there too");
	ok(json_is_number(json_object_get(r, "retransmits")),
	   "retransmits is a number");
	ok(dnum(r, "cpu_client_pct") > 0 && dnum(r, "cpu_server_pct") > 0,
	   "CPU use of both ends is there");
	ivs = json_object_get(r, "intervals");
	ok(json_array_size(ivs) >= 2, "per-interval series (%zu intervals)",
	   json_array_size(ivs));
	ok(dnum(json_array_get(ivs, 1), "start") >= 0.9 &&
		   dnum(json_array_get(ivs, 1), "bits_per_second") > 0,
	   "the second interval starts near 1 s and carries throughput");

	ok(dnum(r, "bytes") > 0.8 * dnum(r, "throughput_bps") * 2 / 8 &&
		   dnum(r, "bytes") < 1.25 * dnum(r, "throughput_bps") * 2 / 8,
	   "bytes received agree with throughput x duration (%.0f)",
	   dnum(r, "bytes"));
	is_int(iperf3__store(st, trial, r), 0, "the results go into the store");
	store__count(st, "metrics", &n);
	ok(n >= 5, "throughput, sender, retransmits and CPU stored (%lld)",
	   (long long)n);
	store__count(st, "intervals", &n);
	ok(n >= 2, "interval rows stored (%lld)", (long long)n);
	json_decref(r);
}

static void test_parallel(void)
{
	struct iperf3_opts srv, cli;
	double sum = 0, part;
	json_t *r = NULL, *p;
	size_t i;

	opts_pair(&srv, &cli, PORT + 10);
	srv.processes = cli.processes = 2;
	if (!is_int(iperf3__run(&srv, &cli, &r), 0,
		    "two iperf3 processes in parallel on two ports"))
		return;
	is_int(json_array_size(json_object_get(r, "per_process")), 2,
	       "one entry per process");
	json_array_foreach(json_object_get(r, "per_process"), i, p) {
		part = dnum(p, "throughput_bps");
		ok(part > 0, "process on port %g carried traffic",
		   dnum(p, "port"));
		sum += part;
	}
	ok(fabs(sum - dnum(r, "throughput_bps")) <= 1e-6 * sum,
	   "the total is the sum of the parts (%.0f vs %.0f)", sum,
	   dnum(r, "throughput_bps"));
	json_decref(r);
}

/* A client run, and what it said on stderr (*@err, to free). */
static int client_said(const struct iperf3_opts *cli, json_t **r, char **err)
{
	int ret;

	ct_capture_begin();
	ret = iperf3__client_run(cli, r);
	*err = ct_capture_end();
	return ret;
}

static void test_refused(void)
{
	struct iperf3_opts cli = {
		.netns = ct_ns_b,
		.host = ct_addr_a,
		.port = PORT + 20,
		.duration_s = 2,
	};
	json_t *r = NULL;
	char *err;
	int ret = client_said(&cli, &r, &err);

	ok(ret < 0, "a client against a closed port fails (%d)", ret);
	has_str(err, "Connection refused", "with iperf3's own words");
	has_str(err, "port", "naming the port");
	ok(!r, "and hands back no results (no zero throughput)");
	free(err);
}

static void test_udp(void)
{
	struct iperf3_opts srv, cli;
	json_t *r = NULL, *udp;
	double bps;

	opts_pair(&srv, &cli, PORT + 30);
	cli.udp = true;
	cli.bitrate = 50000000;
	cli.has_bitrate = true;
	if (!is_int(iperf3__run(&srv, &cli, &r), 0, "UDP at 50 Mbit/s"))
		return;
	bps = dnum(r, "throughput_bps");
	tap_diag("UDP: %.1f Mbit/s received", bps / 1e6);
	ok(bps > 25e6 && bps < 100e6,
	   "throughput near the bitrate (within a factor 2)");
	ok(json_is_null(json_object_get(r, "retransmits")),
	   "UDP has no retransmits (null, not 0)");
	udp = json_object_get(r, "udp");
	ok(dnum(udp, "packets") > 0 && dnum(udp, "lost_pct") >= 0,
	   "datagrams and loss are reported");
	is_str(json_string_value(json_object_get(r, "protocol")), "udp",
	       "the protocol is recorded");
	json_decref(r);

	/*
	 * 64-byte datagrams with an omitted second: iperf3 3.12's server
	 * then reports sum_sent.packets as 2^64 - n, which an integer JSON
	 * parse refused along with the whole report. The bytes received
	 * (what probes' calls per GB divide by) count the omitted second
	 * too, since the probes count through it.
	 */
	opts_pair(&srv, &cli, PORT + 35);
	cli.udp = true;
	cli.length = 64;
	cli.bitrate = 4000000;
	cli.has_bitrate = true;
	cli.omit_s = 1;
	if (!is_int(iperf3__run(&srv, &cli, &r), 0,
		    "UDP with 64-byte datagrams and an omitted second"))
		return;
	bps = dnum(r, "bytes");
	tap_diag("UDP 64 B: %.0f bytes received, %.0f datagrams", bps,
		 bps / 64);
	ok(fabs(bps - 3 * 4e6 / 8) < 0.1 * 3 * 4e6 / 8,
	   "bytes received over 2 s + 1 s omitted at 4 Mbit/s (%.0f)", bps);
	ok(fmod(bps, 64) == 0, "a whole number of 64-byte datagrams");
	json_decref(r);
}

static void test_server_api(void)
{
	struct iperf3_opts srv, cli;
	struct iperf3_server *s = NULL;
	json_t *r = NULL, *reports = NULL;

	opts_pair(&srv, &cli, PORT + 40);
	cli.duration_s = 1;
	cli.reverse = true;
	if (!is_int(iperf3__server_start(&srv, &s), 0,
		    "a one-off server starts and is found listening"))
		return;
	is_int(iperf3__client_run(&cli, &r), 0, "a reverse test against it");
	is_int(iperf3__server_wait(s, 10000, &reports), 0,
	       "the server finishes after its one test");
	ok(json_is_object(json_object_get(json_array_get(reports, 0), "end")),
	   "and hands back its own report");
	ok(dnum(r, "throughput_bps") > 0, "reverse traffic was received");
	iperf3__server_stop(s);
	json_decref(reports);
	json_decref(r);
}

static void test_knobs(void)
{
	struct iperf3_opts srv, cli;
	json_t *r = NULL, *ivs;

	opts_pair(&srv, &cli, PORT + 50);
	cli.duration_s = 1;
	cli.omit_s = 1;
	cli.bidir = true;
	cli.streams = 2;
	cli.length = 65536;
	cli.window = 1 << 20;
	cli.mss = 1400;
	cli.no_delay = true;
	cli.congestion = "reno";
	cli.zerocopy = true;
	if (!is_int(iperf3__run(&srv, &cli, &r), 0,
		    "bidir, 2 streams, omit, -l, -w, -M, -N, -C reno, -Z"))
		return;
	ok(dnum(r, "throughput_bps") > 0 &&
		   json_is_true(json_object_get(r, "bidir")),
	   "both directions summed");
	ivs = json_object_get(r, "intervals");
	ok(json_array_size(ivs) == 1 &&
		   dnum(json_array_get(ivs, 0), "start") >= 1.0,
	   "the omitted second is left out, and time counts from the start");
	json_decref(r);
}

static void test_server_busy_port(void)
{
	struct iperf3_opts srv, cli;
	struct iperf3_server *s1 = NULL, *s2 = NULL;
	char *err;
	int ret;

	opts_pair(&srv, &cli, PORT + 60);
	if (!is_int(iperf3__server_start(&srv, &s1), 0, "a server listens"))
		return;
	ct_capture_begin();
	ret = iperf3__server_start(&srv, &s2);
	err = ct_capture_end();
	ok(ret < 0 && !s2, "a second server on the same port fails");
	has_str(err, "Address already in use", "in iperf3's words");
	iperf3__server_stop(s1);
	free(err);
}

static void test_unreachable(void)
{
	struct iperf3_opts cli = {
		.netns = ct_ns_b,
		.host = "10.254.254.254", /* no route in the namespace */
		.port = PORT + 70,
		.duration_s = 1,
		.connect_timeout_ms = 1000,
	};
	json_t *r = NULL;
	char *err;

	ok(client_said(&cli, &r, &err) < 0 && !r,
	   "a client with no route to its server fails");
	has_str(err, "unreachable", "saying so");
	free(err);
}

static void test_bad_opts(void)
{
	struct iperf3_opts o = { .host = "10.0.0.1", .netns = "../etc" };
	int cpus[] = { 0 };
	char *err;

	ct_capture_begin();
	is_int(iperf3__check_opts(&o, true), -EINVAL, "a netns with a slash");
	o.netns = NULL;
	o.processes = 65;
	is_int(iperf3__check_opts(&o, true), -EINVAL, "65 processes");
	o.processes = 2;
	o.cpus = cpus;
	o.nr_cpus = 1;
	is_int(iperf3__check_opts(&o, true), -EINVAL, "one CPU, 2 processes");
	o.cpus = NULL;
	o.host = NULL;
	is_int(iperf3__check_opts(&o, true), -EINVAL, "a client without host");
	err = ct_capture_end();
	has_str(err, "'../etc'", "the message names the bad value");
	has_str(err, "65 is out of range (expected 1..64)",
		"and what was expected");
	free(err);
}

static void test_error_key(void)
{
	const char *text = "{\"start\": {}, \"intervals\": [], \"end\": {},"
			   " \"error\": \"the server is busy running a test."
			   " try again later\"}";
	struct iperf3_opts o = { .host = "x" };
	json_t *rep = json_loads(text, 0, NULL), *r = NULL;
	unsigned int port = 5201;
	char *err;
	int ret;

	ct_capture_begin();
	ret = iperf3__summarize(&rep, &port, 1, &o, &r);
	err = ct_capture_end();
	ok(ret < 0 && !r, "a report with an error key is an error");
	has_str(err, "server is busy", "with the report's own text");
	json_decref(rep);
	free(err);
}

int main(void)
{
	struct store *st;
	int64_t run, trial;

	ct_guard();
	test_bad_opts();
	test_error_key();
	ct_netns_pair();
	tap_diag("libiperf %s", iperf3__version());
	st = ct_store(&run, &trial);
	test_tcp(st, trial);
	test_parallel();
	test_refused();
	test_udp();
	test_server_api();
	test_knobs();
	test_server_busy_port();
	test_unreachable();
	store__commit(st);
	store__close(st);
	return tap_done();
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for iperf3's JSON results, both ways they reach the
 * store. The input is what iperf3 printed: one report, or an array of
 * them (one per process); they are summarised by iperf3__summarize()
 * and the summary stored by iperf3__store(), as a client run does. The
 * same input is also stored as it stands, as the controller stores the
 * results object an agent's iperf3.client sends. The store is a real
 * one, its rows rolled back after each input.
 */
#include <errno.h>
#include <math.h>

#include "bench/workload/iperf3.h"
#include "fuzz/fuzz-util.h"
#include "store/store.h"

static struct store *st;
static int64_t trial_id;

FUZZ_INITIALIZE(st = fuzz_store(&trial_id))

/* UDP when the first report says so, as the matrix would have asked. */
static bool is_udp(const json_t *report)
{
	const char *p = json_string_value(json_object_get(
		json_object_get(json_object_get(report, "start"), "test_start"),
		"protocol"));

	return p && !strcmp(p, "UDP");
}

static void summarize(json_t *in)
{
	struct iperf3_opts o = { .host = "fuzz", .duration_s = 1 };
	json_t *one[1] = { in }, **reports = one, *results = NULL, *v;
	unsigned int ports[IPERF3_MAX_PROCESSES];
	size_t n = 1, i;
	char *err = NULL;
	int ret;

	if (json_is_array(in)) {
		n = json_array_size(in);
		if (!n || n > IPERF3_MAX_PROCESSES)
			return;
		reports = xcalloc(n, sizeof(*reports));
		json_array_foreach(in, i, v)
			reports[i] = v;
	}
	for (i = 0; i < n; i++)
		ports[i] = IPERF3_DEFAULT_PORT + (unsigned int)i;
	o.udp = is_udp(reports[0]);
	o.processes = (unsigned int)n;
	o.omit_s = (unsigned int)json_integer_value(json_object_get(
			   json_object_get(json_object_get(reports[0], "start"),
					   "test_start"),
			   "omit")) &
		   0xff;
	ret = iperf3__summarize(reports, ports, n, &o, &results, &err);
	if (ret) {
		/* A refusal says why. */
		CHECK(ret < 0 && !results && err && *err);
	} else {
		/* The same reports as the servers' (iperf3.wait's array). */
		v = json_is_array(in) ? json_incref(in) : json_pack("[O]", in);
		iperf3__add_received(results, v);
		json_decref(v);
		CHECK(json_is_object(results));
		CHECK(json_is_number(
			json_object_get(results, "throughput_bps")));
		CHECK(!iperf3__store(st, trial_id, results, NULL));
	}
	free(err);
	json_decref(results);
	if (reports != one)
		free(reports);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *in = json_loadb((const char *)data, size, 0, NULL);
	int ret;

	if (!in)
		return 0;
	CHECK(!store__begin(st));
	summarize(in);
	/* An agent's results: refused or stored, never a crash. */
	ret = iperf3__store(st, trial_id, in, NULL);
	CHECK(ret <= 0);
	store__rollback(st);
	json_decref(in);
	return 0;
}

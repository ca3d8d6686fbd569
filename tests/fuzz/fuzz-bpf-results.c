// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for the bpf collector's results as a host under test
 * sends them (collect.stop's "bpf" object): the probes and the exposure
 * window, stored by the collector's store() into a real store (rows
 * rolled back after each input) and printed as trace prints them. A
 * refusal is an error, never a crash, a half-written row or an
 * exposure figure out of a histogram that does not hold its windows.
 */
#include <stdio.h>

#include "collectors/bpf/bpf-probes.h"
#include "collectors/collector.h"
#include "fuzz/fuzz-util.h"
#include "store/store.h"

static struct store *st;
static int64_t trial_id;
static FILE *null_fp;

static void open_null(void)
{
	null_fp = fopen("/dev/null", "we");
	if (!null_fp)
		abort();
}

FUZZ_INITIALIZE(st = fuzz_store(&trial_id); open_null())

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *in = json_loadb((const char *)data, size, 0, NULL);

	if (!in)
		return 0;
	CHECK(!store__begin(st));
	CHECK(bpf_collector_ops.store(st, trial_id, in) <= 0);
	store__rollback(st);
	bpf_results__print(null_fp, in);
	json_decref(in);
	return 0;
}

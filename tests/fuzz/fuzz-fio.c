// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for fio's JSON report (--output-format=json, one
 * job with group_reporting), as a host under test's fio prints it:
 * fio__summarize() and the summary into the store by fio__store(); the
 * same input is also stored as it stands, as the controller stores the
 * results an agent's fio.run sends. The store is a real one, its rows
 * rolled back after each input.
 */
#include <errno.h>

#include "bench/workload/fio.h"
#include "fuzz/fuzz-util.h"
#include "store/store.h"

static struct store *st;
static int64_t trial_id;

FUZZ_INITIALIZE(st = fuzz_store(&trial_id))

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *in = json_loadb((const char *)data, size, 0, NULL);
	json_t *results = NULL;
	char *err = NULL;
	int ret;

	if (!in)
		return 0;
	CHECK(!store__begin(st));
	ret = fio__summarize(in, &results, &err);
	if (ret) {
		/* Refused in words, never half a result. */
		CHECK(ret < 0 && !results && err && *err);
	} else {
		CHECK(json_is_number(
			json_object_get(results, "throughput_bps")));
		CHECK(!err);
		CHECK(!fio__store(st, trial_id, results));
	}
	/* An agent's results: refused or stored, never a crash. */
	CHECK(fio__store(st, trial_id, in) <= 0);
	store__rollback(st);
	json_decref(results);
	json_decref(in);
	free(err);
	return 0;
}

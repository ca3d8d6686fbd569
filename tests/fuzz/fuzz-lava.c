// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for a LAVA lab's answers as the lava transport reads
 * them: a job's state, its results (why it failed), a submission's id,
 * a list of names (device types, tags). The lab is outside our control:
 * whatever it says is an error or a value, never a crash or a leak.
 */
#include <string.h>

#include "bench/host/lava/lava.h"
#include "fuzz/fuzz-util.h"
#include "strvec.h"

FUZZ_INITIALIZE()

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *in = json_loadb((const char *)data, size, 0, NULL);
	struct lava_job job;
	char *err = NULL, *why, **names;
	int64_t id = 0;
	size_t nr = 0;

	if (!in)
		return 0;
	if (!lava_job__parse(in, &job, &err)) {
		CHECK(job.id > 0);
		CHECK(job.state <= LAVA_FINISHED);
		lava_job__release(&job);
	} else {
		CHECK(err && *err);
	}
	free(err);
	why = lava_job__error(in);
	CHECK(!why || strlen(why) < 64 * 1024);
	free(why);
	if (!lava_job__submitted(in, &id))
		CHECK(id > 0);
	names = lava__names(in, &nr);
	CHECK(names[nr] == NULL);
	strv_free(names, nr);
	json_decref(in);
	return 0;
}

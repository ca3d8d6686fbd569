// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for `perf report --stdio -t` output, as the perf
 * collector reads what the perf binary printed: perf_report__parse(),
 * then the limit the collector applies, with the report's invariants
 * checked on the way (every row has its strings, overheads are
 * percentages, the sample count is the rows' sum).
 */
#include <math.h>

#include "collectors/perf/perf-report.h"
#include "fuzz/fuzz-util.h"

FUZZ_INITIALIZE()

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_str(data, size);
	struct perf_report r = { 0 };
	uint64_t samples = 0;
	size_t i, nr;

	if (perf_report__parse(text, &r)) {
		CHECK(!r.nr);
		goto out;
	}
	for (i = 0; i < r.nr; i++) {
		const struct perf_row *row = &r.rows[i];

		CHECK(row->event && row->symbol && *row->symbol && row->dso);
		CHECK(row->overhead >= 0 && row->overhead <= 100);
		samples += row->samples;
	}
	CHECK(samples == r.samples);
	nr = r.nr;
	perf_report__limit(&r, 1.0);
	CHECK(r.nr + r.dropped == nr);
	for (i = 0; i < r.nr; i++)
		CHECK(r.rows[i].overhead >= 1.0);
out:
	perf_report__release(&r);
	free(text);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * fio's JSON report into results and metrics. With group_reporting the
 * report has one job whose read and write sides each count their bytes,
 * I/Os and completion latencies; the results add the sides up, and take
 * the latency percentiles of the side that did most of the I/O.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench/workload/fio.h"
#include "bench/workload/workload-metrics.h"
#include "errmsg.h"
#include "json-util.h"
#include "util.h"

/* clat_ns.percentile["99.000000"] in microseconds; NAN when absent. */
static double pct_us(const json_t *side, const char *pct)
{
	const json_t *p =
		json_object_get(json_object_get(side, "clat_ns"), "percentile");

	return json_number_or_nan(p, pct) / 1e3;
}

static json_t *real_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

int fio__summarize(const json_t *report, json_t **results, char **err)
{
	const json_t *job = json_array_get(json_object_get(report, "jobs"), 0);
	const json_t *rd = json_object_get(job, "read");
	const json_t *wr = json_object_get(job, "write");
	const json_t *main;
	double bytes, ios, e;

	*results = NULL;
	errmsg__reset(err);
	if (!json_is_object(job) || !json_is_object(rd) ||
	    !json_is_object(wr)) {
		return errmsg__set(
			err, -EINVAL,
			"fio's report has no job with read and write "
			"sides");
	}
	e = json_number_or_nan(job, "error");
	if (e != 0 && !isnan(e))
		/* An int only in range: (int)1e300 is undefined. */
		return errmsg__set(
			err, -EIO, "fio's job failed: error %.0f (%s)", e,
			e > 0 && e < 4096 ? strerror((int)e) : "not an errno");
	bytes = json_number_or_nan(rd, "io_bytes") +
		json_number_or_nan(wr, "io_bytes");
	ios = json_number_or_nan(rd, "total_ios") +
	      json_number_or_nan(wr, "total_ios");
	if (!isfinite(bytes) || !isfinite(ios) || bytes < 0 || ios < 0)
		return errmsg__set(
			err, -EINVAL,
			"fio's report has no io_bytes and total_ios");
	main = json_number_or_nan(wr, "total_ios") >
			       json_number_or_nan(rd, "total_ios") ?
		       wr :
		       rd;
	*results = json_pack(
		"{s:s, s:f, s:f, s:f, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
		"workload", "fio", "throughput_bps",
		(json_number_or_nan(rd, "bw_bytes") +
		 json_number_or_nan(wr, "bw_bytes")) *
			8,
		"bytes", bytes, "ios", ios, "iops",
		real_or_null(json_number_or_nan(rd, "iops") +
			     json_number_or_nan(wr, "iops")),
		"clat_p50_us", real_or_null(pct_us(main, "50.000000")),
		"clat_p99_us", real_or_null(pct_us(main, "99.000000")),
		"clat_p999_us", real_or_null(pct_us(main, "99.900000")),
		"cpu_pct",
		real_or_null(json_number_or_nan(job, "usr_cpu") +
			     json_number_or_nan(job, "sys_cpu")),
		"runtime_ms",
		real_or_null(json_number_or_nan(job, "job_runtime")), "read",
		json_pack("{s:o, s:o}", "bytes",
			  real_or_null(json_number_or_nan(rd, "io_bytes")),
			  "ios",
			  real_or_null(json_number_or_nan(rd, "total_ios"))),
		"write",
		json_pack("{s:o, s:o}", "bytes",
			  real_or_null(json_number_or_nan(wr, "io_bytes")),
			  "ios",
			  real_or_null(json_number_or_nan(wr, "total_ios"))));
	if (!json_is_number(json_object_get(*results, "throughput_bps"))) {
		json_decref(*results);
		*results = NULL;
		return errmsg__set(err, -EINVAL,
				   "fio's report has no bw_bytes");
	}
	return 0;
}

static const struct workload_metric metrics[] = {
	{ "throughput_bps", "throughput", "bit/s", STORE_BETTER_HIGHER },
	{ "iops", "iops", "IOPS", STORE_BETTER_HIGHER },
	{ "clat_p50_us", "clat_p50_us", "us", STORE_BETTER_LOWER },
	{ "clat_p99_us", "clat_p99_us", "us", STORE_BETTER_LOWER },
	{ "clat_p999_us", "clat_p999_us", "us", STORE_BETTER_LOWER },
	{ "cpu_pct", "fio_cpu_pct", "%", STORE_BETTER_LOWER },
	{ "ios", "fio_ios", "count", STORE_BETTER_NONE },
	{ "bytes", "bytes", "bytes", STORE_BETTER_NONE },
};

void fio__metric_names(struct strvec *out)
{
	workload_metrics__names(metrics, ARRAY_SIZE(metrics), out);
}

int fio__store(struct store *st, int64_t trial_id, const json_t *results)
{
	if (!json_is_number(json_object_get(results, "throughput_bps")))
		return -EINVAL;
	return workload_metrics__store(st, trial_id, results, metrics,
				       ARRAY_SIZE(metrics));
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * The histogram math: log2 buckets, percentiles interpolated within a
 * bucket (values worked out by hand from the formula in bpf-hist.c),
 * per-CPU sums, and the funclatency-style printout.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/bpf/bpf-probes.h"
#include "tap.h"
#include "util.h"

static int near(double got, double want)
{
	int pass = fabs(got - want) < 1e-9;

	if (!pass)
		printf("#   got %.6f, want %.6f\n", got, want);
	return pass;
}

/* A percentile of a histogram, and the value it must be. */
struct pct_case {
	double p, want;
	const char *what;
};

static void check_percentiles(const __u64 *h, const struct pct_case *c,
			      size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		ok(near(hist__percentile(h, PROBE_HIST_SLOTS, c[i].p),
			c[i].want),
		   "%s", c[i].what);
}

/* 100 calls in [256, 512) */
static const struct pct_case one_bucket[] = {
	{ 50, 384, "p50 of one bucket: its middle" },
	{ 0, 256, "p0: the bucket's low end" },
	{ 100, 512, "p100: the bucket's high end" },
	{ 99, 256 + 0.99 * 256, "p99: 99% of the way through" },
};

/* 10 calls in [4, 8), 10 in [8, 16) */
static const struct pct_case two_buckets[] = {
	{ 25, 6, "p25: rank 5 of 10 in [4, 8)" },
	{ 50, 8, "p50: rank 10 closes [4, 8)" },
	{ 75, 12, "p75: rank 15, 5 of 10 into [8, 16)" },
};

static void test_percentiles(void)
{
	__u64 h[PROBE_HIST_SLOTS] = { 0 };

	ok(isnan(hist__percentile(h, PROBE_HIST_SLOTS, 50)),
	   "an empty histogram has no percentiles");

	h[8] = 100;
	check_percentiles(h, one_bucket, ARRAY_SIZE(one_bucket));

	memset(h, 0, sizeof(h));
	h[2] = 10;
	h[3] = 10;
	check_percentiles(h, two_buckets, ARRAY_SIZE(two_buckets));

	/* bucket 0 is [0, 2): calls under 1 ns land there too */
	memset(h, 0, sizeof(h));
	h[0] = 4;
	ok(near(hist__percentile(h, PROBE_HIST_SLOTS, 50), 1),
	   "bucket 0 spans [0, 2)");

	/* 1 slow call among 99 fast ones: p99 still fast, p100 not */
	memset(h, 0, sizeof(h));
	h[10] = 99;
	h[20] = 1;
	ok(hist__percentile(h, PROBE_HIST_SLOTS, 99) <= 2048,
	   "p99 of 99 fast calls and 1 slow one is fast");
	ok(hist__percentile(h, PROBE_HIST_SLOTS, 100) >= 1 << 20,
	   "p100 is the slow one's bucket");
	ok(hist__percentile(h, PROBE_HIST_SLOTS, 150) ==
		   hist__percentile(h, PROBE_HIST_SLOTS, 100),
	   "percentiles above 100 clamp");
}

static void test_sums(void)
{
	struct probe_stats a = { 0 }, b = { 0 };
	__u64 h[PROBE_HIST_SLOTS] = { 0 };

	h[3] = 2;
	h[7] = 5;
	is_int(hist__sum(h, PROBE_HIST_SLOTS), 7, "sum");
	is_int(hist__len(h, PROBE_HIST_SLOTS), 8, "length to the last bucket");
	memset(h, 0, sizeof(h));
	is_int(hist__len(h, PROBE_HIST_SLOTS), 0, "an empty one has none");

	a.calls = 3;
	a.untimed = 1;
	a.total_ns = 300;
	a.hist[4] = 2;
	b.calls = 5;
	b.bytes = 4096;
	b.hist[4] = 1;
	b.hist[PROBE_HIST_SLOTS - 1] = 4;
	probe_stats__add(&a, &b);
	ok(a.calls == 8 && a.untimed == 1 && a.total_ns == 300 &&
		   a.bytes == 4096,
	   "per-CPU stats add field by field");
	ok(a.hist[4] == 3 && a.hist[PROBE_HIST_SLOTS - 1] == 4,
	   "and bucket by bucket, the last one too");
}

/* What the printout of 40 calls in [256, 512) and 10 in [1024, 2048) says. */
static const struct tap_substr printout[] = {
	{ "nsecs", "a header" },
	{ "256 -> 511", "a bucket's range" },
	{ ": 40 ", "its count" },
	{ "|****************************************|",
	  "the largest bucket gets the full bar" },
	{ "512 -> 1023", "empty buckets between are shown" },
	{ "|**********                              |",
	  "a quarter of it gets a quarter bar" },
};

static void test_print(void)
{
	__u64 h[PROBE_HIST_SLOTS] = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *fp;

	h[8] = 40;
	h[10] = 10;
	fp = open_memstream(&buf, &len);
	hist__print(fp, h, PROBE_HIST_SLOTS);
	fclose(fp);
	has_all(buf, printout);
	ok(!strstr(buf, "2048 ->"), "nothing after the last bucket");
	ok(!strstr(buf, " 0 -> 1 "), "nothing before the first");
	free(buf);
}

int main(void)
{
	test_percentiles();
	test_sums();
	test_print();
	return tap_done();
}

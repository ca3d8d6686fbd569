// SPDX-License-Identifier: GPL-2.0-only
/*
 * log2 latency histograms: bucket i counts calls that took [2^i, 2^(i+1))
 * ns, bucket 0 also those under 1 ns (as the store documents).
 *
 * Percentiles are interpolated linearly within the bucket they fall in:
 * the p-th percentile of N calls is the value of rank r = p/100 * N; in
 * the bucket [lo, hi) where the cumulative count first reaches r, with
 * c calls in it and b before it, it is lo + (r - b) / c * (hi - lo).
 * That assumes calls spread evenly across a bucket, so the error is at
 * most the bucket's width (a factor of two), and usually far less; the
 * mean, from the exact total, has no such error.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "collectors/bpf/bpf-probes.h"

void probe_stats__add(struct probe_stats *acc, const struct probe_stats *s)
{
	size_t i;

	acc->calls += s->calls;
	acc->untimed += s->untimed;
	acc->total_ns += s->total_ns;
	acc->bytes += s->bytes;
	acc->self_ns += s->self_ns;
	acc->nested += s->nested;
	for (i = 0; i < PROBE_HIST_SLOTS; i++)
		acc->hist[i] += s->hist[i];
}

__u64 hist__sum(const __u64 *hist, size_t n)
{
	__u64 sum = 0;
	size_t i;

	for (i = 0; i < n; i++)
		sum += hist[i];
	return sum;
}

size_t hist__len(const __u64 *hist, size_t n)
{
	while (n && !hist[n - 1])
		n--;
	return n;
}

/* log2 bucket @i: [2^i, 2^(i+1)), bucket 0 from 0. */
static void log2_bounds(unsigned int i, double *lo, double *hi)
{
	*lo = i ? ldexp(1.0, (int)i) : 0.0;
	*hi = ldexp(1.0, (int)i + 1);
}

double hist__percentile_in(const __u64 *hist, size_t n, double p,
			   void (*bounds)(unsigned int i, double *lo,
					  double *hi))
{
	__u64 total = hist__sum(hist, n), before = 0;
	double rank, lo, hi;
	size_t i;

	if (!total)
		return NAN;
	if (p < 0)
		p = 0;
	if (p > 100)
		p = 100;
	rank = p / 100.0 * (double)total;
	for (i = 0; i < n; i++) {
		if (!hist[i])
			continue;
		if ((double)(before + hist[i]) >= rank)
			break;
		before += hist[i];
	}
	if (i == n) /* rounding at p = 100 */
		i = hist__len(hist, n) - 1;
	bounds((unsigned int)i, &lo, &hi);
	return lo + (rank - (double)before) / (double)hist[i] * (hi - lo);
}

double hist__percentile(const __u64 *hist, size_t n, double p)
{
	return hist__percentile_in(hist, n, p, log2_bounds);
}

#define BAR_WIDTH 40

void hist__print(FILE *fp, const __u64 *hist, size_t n)
{
	size_t first = 0, last = hist__len(hist, n), i;
	__u64 max = 0;

	if (!last)
		return;
	while (!hist[first])
		first++;
	for (i = first; i < last; i++)
		if (hist[i] > max)
			max = hist[i];
	fprintf(fp, "%16s%10s : %-10s %s\n", "nsecs", "", "count",
		"distribution");
	for (i = first; i < last; i++) {
		unsigned long long lo = i ? 1ULL << i : 0;
		unsigned long long hi = (1ULL << (i + 1)) - 1;
		int stars = (int)ceil((double)hist[i] * BAR_WIDTH / max);
		char bar[BAR_WIDTH + 1];

		memset(bar, ' ', BAR_WIDTH);
		memset(bar, '*', stars);
		bar[BAR_WIDTH] = '\0';
		fprintf(fp, "%11llu -> %-11llu : %-10llu |%s|\n", lo, hi,
			(unsigned long long)hist[i], bar);
	}
}

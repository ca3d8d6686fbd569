// SPDX-License-Identifier: GPL-2.0-only
/*
 * The bpf collector's results for people: a table of the probes, a
 * funclatency-style histogram for each probe that has latency, what did
 * not attach and why (grouped, since a kernel that refuses fentry
 * refuses it for every function alike), and what is missing.
 *
 * It reads the results JSON, not the live probes, so that results
 * gathered on another host print the same.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "collectors/bpf/bpf-exposure.h"
#include "collectors/bpf/bpf-probes.h"
#include "util.h"

static const char *str(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

static json_int_t num(const json_t *o, const char *key)
{
	return json_integer_value(json_object_get(o, key));
}

/* "512 ns", "1.25 us", "3.40 ms", "1.20 s"; "n/a" for NAN. */
static const char *fmt_ns(double ns, char *buf, size_t size)
{
	if (isnan(ns))
		snprintf(buf, size, "n/a");
	else if (ns < 1e3)
		snprintf(buf, size, "%.0f ns", ns);
	else if (ns < 1e6)
		snprintf(buf, size, "%.2f us", ns / 1e3);
	else if (ns < 1e9)
		snprintf(buf, size, "%.2f ms", ns / 1e6);
	else
		snprintf(buf, size, "%.2f s", ns / 1e9);
	return buf;
}

/* The histogram of a probe as an array, @n buckets long. */
static size_t hist_of(const json_t *p, __u64 *hist)
{
	const json_t *h = json_object_get(p, "hist"), *v;
	size_t i, n = 0;

	memset(hist, 0, PROBE_HIST_SLOTS * sizeof(*hist));
	json_array_foreach(h, i, v) {
		if (i >= PROBE_HIST_SLOTS)
			break;
		hist[i] = json_integer_value(v);
		n = i + 1;
	}
	return n;
}

static void print_row(FILE *fp, const json_t *p, double secs, int w)
{
	bool attached = strcmp(str(p, "attach"), "none");
	bool timed = json_is_true(json_object_get(p, "latency"));
	json_int_t calls = num(p, "calls");
	char mean[24], p50[24], p99[24];
	__u64 hist[PROBE_HIST_SLOTS];
	size_t n = hist_of(p, hist);
	json_int_t timed_calls = calls - num(p, "untimed");

	if (!attached) {
		fprintf(fp, "%-*s %-10s %10s %10s %10s %10s %10s  %s\n", w,
			str(p, "name"), "none", "-", "-", "-", "-", "-",
			"(not attached, see below)");
		return;
	}
	fmt_ns(timed && timed_calls > 0 ?
		       (double)num(p, "total_ns") / (double)timed_calls :
		       NAN,
	       mean, sizeof(mean));
	fmt_ns(timed ? hist__percentile(hist, n, 50) : NAN, p50, sizeof(p50));
	fmt_ns(timed ? hist__percentile(hist, n, 99) : NAN, p99, sizeof(p99));
	fprintf(fp, "%-*s %-10s %10lld %10.0f %10s %10s %10s  %s\n", w,
		str(p, "name"), str(p, "attach"), (long long)calls,
		secs > 0 ? (double)calls / secs : 0.0, mean, p50, p99,
		str(p, "target"));
}

static void print_hists(FILE *fp, const json_t *probes)
{
	const json_t *p;
	size_t i;

	json_array_foreach(probes, i, p) {
		__u64 hist[PROBE_HIST_SLOTS];
		size_t n = hist_of(p, hist);

		if (!n)
			continue;
		fprintf(fp, "\n%s: %s via %s, %lld calls", str(p, "name"),
			str(p, "target"), str(p, "attach"),
			(long long)num(p, "calls"));
		if (num(p, "untimed"))
			fprintf(fp, " (%lld untimed: start not seen)",
				(long long)num(p, "untimed"));
		fprintf(fp, "\n");
		hist__print(fp, hist, n);
	}
}

/* Failures grouped by rung, stage and errno, with the functions hit. */
static void print_fails(FILE *fp, const json_t *probes)
{
	json_t *groups = json_object(), *g;
	const json_t *p, *t, *f;
	size_t i, j, k;
	const char *key;

	json_array_foreach(probes, i, p)
		json_array_foreach(json_object_get(p, "targets"), j, t)
			json_array_foreach(json_object_get(t, "failed"), k, f) {
				char *id = xasprintf("%s %s failed, %s: %s",
						     str(f, "rung"),
						     str(f, "stage"),
						     str(f, "error"),
						     str(f, "reason"));

				g = json_object_get(groups, id);
				if (!g) {
					g = json_array();
					json_object_set_new(groups, id, g);
				}
				json_array_append_new(
					g, json_string(str(t, "name")));
				free(id);
			}
	if (json_object_size(groups))
		fprintf(fp, "\nRungs of the attach chain that failed:\n");
	json_object_foreach(groups, key, g) {
		const json_t *name;

		fprintf(fp, "  %s\n    for", key);
		json_array_foreach(g, i, name)
			fprintf(fp, "%s %s", i ? "," : "",
				json_string_value(name));
		fprintf(fp, "\n");
	}
	json_decref(groups);
}

static void print_missing(FILE *fp, const json_t *probes)
{
	const json_t *p, *m;
	bool header = false;
	size_t i, j;

	json_array_foreach(probes, i, p) {
		const json_t *miss = json_object_get(p, "missing");

		if (!json_array_size(miss))
			continue;
		if (!header)
			fprintf(fp,
				"\nNot on this kernel (inlined, renamed, or "
				"the driver is not built):\n");
		header = true;
		fprintf(fp, "  %s:", str(p, "name"));
		json_array_foreach(miss, j, m)
			fprintf(fp, "%s %s", j ? "," : "",
				json_string_value(m));
		fprintf(fp, "\n");
	}
}

/* Plain words for the common outcomes, so that 0 never reads as "fine". */
static void print_summary(FILE *fp, const json_t *r, const json_t *probes)
{
	bool any_tp_count = false, iommu_probes = false;
	json_int_t iommu_calls = 0;
	const json_t *p;
	size_t i;

	json_array_foreach(probes, i, p) {
		const char *attach = str(p, "attach");

		if (strcmp(attach, "none") &&
		    !json_is_true(json_object_get(p, "latency")))
			any_tp_count = true;
		if (bpf_probe_def__find(str(p, "name"))) {
			iommu_probes = true;
			iommu_calls += num(p, "calls");
		}
	}
	if (any_tp_count)
		fprintf(fp, "\nLatency n/a: a single tracepoint counts calls "
			    "but cannot time them (a function rung or a "
			    "tp:CAT:BEGIN:END pair can).\n");
	if (!iommu_probes || iommu_calls)
		return;
	if (!num(r, "iommu_units"))
		fprintf(fp, "\nNo calls on the IOMMU DMA paths: this machine "
			    "has no IOMMU registered (/sys/class/iommu is "
			    "empty), so no DMA goes through iommu-dma here.\n");
	else
		fprintf(fp, "\nNo calls on the IOMMU DMA paths while tracing "
			    "(is the device in an identity/passthrough "
			    "domain, or idle?).\n");
}

static void print_names(FILE *fp, const json_t *x, const char *key)
{
	const json_t *v;
	size_t i;

	json_array_foreach(json_object_get(x, key), i, v)
		fprintf(fp, "%s%s", i ? "," : "", json_string_value(v));
}

/* The exposure window: its figures, or why there are none. */
static void print_exposure(FILE *fp, const json_t *x)
{
	__u64 hist[EXPOSURE_HIST_SLOTS] = { 0 }, log2[PROBE_HIST_SLOTS];
	const char *state = str(x, "state");
	char a[24], b[24], c[24];
	const json_t *v;
	size_t i, n = 0;

	fprintf(fp, "\nExposure window (docs/exposure.md): ");
	if (strcmp(state, "measured")) {
		fprintf(fp, "%s: %s.\n", state, str(x, "why"));
		return;
	}
	print_names(fp, x, "open");
	fprintf(fp, " until ");
	print_names(fp, x, "sync");
	fprintf(fp, " (strict) or ");
	print_names(fp, x, "flush");
	fprintf(fp, " (lazy), by %s.\n", str(x, "rung"));
	json_array_foreach(json_object_get(x, "hist"), i, v) {
		if (i >= EXPOSURE_HIST_SLOTS)
			break;
		hist[i] = json_integer_value(v);
		n = i + 1;
	}
	fprintf(fp,
		"  %lld windows (%lld ended by their sync, %lld by a flush), "
		"%lld still open at the end, at most %lld open at once\n",
		(long long)num(x, "windows"), (long long)num(x, "by_sync"),
		(long long)num(x, "by_flush"), (long long)num(x, "pending"),
		(long long)num(x, "stale_max"));
	if (!num(x, "windows"))
		return;
	fprintf(fp, "  p50 %s, p99 %s, max %s\n",
		fmt_ns(expo_hist__percentile(hist, n, 50), a, sizeof(a)),
		fmt_ns(expo_hist__percentile(hist, n, 99), b, sizeof(b)),
		fmt_ns((double)num(x, "max_ns"), c, sizeof(c)));
	expo_hist__to_log2(hist, n, log2, PROBE_HIST_SLOTS);
	hist__print(fp, log2, hist__len(log2, PROBE_HIST_SLOTS));
}

void bpf_results__print(FILE *fp, const json_t *r)
{
	const json_t *probes = json_object_get(r, "probes"), *p;
	double secs = json_number_value(json_object_get(r, "duration_s"));
	int w = 5;
	size_t i;

	json_array_foreach(probes, i, p) {
		int len = (int)strlen(str(p, "name"));

		if (len > w)
			w = len;
	}
	fprintf(fp, "Traced %zu probe%s for %.2f s on Linux %s%s%s.\n\n",
		json_array_size(probes),
		json_array_size(probes) == 1 ? "" : "s", secs, str(r, "kernel"),
		json_is_string(json_object_get(r, "device")) ? ", device " : "",
		str(r, "device"));
	fprintf(fp, "%-*s %-10s %10s %10s %10s %10s %10s  %s\n", w, "PROBE",
		"ATTACH", "CALLS", "CALLS/S", "MEAN", "P50", "P99", "TARGET");
	json_array_foreach(probes, i, p)
		print_row(fp, p, secs, w);
	print_hists(fp, probes);
	print_fails(fp, probes);
	print_missing(fp, probes);
	print_summary(fp, r, probes);
	if (json_object_get(r, "exposure"))
		print_exposure(fp, json_object_get(r, "exposure"));
}

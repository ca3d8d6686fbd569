// SPDX-License-Identifier: GPL-2.0-only
/*
 * The exposure window's results into the store: the metrics compare,
 * regress and export know (exposure_p50_us, exposure_p99_us,
 * exposure_max_us, stale_max: lower is better), and a probes row named
 * "exposure" whose attach column says how it was measured, or
 * "unprotected", or "none" with the reason in target. An unprotected or
 * unmeasured trial gets no window metric at all: no figure is not zero.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "collectors/bpf/bpf-exposure.h"
#include "log.h"
#include "store/store.h"
#include "strvec.h"
#include "util.h"

void expo_hist__bounds(unsigned int i, double *lo, double *hi)
{
	unsigned int sub = 1u << EXPOSURE_SUB_BITS, e, m;

	if (i < sub) {
		*lo = i;
		*hi = i + 1;
		return;
	}
	e = (i + 2 * sub) >> EXPOSURE_SUB_BITS;
	m = (i + 2 * sub) & (sub - 1);
	*lo = ldexp(sub + m, (int)(e - EXPOSURE_SUB_BITS));
	*hi = ldexp(sub + m + 1, (int)(e - EXPOSURE_SUB_BITS));
}

double expo_hist__percentile(const __u64 *hist, size_t n, double p)
{
	return hist__percentile_in(hist, n, p, expo_hist__bounds);
}

void expo_hist__to_log2(const __u64 *hist, size_t n, __u64 *log2, size_t log2_n)
{
	size_t i, b;

	memset(log2, 0, log2_n * sizeof(*log2));
	for (i = 0; i < n; i++) {
		double lo, hi;

		if (!hist[i])
			continue;
		expo_hist__bounds((unsigned int)i, &lo, &hi);
		b = lo < 2 ? 0 : (size_t)ilogb(lo);
		log2[b < log2_n ? b : log2_n - 1] += hist[i];
	}
}

/* A count from the results: a non-negative integer, else -1. */
static long long count(const json_t *x, const char *key)
{
	const json_t *v = json_object_get(x, key);

	return json_is_integer(v) && json_integer_value(v) >= 0 ?
		       (long long)json_integer_value(v) :
		       -1;
}

static char *names(const json_t *x, const char *key)
{
	struct strvec sv = { 0 };
	const json_t *v;
	char *s;
	size_t i;

	json_array_foreach(json_object_get(x, key), i, v)
		if (json_is_string(v))
			strvec__push(&sv, json_string_value(v));
	s = strvec__join(&sv, ", ");
	strvec__release(&sv);
	return s;
}

static int bad(const char *what)
{
	pr_err("bpf: results: exposure: %s", what);
	return -EINVAL;
}

void bpf_exposure__metric_names(struct strvec *out)
{
	static const char *const names[] = {
		"exposure_p50_us", "exposure_p99_us",  "exposure_max_us",
		"stale_max",	   "exposure_windows", "exposure_pending",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(names); i++)
		strvec__push(out, names[i]);
}

static int store_metrics(struct store *st, __s64 trial_id, const __u64 *hist,
			 size_t n, long long max_ns, long long stale,
			 long long windows, long long pending)
{
	static const struct {
		const char *name;
		double p;
	} pct[] = { { "exposure_p50_us", 50 }, { "exposure_p99_us", 99 } };
	size_t i;
	int err = 0;

	for (i = 0; i < ARRAY_SIZE(pct) && !err; i++)
		err = store__metric_add(
			st, trial_id, pct[i].name,
			expo_hist__percentile(hist, n, pct[i].p) / 1e3, "us",
			STORE_BETTER_LOWER, NULL);
	if (!err)
		err = store__metric_add(st, trial_id, "exposure_max_us",
					max_ns / 1e3, "us", STORE_BETTER_LOWER,
					NULL);
	if (!err)
		err = store__metric_add(st, trial_id, "stale_max", stale,
					"IOVAs", STORE_BETTER_LOWER, NULL);
	if (!err)
		err = store__metric_add(st, trial_id, "exposure_windows",
					windows, "windows", STORE_BETTER_NONE,
					NULL);
	if (!err)
		err = store__metric_add(st, trial_id, "exposure_pending",
					pending, "windows", STORE_BETTER_NONE,
					NULL);
	return err;
}

int bpf_exposure__store(struct store *st, __s64 trial_id, const json_t *x)
{
	const char *state = json_string_value(json_object_get(x, "state"));
	const char *why = json_string_value(json_object_get(x, "why"));
	const json_t *jh = json_object_get(x, "hist"), *v;
	__u64 hist[EXPOSURE_HIST_SLOTS] = { 0 }, log2[PROBE_HIST_SLOTS];
	uint64_t stored[PROBE_HIST_SLOTS];
	struct store_probe sp = { .name = EXPO_PROBE_NAME };
	long long windows, pending, max_ns, oldest, stale, sum;
	char *open = NULL, *sync = NULL, *flush = NULL, *target = NULL;
	size_t i, n;
	int err;

	if (!state)
		return bad("no state");
	if (strcmp(state, "measured")) {
		if (strcmp(state, "unprotected") &&
		    strcmp(state, "not measured"))
			return bad("unknown state");
		sp.attach = !strcmp(state, "unprotected") ? "unprotected" :
							    "none";
		sp.target = why ? why : "";
		return store__probe_add(st, trial_id, &sp, NULL);
	}
	windows = count(x, "windows");
	pending = count(x, "pending");
	max_ns = count(x, "max_ns");
	oldest = count(x, "pending_oldest_ns");
	stale = count(x, "stale_max");
	sum = count(x, "sum_ns");
	n = json_array_size(jh);
	if (windows < 0 || pending < 0 || max_ns < 0 || oldest < 0 ||
	    stale < 0 || sum < 0 || !json_is_array(jh) ||
	    n > EXPOSURE_HIST_SLOTS)
		return bad("a count or the histogram is missing or invalid");
	json_array_foreach(jh, i, v) {
		if (!json_is_integer(v) || json_integer_value(v) < 0)
			return bad("a histogram bucket is not a count");
		hist[i] = (__u64)json_integer_value(v);
	}
	if (hist__sum(hist, n) != (__u64)windows)
		return bad("the histogram does not hold every window");
	expo_hist__to_log2(hist, n, log2, PROBE_HIST_SLOTS);
	open = names(x, "open");
	sync = names(x, "sync");
	flush = names(x, "flush");
	target = xasprintf("%s > %s | %s", open, sync, flush);
	sp.target = target;
	sp.attach = json_string_value(json_object_get(x, "rung"));
	if (!sp.attach || !*sp.attach)
		sp.attach = "none";
	sp.calls = (uint64_t)windows;
	sp.total_ns = (uint64_t)sum;
	for (i = 0; i < PROBE_HIST_SLOTS; i++)
		stored[i] = log2[i];
	sp.hist = stored;
	sp.hist_len = hist__len(log2, PROBE_HIST_SLOTS);
	err = store__probe_add(st, trial_id, &sp, NULL);
	/* No window ended: nothing to take a percentile of. */
	if (!err && windows)
		err = store_metrics(st, trial_id, hist, n,
				    max_ns > oldest ? max_ns : oldest, stale,
				    windows, pending);
	free_all(open, sync, flush, target);
	return err;
}

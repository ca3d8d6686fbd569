// SPDX-License-Identifier: GPL-2.0-only
/*
 * perf results into the store: one profile row per (symbol, dso), the
 * sample and counter metrics (docs/collectors.md), perf.data as an
 * artifact when the file is on this machine.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "collectors/perf/perf-collector.h"
#include "json-util.h"
#include "log.h"
#include "store/store.h"
#include "util.h"

static const char *str(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static int store_profile(struct store *st, int64_t trial, const json_t *res)
{
	const char *event = str(res, "event");
	const json_t *row;
	size_t i;
	int err;

	json_array_foreach(json_object_get(res, "profile"), i, row) {
		struct store_profile_row r = {
			.event = str(row, "event"),
			.symbol = str(row, "symbol"),
			.dso = str(row, "dso"),
			.overhead = json_number_or_nan(row, "overhead"),
		};
		double samples = json_number_or_nan(row, "samples");

		if (!r.symbol || !(r.overhead >= 0 && r.overhead <= 100) ||
		    !(samples >= 0)) {
			pr_err("perf results: profile row %zu is malformed", i);
			return -EINVAL;
		}
		if (!r.event || !*r.event)
			r.event = event ? event : "";
		r.samples = (uint64_t)samples;
		err = store__profile_add(st, trial, &r, NULL);
		if (err)
			return err;
	}
	return 0;
}

static enum store_better counter_better(const char *name)
{
	static const char *const lower[] = {
		"context-switches", "cpu-migrations", "page-faults",
		"major-faults",	    "minor-faults",   "cache-misses",
		"branch-misses",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(lower); i++)
		if (!strcmp(name, lower[i]))
			return STORE_BETTER_LOWER;
	return STORE_BETTER_NONE;
}

/* Supported counters only: one the machine lacks is absent, not 0. */
static int store_counters(struct store *st, int64_t trial, const json_t *res)
{
	double cycles = NAN, instructions = NAN;
	const json_t *c;
	size_t i;
	int err;

	json_array_foreach(json_object_get(res, "counters"), i, c) {
		const char *name = str(c, "name"), *unit = str(c, "unit");
		double v = json_number_or_nan(c, "value");
		char metric[64], *p;

		if (!name || !json_is_true(json_object_get(c, "supported")) ||
		    !isfinite(v))
			continue;
		snprintf(metric, sizeof(metric), "perf_%s", name);
		for (p = metric; *p; p++)
			if (*p == '-')
				*p = '_';
		err = store__metric_add(st, trial, metric, v,
					unit ? unit : "count",
					counter_better(name), NULL);
		if (err)
			return err;
		if (!strcmp(name, "cycles"))
			cycles = v;
		if (!strcmp(name, "instructions"))
			instructions = v;
	}
	if (cycles > 0 && isfinite(instructions))
		return store__metric_add(st, trial, "perf_ipc",
					 instructions / cycles,
					 "instructions/cycle",
					 STORE_BETTER_HIGHER, NULL);
	return 0;
}

/* A missing artifact row costs nothing measured: perf.data stays put. */
static void store_artifact(struct store *st, int64_t trial, const char *path)
{
	if (!path || access(path, R_OK))
		return;
	if (store__artifact_add(st, 0, trial, path, "perf.data", NULL))
		pr_warn("perf: %s not recorded as an artifact of trial %lld",
			path, (long long)trial);
}

int perf_collector__store(struct store *st, int64_t trial_id,
			  const json_t *results)
{
	int err;

	if (!json_is_object(results)) {
		pr_err("perf results are not an object");
		return -EINVAL;
	}
	err = store_profile(st, trial_id, results);
	/*
	 * Samples are counted where perf.data is read: a profile the
	 * controller was to report whose perf.data did not come home has
	 * none, and the trial's measurements are stored all the same.
	 */
	if (!err && json_is_true(json_object_get(results, "recorded")) &&
	    isfinite(json_number_or_nan(results, "samples"))) {
		err = store__metric_add(st, trial_id, "perf_samples",
					json_number_or_nan(results, "samples"),
					"count", STORE_BETTER_NONE, NULL);
		if (!err &&
		    isfinite(json_number_or_nan(results, "lost_samples")))
			err = store__metric_add(
				st, trial_id, "perf_lost_samples",
				json_number_or_nan(results, "lost_samples"),
				"count", STORE_BETTER_LOWER, NULL);
	}
	if (!err)
		err = store_counters(st, trial_id, results);
	if (!err)
		store_artifact(st, trial_id, str(results, "perf_data"));
	return err;
}

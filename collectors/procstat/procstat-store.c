// SPDX-License-Identifier: GPL-2.0-only
/*
 * procstat results into the store, under the names docs/collectors.md
 * promises, and the efficiency that needs iperf3's throughput too.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "collectors/procstat/procstat-priv.h"
#include "collectors/procstat/procstat.h"
#include "json-util.h"
#include "log.h"
#include "store/store.h"
#include "strvec.h"
#include "util.h"

struct metric_def {
	const char *key;
	const char *name;
	const char *unit;
	enum store_better better;
};

/* Keys of "total" (and of each interval, but busy_cores). */
static const struct metric_def shares[] = {
	{ "util_pct", "cpu_util_pct", "%", STORE_BETTER_LOWER },
	{ "user_pct", "cpu_user_pct", "%", STORE_BETTER_LOWER },
	{ "sys_pct", "cpu_sys_pct", "%", STORE_BETTER_LOWER },
	{ "irq_pct", "cpu_irq_pct", "%", STORE_BETTER_LOWER },
	{ "softirq_pct", "cpu_softirq_pct", "%", STORE_BETTER_LOWER },
	{ "iowait_pct", "cpu_iowait_pct", "%", STORE_BETTER_NONE },
	{ "steal_pct", "cpu_steal_pct", "%", STORE_BETTER_LOWER },
	{ "busy_cores", "busy_cores", "cores", STORE_BETTER_LOWER },
};

void procstat__metric_names(struct strvec *out)
{
	static const char *const more[] = { "cpu_util_max_pct",
					    "net_rx_softirqs",
					    "net_tx_softirqs", "nic_irqs",
					    "gbit_per_core" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(shares); i++)
		strvec__push(out, shares[i].name);
	for (i = 0; i < ARRAY_SIZE(more); i++)
		strvec__push(out, more[i]);
}

static int metric(struct store *st, int64_t trial, const char *name, double v,
		  const char *unit, enum store_better b)
{
	if (!isfinite(v))
		return 0;
	return store__metric_add(st, trial, name, v, unit, b, NULL);
}

static int store_per_cpu(struct store *st, int64_t trial, const json_t *arr)
{
	const json_t *c;
	size_t i;
	int err = 0;

	json_array_foreach(arr, i, c) {
		char name[48];
		const json_t *cpu = json_object_get(c, "cpu");

		if (!json_is_integer(cpu))
			continue;
		snprintf(name, sizeof(name), "cpu_util_pct.cpu%lld",
			 (long long)json_integer_value(cpu));
		err = metric(st, trial, name, json_number_or_nan(c, "util_pct"),
			     "%", STORE_BETTER_NONE);
		if (err)
			break;
	}
	return err;
}

static int interval(struct store *st, int64_t trial, const json_t *iv)
{
	double t0 = json_number_or_nan(iv, "start"),
	       t1 = json_number_or_nan(iv, "end");
	static const struct metric_def rates[] = {
		{ "net_rx_per_s", "net_rx_softirqs", "/s" },
		{ "net_tx_per_s", "net_tx_softirqs", "/s" },
		{ "nic_irqs_per_s", "nic_irqs", "/s" },
	};
	const char *key;
	json_t *v;
	size_t i;
	int err = 0;

	if (!(t0 >= 0 && t1 >= t0))
		return 0;
	for (i = 0; i < ARRAY_SIZE(shares) - 1 && !err; i++)
		if (json_is_number(json_object_get(iv, shares[i].key)))
			err = store__interval_add(
				st, trial, shares[i].name, t0, t1,
				json_number_or_nan(iv, shares[i].key), "%",
				NULL);
	for (i = 0; i < ARRAY_SIZE(rates) && !err; i++)
		if (json_is_number(json_object_get(iv, rates[i].key)))
			err = store__interval_add(
				st, trial, rates[i].name, t0, t1,
				json_number_or_nan(iv, rates[i].key), "/s",
				NULL);
	json_object_foreach(json_object_get(iv, "per_cpu_util_pct"), key, v) {
		char name[48];

		if (err || !json_is_number(v))
			break;
		snprintf(name, sizeof(name), "cpu_util_pct.%s", key);
		err = store__interval_add(st, trial, name, t0, t1,
					  json_number_value(v), "%", NULL);
	}
	return err;
}

int procstat__store(struct store *st, int64_t trial_id, const json_t *results)
{
	const json_t *total = json_object_get(results, "total");
	const json_t *soft = json_object_get(results, "softirqs");
	const json_t *nic = json_object_get(results, "nic"), *iv;
	size_t i;
	int err = 0;

	if (!json_is_object(total)) {
		pr_err("procstat results have no total");
		return -EINVAL;
	}
	for (i = 0; i < ARRAY_SIZE(shares) && !err; i++)
		err = metric(st, trial_id, shares[i].name,
			     json_number_or_nan(total, shares[i].key),
			     shares[i].unit, shares[i].better);
	if (!err)
		err = metric(st, trial_id, "cpu_util_max_pct",
			     json_number_or_nan(results, "max_util_pct"), "%",
			     STORE_BETTER_NONE);
	if (!err)
		err = store_per_cpu(st, trial_id,
				    json_object_get(results, "per_cpu"));
	if (!err)
		err = metric(st, trial_id, "net_rx_softirqs",
			     json_number_or_nan(soft, "net_rx_per_s"), "/s",
			     STORE_BETTER_NONE);
	if (!err)
		err = metric(st, trial_id, "net_tx_softirqs",
			     json_number_or_nan(soft, "net_tx_per_s"), "/s",
			     STORE_BETTER_NONE);
	/* A NIC without interrupt lines of its own measured nothing. */
	if (!err && json_array_size(json_object_get(nic, "irqs")))
		err = metric(st, trial_id, "nic_irqs",
			     json_number_or_nan(nic, "per_s"), "/s",
			     STORE_BETTER_NONE);
	json_array_foreach(json_object_get(results, "intervals"), i, iv) {
		if (err)
			break;
		err = interval(st, trial_id, iv);
	}
	return err;
}

double procstat__efficiency(double gbit_s, double busy_cores)
{
	if (!(busy_cores > 0) || !isfinite(gbit_s))
		return NAN;
	return gbit_s / busy_cores;
}

double procstat__busy_cores(const json_t *results)
{
	return json_number_or_nan(json_object_get(results, "total"),
				  "busy_cores");
}

int procstat__store_efficiency(struct store *st, int64_t trial_id,
			       double throughput_bps, const json_t *results)
{
	double e = procstat__efficiency(throughput_bps / 1e9,
					procstat__busy_cores(results));

	if (!isfinite(e) || !(throughput_bps > 0))
		return 0;
	return store__metric_add(st, trial_id, "gbit_per_core", e,
				 "Gbit/s/core", STORE_BETTER_HIGHER, NULL);
}

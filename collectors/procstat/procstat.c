// SPDX-License-Identifier: GPL-2.0-only
/*
 * The procstat collector: CPU time per CPU (/proc/stat), NET_RX/NET_TX
 * softirqs (/proc/softirqs) and the NIC's queue interrupts
 * (/proc/interrupts) over the workload window, plus an interval series
 * sampled by a thread. Metric names: docs/collectors.md.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "collectors/collector.h"
#include "collectors/procstat/procstat-limits.h"
#include "collectors/procstat/procstat-priv.h"
#include "collectors/procstat/procstat.h"
#include "log.h"
#include "store/store.h"
#include "units.h"
#include "util.h"

#define PROCSTAT_DEFAULT_INTERVAL_S (PROCSTAT_DEFAULT_INTERVAL_MS / 1000.0)
#define PROCSTAT_MIN_INTERVAL_S (PROCSTAT_MIN_INTERVAL_MS / 1000.0)
#define PROCSTAT_MAX_INTERVAL_S (PROCSTAT_MAX_INTERVAL_MS / 1000.0)

struct procstat_collector {
	struct collector c;
	struct procstat_nic_info nic;
	bool has_nic;
	double interval_s; /* 0: no series */
	struct procstat_snap start;
	struct procstat_sampler sampler;
	json_t *results;
	bool started, stopped;
};

static long user_hz(void)
{
	long hz = sysconf(_SC_CLK_TCK);

	return hz > 0 ? hz : 100;
}

static int procstat_support(json_t **info)
{
	struct procstat_snap s = { 0 };
	int err = procstat__snap_read(&s, NULL);

	if (err)
		*info = json_pack("{s:b, s:s}", "available", false, "error",
				  strerror(-err));
	else
		*info = json_pack("{s:b, s:i, s:i, s:f, s:[sss]}", "available",
				  true, "user_hz", (int)user_hz(),
				  "cpus_online", (int)s.nr_cpus,
				  "interval_min_seconds",
				  PROCSTAT_MIN_INTERVAL_S, "files",
				  "/proc/stat", "/proc/softirqs",
				  "/proc/interrupts");
	procstat__snap_release(&s);
	return *info ? 0 : -ENOMEM;
}

static int parse_interval(const json_t *v, double *out)
{
	char err[UNITS_ERR_MAX];
	uint64_t ms;

	if (json_is_string(v)) {
		if (units__parse_duration(json_string_value(v), &ms, err,
					  sizeof(err))) {
			pr_err("procstat: interval: %s", err);
			return -EINVAL;
		}
		*out = ms / 1000.0;
	} else if (json_is_number(v)) {
		*out = json_number_value(v);
	} else {
		pr_err("procstat: interval must be a duration (\"1s\") or "
		       "seconds");
		return -EINVAL;
	}
	if (*out != 0 && !(*out >= PROCSTAT_MIN_INTERVAL_S &&
			   *out <= PROCSTAT_MAX_INTERVAL_S)) {
		pr_err("procstat: interval %g s is out of range (expected 0 "
		       "for none, or %g..%g s)",
		       *out, PROCSTAT_MIN_INTERVAL_S, PROCSTAT_MAX_INTERVAL_S);
		return -EINVAL;
	}
	return 0;
}

static int parse_config(const json_t *cfg, double *interval_s)
{
	const char *key;
	json_t *v;

	*interval_s = PROCSTAT_DEFAULT_INTERVAL_S;
	if (!cfg)
		return 0;
	if (!json_is_object(cfg)) {
		pr_err("procstat: the configuration must be an object");
		return -EINVAL;
	}
	json_object_foreach((json_t *)cfg, key, v) {
		if (!strcmp(key, "enabled"))
			continue;
		if (!strcmp(key, "interval") ||
		    !strcmp(key, "interval_seconds")) {
			if (parse_interval(v, interval_s))
				return -EINVAL;
			continue;
		}
		pr_err("procstat: unknown setting '%s' (expected enabled, "
		       "interval or interval_seconds)",
		       key);
		return -EINVAL;
	}
	return 0;
}

static int procstat_create(const struct collector_opts *opts,
			   struct collector **out)
{
	struct procstat_collector *p = xcalloc(1, sizeof(*p));
	int err;

	p->c.ops = &procstat_collector_ops;
	err = parse_config(opts ? opts->config : NULL, &p->interval_s);
	if (!err && opts && opts->nic) {
		err = procstat__nic_open(opts->nic, &p->nic);
		p->has_nic = !err;
	}
	if (err) {
		free(p);
		return err;
	}
	*out = &p->c;
	return 0;
}

static const struct procstat_nic *nic_of(struct procstat_collector *p)
{
	return p->has_nic ? &p->nic.match : NULL;
}

static int procstat_start(struct collector *c)
{
	struct procstat_collector *p = (struct procstat_collector *)c;
	int err;

	if (p->started) {
		pr_err("procstat: already started");
		return -EBUSY;
	}
	err = procstat__snap_read(&p->start, nic_of(p));
	if (!err && p->interval_s > 0)
		err = procstat__sampler_start(&p->sampler, p->interval_s,
					      p->start.t, nic_of(p));
	if (err) {
		procstat__snap_release(&p->start);
		return err;
	}
	p->started = true;
	return 0;
}

static int procstat_stop(struct collector *c)
{
	struct procstat_collector *p = (struct procstat_collector *)c;
	struct procstat_snap end = { 0 };
	struct procstat_delta d;
	json_t *series = NULL;
	int err, serr;

	if (!p->started || p->stopped) {
		pr_err("procstat: stop without a start");
		return -EINVAL;
	}
	p->stopped = true;
	serr = procstat__sampler_stop(&p->sampler, &series);
	err = procstat__snap_read(&end, nic_of(p));
	if (!err)
		err = procstat__delta(&p->start, &end, &d);
	if (!err) {
		p->results = procstat__delta_json(
			&d, p->has_nic ? p->nic.name : NULL, user_hz());
		json_object_set_new(p->results, "interval_seconds",
				    json_real(p->interval_s));
		json_object_set_new(p->results, "intervals",
				    series ? series : json_array());
		series = NULL;
		procstat__delta_release(&d);
	}
	if (!err && serr)
		pr_warn("procstat: the interval series stopped early: %s",
			strerror(-serr));
	json_decref(series);
	procstat__snap_release(&end);
	return err;
}

static int procstat_results(struct collector *c, json_t **out)
{
	return collector__results(c, ((struct procstat_collector *)c)->results,
				  out);
}

static void procstat_destroy(struct collector *c)
{
	struct procstat_collector *p = (struct procstat_collector *)c;
	json_t *series;

	if (!p)
		return;
	procstat__sampler_stop(&p->sampler, &series);
	json_decref(series);
	procstat__snap_release(&p->start);
	procstat__nic_release(&p->nic);
	json_decref(p->results);
	free(p);
}

COLLECTOR_OPS(procstat, procstat__store);

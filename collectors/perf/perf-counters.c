// SPDX-License-Identifier: GPL-2.0-only
/*
 * Counting with libperf (built from the kernel's tools/lib/perf). Each
 * event is first opened on its own, so that one the machine lacks does
 * not take the others down with it; the supported ones then go into one
 * evlist, enabled and disabled together.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perf/core.h>
#include <perf/cpumap.h>
#include <perf/evlist.h>
#include <perf/evsel.h>
#include <perf/threadmap.h>

#include "collectors/perf/perf-counters.h"
#include "collectors/perf/perf-events.h"
#include "errmsg.h"
#include "log.h"
#include "util.h"

const char *const perf_counters_default[] = {
	"cpu-clock", "task-clock",   "context-switches",
	"cycles",    "instructions", NULL,
};

struct counter {
	const struct perf_event_def *def;
	struct perf_evsel *evsel; /* NULL: unsupported */
	char *error;
	struct perf_counts_values *counts; /* per CPU index */
};

struct perf_counters {
	struct perf_evlist *evlist;
	struct perf_cpu_map *cpus;
	struct perf_thread_map *threads;
	struct counter *ev;
	size_t nr;
	bool read;
};

static int libperf_print(enum libperf_print_level level, const char *fmt,
			 va_list ap)
{
	char buf[512];

	if (level > LIBPERF_WARN)
		return 0;
	vsnprintf(buf, sizeof(buf), fmt, ap);
	buf[strcspn(buf, "\n")] = '\0';
	pr_debug("libperf: %s", buf);
	return 0;
}

static void libperf_setup(void)
{
	static bool done;

	if (!done)
		libperf_init(libperf_print);
	done = true;
}

const char *perf_counters__canonical(const char *name)
{
	const struct perf_event_def *d = name ? perf_event_def__find(name) :
						NULL;

	return d ? d->name : NULL;
}

const char *perf_counters__known(void)
{
	static char buf[512];
	size_t i, len = 0;

	if (buf[0])
		return buf;
	for (i = 0; perf_event_defs[i].name; i++)
		len += snprintf(buf + len, sizeof(buf) - len, "%s%s",
				i ? ", " : "", perf_event_defs[i].name);
	return buf;
}

static struct perf_evsel *new_evsel(const struct perf_event_def *d)
{
	struct perf_event_attr attr = {
		.type = d->type,
		.size = sizeof(attr),
		.config = d->config,
		.disabled = 1,
		.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			       PERF_FORMAT_TOTAL_TIME_RUNNING,
	};

	return perf_evsel__new(&attr);
}

/* Open @d alone on @cpus to learn whether the machine can count it. */
static int try_open(const struct perf_event_def *d, struct perf_cpu_map *cpus,
		    struct perf_thread_map *threads)
{
	struct perf_evsel *e = new_evsel(d);
	int err;

	if (!e)
		return -ENOMEM;
	err = perf_evsel__open(e, cpus, threads);
	if (!err)
		perf_evsel__close(e);
	perf_evsel__delete(e);
	return err;
}

static char *reason(int err)
{
	if (err == -ENOENT || err == -EOPNOTSUPP || err == -ENODEV)
		return xasprintf("not supported on this machine (%s)",
				 strerror(-err));
	return xstrdup(strerror(-err));
}

bool perf_counters__supported(const char *name, char **err)
{
	const struct perf_event_def *d = perf_event_def__find(name);
	struct perf_cpu_map *cpus;
	struct perf_thread_map *threads;
	int ret;

	errmsg__reset(err);
	if (!d) {
		errmsg__set(err, 0, "unknown event");
		return false;
	}
	libperf_setup();
	cpus = perf_cpu_map__new("0");
	threads = perf_thread_map__new_dummy();
	ret = cpus && threads ? try_open(d, cpus, threads) : -ENOMEM;
	perf_cpu_map__put(cpus);
	perf_thread_map__put(threads);
	if (ret)
		errmsg__move(err, 0, reason(ret));
	return !ret;
}

static int resolve(struct perf_counters *pc, const char *const *names, size_t n)
{
	size_t i, j;

	pc->ev = xcalloc(n ? n : 1, sizeof(*pc->ev));
	for (i = 0; i < n; i++) {
		const struct perf_event_def *d = perf_event_def__find(names[i]);

		if (!d) {
			pr_err("perf: unknown counter '%s' (expected one of: "
			       "%s)",
			       names[i], perf_counters__known());
			return -EINVAL;
		}
		for (j = 0; j < pc->nr && pc->ev[j].def != d; j++)
			;
		if (j == pc->nr)
			pc->ev[pc->nr++].def = d;
	}
	return 0;
}

int perf_counters__open(const char *const *names, size_t n, const char *cpus,
			struct perf_counters **out)
{
	struct perf_counters *pc = xcalloc(1, sizeof(*pc));
	size_t i, nr_open = 0;
	int err;

	*out = NULL;
	libperf_setup();
	err = resolve(pc, names, n);
	if (err)
		goto fail;
	pc->cpus = perf_cpu_map__new(cpus);
	pc->threads = perf_thread_map__new_dummy();
	pc->evlist = perf_evlist__new();
	if (!pc->cpus || !pc->threads || !pc->evlist) {
		pr_err("perf: cannot set up counters on CPUs '%s'",
		       cpus ? cpus : "all");
		err = -EINVAL;
		goto fail;
	}
	for (i = 0; i < pc->nr; i++) {
		struct counter *c = &pc->ev[i];

		err = try_open(c->def, pc->cpus, pc->threads);
		if (err) {
			c->error = reason(err);
			pr_debug("perf: %s: %s", c->def->name, c->error);
			continue;
		}
		c->evsel = new_evsel(c->def);
		if (!c->evsel) {
			err = -ENOMEM;
			goto fail;
		}
		perf_evlist__add(pc->evlist, c->evsel);
		nr_open++;
	}
	perf_evlist__set_maps(pc->evlist, pc->cpus, pc->threads);
	err = nr_open ? perf_evlist__open(pc->evlist) : 0;
	if (err) {
		pr_err("perf: cannot open the counters: %s", strerror(-err));
		goto fail;
	}
	*out = pc;
	return 0;
fail:
	perf_counters__close(pc);
	return err;
}

void perf_counters__enable(struct perf_counters *pc)
{
	perf_evlist__enable(pc->evlist);
}

int perf_counters__disable(struct perf_counters *pc)
{
	int nr_cpus = perf_cpu_map__nr(pc->cpus), idx, err = 0;
	size_t i;

	perf_evlist__disable(pc->evlist);
	for (i = 0; i < pc->nr; i++) {
		struct counter *c = &pc->ev[i];

		if (!c->evsel)
			continue;
		c->counts = xcalloc(nr_cpus, sizeof(*c->counts));
		for (idx = 0; idx < nr_cpus && !err; idx++) {
			err = perf_evsel__read(c->evsel, idx, 0,
					       &c->counts[idx]);
			if (err)
				pr_err("perf: reading %s on CPU %d: %s",
				       c->def->name,
				       perf_cpu_map__cpu(pc->cpus, idx).cpu,
				       strerror(-err));
		}
	}
	pc->read = !err;
	return err;
}

static json_t *counter_json(const struct perf_counters *pc,
			    const struct counter *c)
{
	json_t *per = json_array();
	double total = 0;
	bool mux = false;
	int idx;

	for (idx = 0; idx < perf_cpu_map__nr(pc->cpus); idx++) {
		const struct perf_counts_values *v = &c->counts[idx];
		double val = (double)v->val;

		/* Multiplexed: scale up to the whole time enabled. */
		if (v->run && v->run < v->ena) {
			val = val * (double)v->ena / (double)v->run;
			mux = true;
		}
		total += val;
		json_array_append_new(
			per,
			json_pack("{s:i, s:f, s:I, s:I}", "cpu",
				  perf_cpu_map__cpu(pc->cpus, idx).cpu, "value",
				  val, "enabled_ns", (json_int_t)v->ena,
				  "running_ns", (json_int_t)v->run));
	}
	return json_pack("{s:s, s:b, s:s, s:f, s:b, s:o}", "name", c->def->name,
			 "supported", true, "unit", c->def->unit, "value",
			 total, "multiplexed", mux, "per_cpu", per);
}

json_t *perf_counters__json(const struct perf_counters *pc)
{
	json_t *arr = json_array();
	size_t i;

	for (i = 0; pc && i < pc->nr; i++) {
		const struct counter *c = &pc->ev[i];

		if (c->evsel && pc->read)
			json_array_append_new(arr, counter_json(pc, c));
		else
			json_array_append_new(
				arr,
				json_pack("{s:s, s:b, s:s}", "name",
					  c->def->name, "supported", false,
					  "error",
					  c->error ? c->error : "not read"));
	}
	return arr;
}

void perf_counters__close(struct perf_counters *pc)
{
	size_t i;

	if (!pc)
		return;
	if (pc->evlist) {
		perf_evlist__close(pc->evlist);
		/* Deletes the evsels it holds, too. */
		perf_evlist__delete(pc->evlist);
	}
	for (i = 0; i < pc->nr; i++) {
		free(pc->ev[i].error);
		free(pc->ev[i].counts);
	}
	perf_cpu_map__put(pc->cpus);
	perf_thread_map__put(pc->threads);
	free(pc->ev);
	free(pc);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * The perf collector: `perf record` over the workload window, parsed by
 * `perf report` into per-symbol overhead rows, with perf.data kept as an
 * artifact; and system-wide counters through libperf over the same
 * window. What perf really sampled is read back from perf.data, since
 * perf silently turns `cycles` into cpu-clock where there is no PMU.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "atomic-file.h"
#include "clock.h"
#include "collectors/collector.h"
#include "collectors/perf/perf-collector.h"
#include "collectors/perf/perf-counters.h"
#include "collectors/perf/perf-record.h"
#include "errmsg.h"
#include "log.h"
#include "util.h"

struct perf_collector {
	struct collector c;
	struct perf_config cfg;
	char *event_requested; /* as configured, or the default chosen */
	char *dir, *data, *log;
	bool own_dir; /* a temporary directory, removed by destroy */
	struct perf_record rec;
	struct perf_counters *pc;
	double t_start, t_stop;
	json_t *results;
	bool started, stopped;
};

/* cycles where this machine can count them, else cpu-clock. */
static char *default_event(void)
{
	return xstrdup(perf_counters__supported("cycles", NULL) ? "cycles" :
								  "cpu-clock");
}

static int perf_support(json_t **info)
{
	json_t *events = json_object();
	char *version = perf_record__version(NULL), *ev;
	size_t i;

	for (i = 0; perf_counters_default[i]; i++) {
		char *why = NULL;
		bool ok = perf_counters__supported(perf_counters_default[i],
						   &why);

		json_object_set_new(events, perf_counters_default[i],
				    ok ? json_true() : json_string(why));
		free(why);
	}
	ev = default_event();
	*info = json_pack("{s:b, s:s?, s:s, s:o}", "perf_available", !!version,
			  "perf_version", version, "default_event", ev,
			  "counters", events);
	free(version);
	free(ev);
	return *info ? 0 : -ENOMEM;
}

static int setup_dir(struct perf_collector *p, const char *outdir)
{
	char real[PATH_MAX], tmpl[] = "/tmp/iommu-bench-perf.XXXXXX";
	struct stat sb;

	if (outdir) {
		if (stat(outdir, &sb) || !S_ISDIR(sb.st_mode) ||
		    !realpath(outdir, real)) {
			pr_err("perf: output directory '%s' is not a directory",
			       outdir);
			return -ENOTDIR;
		}
		p->dir = xstrdup(real);
	} else {
		if (!mkdtemp(tmpl)) {
			pr_err("perf: mkdtemp: %s", strerror(errno));
			return -errno;
		}
		p->dir = xstrdup(tmpl);
		p->own_dir = true;
	}
	p->data = xasprintf("%s/perf.data", p->dir);
	p->log = xasprintf("%s/perf.log", p->dir);
	return 0;
}

static int perf_create(const struct collector_opts *opts,
		       struct collector **out)
{
	struct perf_collector *p = xcalloc(1, sizeof(*p));
	int err;

	p->c.ops = &perf_collector_ops;
	err = perf_config__parse(opts ? opts->config : NULL, &p->cfg);
	if (!err && p->cfg.record)
		err = setup_dir(p, opts ? opts->outdir : NULL);
	if (err) {
		perf_collector_ops.destroy(&p->c);
		return err;
	}
	p->event_requested = p->cfg.event ? xstrdup(p->cfg.event) :
					    default_event();
	*out = &p->c;
	return 0;
}

static int perf_start(struct collector *c)
{
	struct perf_collector *p = (struct perf_collector *)c;
	struct perf_record_opts ro = {
		.event = p->event_requested,
		.freq = p->cfg.freq,
		.callgraph = p->cfg.callgraph,
		.cpus = p->cfg.cpus,
		.output = p->data,
		.log = p->log,
		.no_buildid = !p->cfg.report_here,
	};
	int err = 0;

	if (p->started) {
		pr_err("perf: already started");
		return -EBUSY;
	}
	if (p->cfg.nr_counters)
		err = perf_counters__open((const char *const *)p->cfg.counters,
					  p->cfg.nr_counters, p->cfg.cpus,
					  &p->pc);
	if (!err && p->cfg.record)
		err = perf_record__start(&p->rec, &ro);
	if (err) {
		perf_record__release(&p->rec);
		perf_counters__close(p->pc);
		p->pc = NULL;
		return err;
	}
	if (p->pc)
		perf_counters__enable(p->pc);
	p->t_start = mono_ns() / 1e9;
	p->started = true;
	return 0;
}

static json_t *profile_json(const struct perf_report *rep)
{
	json_t *arr = json_array();
	size_t i;

	for (i = 0; i < rep->nr; i++) {
		const struct perf_row *r = &rep->rows[i];
		char mode[2] = { r->mode, '\0' };

		json_array_append_new(
			arr,
			json_pack("{s:s, s:s, s:s, s:f, s:I, s:s}", "symbol",
				  r->symbol, "dso", r->dso, "mode", mode,
				  "overhead", r->overhead, "samples",
				  (json_int_t)r->samples, "event", r->event));
	}
	return arr;
}

/*
 * perf.data (and @kallsyms, another host's, or NULL: this one's) into
 * the "profile" part of @res, which says which event was asked for.
 */
static int profile__read(const char *data, const char *kallsyms,
			 double percent_limit, json_t *res)
{
	const char *requested =
		json_string_value(json_object_get(res, "event_requested"));
	struct perf_report rep = { 0 };
	char *event = NULL;
	uint64_t t0 = mono_ms(), t1 = 0;
	int err;

	err = perf_record__evlist(NULL, data, &event);
	if (!err) {
		t1 = mono_ms();
		err = perf_record__report_with(NULL, data, kallsyms,
					       percent_limit, &rep);
	}
	if (err)
		goto out;
	if (requested && strcmp(event, requested))
		pr_warn("perf: asked to sample '%s', perf recorded '%s'",
			requested, event);
	json_object_set_new(res, "event", json_string(event));
	json_object_set_new(res, "event_fallback",
			    json_boolean(requested &&
					 strcmp(event, requested)));
	json_object_set_new(res, "samples", json_integer(rep.samples));
	json_object_set_new(res, "lost_samples", json_integer(rep.lost));
	json_object_set_new(res, "rows_skipped", json_integer(rep.skipped));
	json_object_set_new(res, "rows_below_limit", json_integer(rep.dropped));
	json_object_set_new(res, "percent_limit", json_real(percent_limit));
	json_object_set_new(res, "profile", profile_json(&rep));
	/* What the profile cost the trial: a TCG guest makes it seconds. */
	json_object_set_new(json_object_get(res, "cost_ms"), "evlist",
			    json_integer((json_int_t)(t1 - t0)));
	json_object_set_new(json_object_get(res, "cost_ms"), "report",
			    json_integer((json_int_t)(mono_ms() - t1)));
out:
	free(event);
	perf_report__release(&rep);
	return err;
}

/*
 * The report left to the controller: this kernel's symbols beside
 * perf.data, both fetched with the trial's artifacts.
 */
static int profile__defer(struct perf_collector *p, json_t *res)
{
	char *ksyms, *path;
	size_t len;
	int err;

	if (p->own_dir) {
		pr_err("perf: report \"controller\" needs an output folder "
		       "for its artifacts");
		return -EINVAL;
	}
	err = read_file("/proc/kallsyms", &ksyms, &len);
	if (err < 0) {
		pr_err("perf: cannot read /proc/kallsyms: %s", strerror(-err));
		return err;
	}
	path = xasprintf("%s/kallsyms", p->dir);
	err = atomic_file__write(
		path, &(struct iovec){ .iov_base = ksyms, .iov_len = len }, 1);
	free(ksyms);
	if (!err) {
		json_object_set_new(res, "report", json_string("controller"));
		json_object_set_new(res, "kallsyms", json_string(path));
		json_object_set_new(res, "percent_limit",
				    json_real(p->cfg.percent_limit));
	}
	free(path);
	return err;
}

int perf_collector__report_deferred(json_t *res, char **err)
{
	const char *how = json_string_value(json_object_get(res, "report"));
	const char *data = json_string_value(json_object_get(res, "perf_data"));
	const char *ksyms = json_string_value(json_object_get(res, "kallsyms"));
	double limit = json_number_value(json_object_get(res, "percent_limit"));
	int ret;

	if (!how || strcmp(how, "controller"))
		return 0;
	if (!data || !ksyms || access(data, R_OK) || access(ksyms, R_OK))
		return errmsg__set(err, -ENOENT, "%s",
				   "the host's perf.data or kallsyms did "
				   "not come");
	json_object_set_new(res, "report", json_string("done"));
	ret = profile__read(data, ksyms, limit, res);
	if (ret && err)
		errmsg__set(err, 0, "perf could not read %s here: %s", data,
			    strerror(-ret));
	return ret;
}

static int perf_stop(struct collector *c)
{
	struct perf_collector *p = (struct perf_collector *)c;
	int err = 0, cerr = 0;
	uint64_t t0;
	json_t *res;

	if (!p->started || p->stopped) {
		pr_err("perf: stop without a start");
		return -EINVAL;
	}
	p->stopped = true;
	if (p->pc)
		cerr = perf_counters__disable(p->pc);
	p->t_stop = mono_ns() / 1e9;
	t0 = mono_ms();
	if (p->cfg.record)
		err = perf_record__stop(&p->rec);
	res = json_pack("{s:s, s:i, s:s, s:s?, s:f, s:b, s:o, s:{s:I}}",
			"event_requested", p->event_requested, "frequency",
			(int)p->cfg.freq, "callgraph", p->cfg.callgraph, "cpus",
			p->cfg.cpus, "window_seconds", p->t_stop - p->t_start,
			"recorded", p->cfg.record, "counters",
			perf_counters__json(p->pc), "cost_ms", "stop",
			(json_int_t)(mono_ms() - t0));
	if (!err && p->cfg.record) {
		json_object_set_new(res, "perf_data",
				    p->own_dir ? json_null() :
						 json_string(p->data));
		if (p->cfg.report_here)
			err = profile__read(p->data, NULL, p->cfg.percent_limit,
					    res);
		else
			err = profile__defer(p, res);
	}
	if (err || cerr) {
		json_decref(res);
		return err ? err : cerr;
	}
	p->results = res;
	return 0;
}

static int perf_results(struct collector *c, json_t **out)
{
	return collector__results(c, ((struct perf_collector *)c)->results,
				  out);
}

static void perf_destroy(struct collector *c)
{
	struct perf_collector *p = (struct perf_collector *)c;

	if (!p)
		return;
	perf_record__release(&p->rec);
	perf_counters__close(p->pc);
	if (p->own_dir) {
		unlink(p->data);
		unlink(p->log);
		/* perf renames an existing perf.data to perf.data.old */
		free(p->data);
		p->data = xasprintf("%s/perf.data.old", p->dir);
		unlink(p->data);
		rmdir(p->dir);
	}
	free_all(p->dir, p->data, p->log, p->event_requested);
	perf_config__release(&p->cfg);
	json_decref(p->results);
	free(p);
}

COLLECTOR_OPS(perf, perf_collector__store);

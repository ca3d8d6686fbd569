// SPDX-License-Identifier: GPL-2.0-only
/*
 * The perf collector for real: perf record -a around a busy loop pinned
 * to CPU 0, perf report parsed into rows, libperf counters over the same
 * window, everything stored in a real SQLite file with perf.data as an
 * artifact. Asks for `cycles` on purpose: where the machine has no PMU
 * perf records cpu-clock, and the results must say so.
 */
#include <math.h>
#include <sys/stat.h>
#include <time.h>

#include "clock.h"
#include "collectors-test.h"
#include "collectors/perf/perf-collector.h"
#include "collectors/collector.h"
#include "collectors/perf/perf-counters.h"
#include "collectors/perf/perf-record.h"

static const struct collector_ops *ops = &perf_collector_ops;

/*
 * libperf 6.1's perf_evsel__delete() frees an evsel without putting the
 * CPU and thread maps perf_evlist__set_maps() handed it: a few dozen
 * bytes per collector, in the library, which later kernels fix.
 */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:perf_thread_map__new_array\n"
	       "leak:cpu_map__trim_new\n";
}

static int spin(void *arg)
{
	int64_t t0 = mono_ms();

	(void)arg;
	while (mono_ms() - t0 < 1500)
		;
	return 0;
}

static json_t *run_collector(const json_t *cfg, const char *outdir)
{
	struct collector_opts o = { .outdir = outdir, .config = cfg };
	struct collector *c = NULL;
	struct spawn busy;
	json_t *r = NULL;

	if (!is_int(ops->create(&o, &c), 0, "create"))
		return NULL;
	if (is_int(ops->start(c), 0, "start (perf record is enabled)")) {
		spawn__fn(&busy, spin, NULL, "busy loop",
			  &(struct spawn_opts){ .pin = true, .cpu = 0 });
		spawn__wait(&busy, 10000);
		ok(spawn__succeeded(&busy), "a busy loop ran 1.5 s on CPU 0");
		spawn__release(&busy);
		if (is_int(ops->stop(c), 0, "stop (perf report parsed)"))
			is_int(ops->results(c, &r), 0, "results");
	}
	ops->destroy(c);
	return r;
}

static const json_t *counter(const json_t *r, const char *name)
{
	const json_t *c;
	size_t i;

	json_array_foreach(json_object_get(r, "counters"), i, c)
		if (!strcmp(json_string_value(json_object_get(c, "name")),
			    name))
			return c;
	return NULL;
}

static void check_profile(const json_t *r)
{
	const json_t *row;
	double sum = 0, busy = 0;
	bool in_range = true;
	size_t i;

	ok(json_array_size(json_object_get(r, "profile")) > 0,
	   "profile rows exist (%zu)",
	   json_array_size(json_object_get(r, "profile")));
	json_array_foreach(json_object_get(r, "profile"), i, row) {
		double ov = json_number_value(json_object_get(row, "overhead"));
		const char *dso =
			json_string_value(json_object_get(row, "dso"));

		in_range &= ov > 0 && ov <= 100;
		sum += ov;
		if (strstr(dso, "test-perf") || !strcmp(dso, "[vdso]"))
			busy += ov;
	}
	ok(in_range, "every overhead in (0, 100]");
	ok(sum > 0 && sum <= 100.5, "overheads sum to at most 100.5 (%.2f)",
	   sum);
	tap_diag("the busy loop's share: %.1f%%", busy);
	ok(busy > 10, "the busy loop (this binary, [vdso]) shows up > 10%%");
}

static void check_counters(const json_t *r)
{
	const json_t *clk = counter(r, "cpu-clock"),
		     *cyc = counter(r, "cycles");
	bool have_cycles = perf_counters__supported("cycles", NULL);

	ok(json_is_true(json_object_get(clk, "supported")) &&
		   json_number_value(json_object_get(clk, "value")) > 1e9,
	   "cpu-clock counted over the window (> 1 s of CPU time)");
	ok(json_array_size(json_object_get(clk, "per_cpu")) >= 1, "per CPU");
	ok(json_number_value(json_object_get(counter(r, "context-switches"),
					     "value")) > 0,
	   "context switches counted");
	if (have_cycles)
		ok(json_number_value(json_object_get(cyc, "value")) > 0,
		   "cycles counted");
	else
		ok(json_is_false(json_object_get(cyc, "supported")) &&
			   json_is_string(json_object_get(cyc, "error")) &&
			   !json_object_get(cyc, "value"),
		   "cycles: unsupported here, with a reason, and no value");
}

/*
 * A profile left to the controller whose perf.data never came home (a
 * guest that stopped answering file.read): nothing to count samples in,
 * and the trial's other results are stored all the same.
 */
static void test_store_unreported(struct store *st, int64_t trial)
{
	json_t *r = json_pack("{s:b, s:s, s:s, s:s, s:[]}", "recorded", 1,
			      "report", "controller", "perf_data",
			      "/nonexistent/perf.data", "kallsyms",
			      "/nonexistent/kallsyms", "counters");
	int64_t n = -1;
	char *why = NULL;

	is_int(perf_collector__report_deferred(r, &why), -ENOENT,
	       "perf.data that did not come: no report");
	ok(why && strstr(why, "perf.data or kallsyms did not come"),
	   "and the reason says what is missing (%s)", why ? why : "none");
	free(why);
	is_int(ops->store(st, trial, r), 0,
	       "and the results are stored all the same");
	store__count(st, "metrics", &n);
	is_int(n, 0, "with no sample count made up for it");
	json_decref(r);
}

static void test_record(struct store *st, int64_t run, int64_t trial)
{
	json_t *cfg = json_pack("{s:b, s:s, s:i}", "enabled", 1, "event",
				"cycles", "frequency", 499);
	char *outdir = xasprintf("%s/trial-1", ct_tmpdir);
	const char *event, *data;
	int64_t n = 0;
	json_t *r;

	mkdir(outdir, 0755);
	ct_capture_begin(); /* the warning about cycles is expected */
	r = run_collector(cfg, outdir);
	free(ct_capture_end());
	if (!r)
		goto out;
	event = json_string_value(json_object_get(r, "event"));
	tap_diag("asked for cycles, perf recorded %s", event);
	if (perf_counters__supported("cycles", NULL))
		is_str(event, "cycles", "cycles was recorded");
	else
		ok(!strcmp(event, "cpu-clock") &&
			   json_is_true(json_object_get(r, "event_fallback")),
		   "cpu-clock was really recorded, and the results say so");
	check_profile(r);
	check_counters(r);
	data = json_string_value(json_object_get(r, "perf_data"));
	ok(data && data[0] == '/' && !access(data, R_OK),
	   "perf.data is kept in the output directory (%s)", data);

	is_int(ops->store(st, trial, r), 0, "stored");
	store__count(st, "profile", &n);
	is_int(n, json_array_size(json_object_get(r, "profile")),
	       "one profile row per result row");
	store__count(st, "artifacts", &n);
	is_int(n, 1, "perf.data is an artifact");
	store__count(st, "metrics", &n);
	ok(n >= 4, "samples and counter metrics (%lld)", (long long)n);
	(void)run;
	json_decref(r);
out:
	json_decref(cfg);
	free(outdir);
}

/*
 * The testbed's way: the host records with no build-id pass and hands
 * back perf.data and its kallsyms; the report is made where the results
 * are stored. Here both ends are this machine, which is what makes the
 * profile checkable.
 */
static void test_deferred(void)
{
	json_t *cfg = json_pack("{s:s, s:s, s:i}", "report", "controller",
				"event", "cpu-clock", "frequency", 499);
	char *outdir = xasprintf("%s/trial-2", ct_tmpdir);
	const char *ks;
	struct stat st;
	json_t *r;

	mkdir(outdir, 0755);
	r = run_collector(cfg, outdir);
	if (!r)
		goto out;
	is_str(json_string_value(json_object_get(r, "report")), "controller",
	       "the report is left to the controller");
	ok(!json_object_get(r, "profile"), "no profile made on the host");
	ks = json_string_value(json_object_get(r, "kallsyms"));
	ok(ks && !stat(ks, &st) && st.st_size > 1000,
	   "the host's kallsyms beside perf.data (%s)", ks ? ks : "none");
	is_int(perf_collector__report_deferred(r, NULL), 0,
	       "the controller reports it");
	is_str(json_string_value(json_object_get(r, "report")), "done",
	       "and says so");
	check_profile(r);
	is_int(perf_collector__report_deferred(r, NULL), 0,
	       "a second call has nothing left to do");
	json_decref(r);
out:
	json_decref(cfg);
	free(outdir);
}

static void test_counters_only(void)
{
	json_t *cfg = json_pack("{s:b, s:[s, s]}", "record", 0, "counters",
				"task-clock", "cs");
	struct collector_opts o = { .config = cfg };
	struct collector *c = NULL;
	json_t *r = NULL;

	if (is_int(ops->create(&o, &c), 0, "counters only: create") &&
	    is_int(ops->start(c), 0, "start") &&
	    is_int(ops->stop(c), 0, "stop") &&
	    is_int(ops->results(c, &r), 0, "results")) {
		ok(!json_object_get(r, "profile"), "no profile");
		is_int(json_array_size(json_object_get(r, "counters")), 2,
		       "the two counters asked for (an alias resolved)");
		ok(counter(r, "context-switches") != NULL,
		   "cs is context-switches");
	}
	json_decref(r);
	if (c)
		ops->destroy(c);
	json_decref(cfg);
}

static void bad(const char *what, json_t *cfg, const char *want)
{
	struct collector_opts o = { .config = cfg };
	struct collector *c = NULL;
	char *err;
	int ret;

	ct_capture_begin();
	ret = ops->create(&o, &c);
	err = ct_capture_end();
	ok(ret == -EINVAL && !c, "%s is refused", what);
	has_str(err, want, "naming it");
	free(err);
	json_decref(cfg);
}

static void test_config(void)
{
	bad("an unknown key", json_pack("{s:i}", "frequncy", 99), "'frequncy'");
	bad("an option as event", json_pack("{s:s}", "event", "-o/etc/x"),
	    "event '-o/etc/x'");
	bad("frequency 0", json_pack("{s:i}", "frequency", 0), "1..100000");
	bad("a callgraph", json_pack("{s:s}", "callgraph", "frame"), "'frame'");
	bad("a counter", json_pack("{s:[s]}", "counters", "cylces"),
	    "'cylces' is not one of");
	bad("a CPU list", json_pack("{s:s}", "cpus", "0;reboot"), "'0;reboot'");
	bad("where to report", json_pack("{s:s}", "report", "there"),
	    "\"here\" or \"controller\"");
}

static void test_bad_event(void)
{
	json_t *cfg = json_pack("{s:s, s:[s]}", "event", "nosuchevent",
				"counters", "cpu-clock");
	struct collector_opts o = { .config = cfg };
	struct collector *c = NULL;
	char *err;
	int ret = -1;

	if (!is_int(ops->create(&o, &c), 0, "an unknown event: create"))
		goto out;
	ct_capture_begin();
	ret = ops->start(c);
	err = ct_capture_end();
	ok(ret < 0, "start fails");
	has_str(err, "nosuchevent", "with perf's own words");
	free(err);
	ops->destroy(c);
out:
	json_decref(cfg);
}

int main(void)
{
	struct store *st;
	int64_t run, trial;
	json_t *info = NULL;
	char *v;

	ct_guard();
	if (geteuid() != 0)
		tap_skip_all("system-wide perf needs root");
	v = perf_record__version(NULL);
	if (!v)
		tap_skip_all("perf is not installed");
	tap_diag("%s", v);
	free(v);
	is_int(ops->support(&info), 0, "support()");
	ok(json_is_true(json_object_get(info, "perf_available")),
	   "perf is available");
	ok(json_is_true(json_object_get(json_object_get(info, "counters"),
					"cpu-clock")),
	   "cpu-clock can be counted");
	tap_diag("default event: %s",
		 json_string_value(json_object_get(info, "default_event")));
	json_decref(info);
	test_config();
	test_bad_event();
	test_counters_only();
	st = ct_store(&run, &trial);
	test_store_unreported(st, trial);
	test_record(st, run, trial);
	test_deferred();
	store__commit(st);
	store__close(st);
	return tap_done();
}
